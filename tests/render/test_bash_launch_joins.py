"""Recipes that give each unset input a default (`if [[ -z ${X} ]]; then X=d; fi`, a dozen times)
and then launch MaxText with every one of them: the paths join after each default, the launch is
one launch with symbolic words, and each concrete command line is what bash runs.

bash only runs the scripts written here, in a temporary directory, with an empty environment
except PATH; the launched program is a shell function that prints its arguments.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from test_bash_property import bash_env
from test_bash_symbolic import own_changes, resolved_in, taken_by

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate
from flaglint.render.bash.types import OTHER, Choice, Split, Sym, ifs_fields

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

DEFAULTS = [f"IN{i}" for i in range(12)]


def _defaults_script(launch: str = "") -> str:
    lines = []
    for i, name in enumerate(DEFAULTS):
        lines.append(f"if [[ -z ${{{name}}} ]] ; then\n    {name}=d{i}\nfi\n")  # assigned, not exported
    lines.append('export ALL="' + " ".join(f"${n}" for n in DEFAULTS) + '"\n')
    return "".join(lines) + launch


def _samples(domains: dict, n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    names = sorted(domains)
    return [{k: rng.choice(domains[k]) for k in names} for _ in range(n)]


def _exports_agree_with_bash(directory: Path, paths: list, samples: list[dict]) -> None:
    """For each assignment of the inputs: the outcome of the one path that holds it, resolved,
    exports what bash exports (less the inputs left as the environment gave them)."""
    for sample in samples:
        env = {k: v for k, v in sample.items() if v is not None}
        ((_, outcome),) = taken_by(paths, sample)
        got = {}
        for name, value in outcome.rendering.exported.items():
            concrete = resolved_in(value, env)
            if concrete is not None and not isinstance(concrete, list):
                got[name] = concrete.text
        assert own_changes(got, env) == own_changes(bash_env(directory, env), env), env


def test_unexported_defaults_of_inputs_join_and_agree_with_bash(tmp_path):
    (tmp_path / "gen.sh").write_text(_defaults_script())
    merged = evaluate(tmp_path / "gen.sh")
    paths = [(p, o) for o in merged.outcomes for p in o.paths]
    assert len(paths) == 1  # 12 joins, not 2**12 paths
    # An input set in the environment stays exported when the script assigns it: bash says so.
    _exports_agree_with_bash(tmp_path, paths, _samples(paths[0][0].domains, 12))


def _bash_argv(directory: Path, env: dict) -> list[str]:
    out = subprocess.run(
        ["env", "-i", "PATH=/usr/bin:/bin", *[f"{k}={v}" for k, v in env.items()], "bash", "-c",
         "python3() { printf '%s\\0' \"$@\"; }; source ./gen.sh"],
        cwd=directory, capture_output=True, timeout=20,
    )
    return out.stdout.decode().split("\0")[:-1]


LAUNCH = ('python3 -m maxtext.trainers.pre_train.train "$CONFIG" run_name=r \\\n'
          + "".join(f"    key{i}=${n} \\\n" for i, n in enumerate(DEFAULTS)) + '    quoted="$IN0 $IN1"\n')


def test_a_launch_after_many_joins_is_one_launch_whose_words_are_what_bash_runs(tmp_path):
    (tmp_path / "gen.sh").write_text(_defaults_script(LAUNCH))
    merged = evaluate(tmp_path / "gen.sh")
    paths = [(p, o) for o in merged.outcomes for p in o.paths]
    assert len(paths) == 1
    ((launch,),) = [o.rendering.launched for _, o in paths]
    assert sum(type(w) in (Choice, Sym) for w in launch.words) == len(DEFAULTS) + 1  # symbolic, not forked
    for sample in _samples(paths[0][0].domains, 12, seed=1):
        # CONFIG, which the script never sets, is its caller's: set, to a value not known here
        env = {**{k: values[0] for k, values in merged.inputs.items() if values == [OTHER]},
               **{k: v for k, v in sample.items() if v is not None}}
        words = [resolved_in(w, env) if type(w) in (Choice, Sym) else w for w in launch.words]
        assert [w.text for w in words][1:] == _bash_argv(tmp_path, env), env


def concrete_words(launch, env: dict) -> list[str]:
    """The launch's words where the inputs take `env`: a Split word's fields as bash splits it."""
    words = []
    for w in launch.words:
        if type(w) is Split:
            words.extend(ifs_fields(resolved_in(w.value, env)))
        else:
            words.append(resolved_in(w, env) if type(w) in (Choice, Sym) else w)
    return [w.text for w in words]


def test_an_input_that_bash_splits_in_a_launch_word_stays_one_launch_and_splits_as_bash_does(tmp_path):
    # MODE's values include one with a blank: unquoted, bash makes two words of it (and none of "").
    script = ('if [[ "$MODE" == "a b" ]]; then :; fi\nif [[ -z ${MODE} ]]; then\n  MODE=one\nfi\n'
              "python3 -m maxtext.trainers.pre_train.train cfg.yml k=$MODE $MODE last\n")
    (tmp_path / "gen.sh").write_text(script)
    merged = evaluate(tmp_path / "gen.sh")
    seen = set()
    for outcome in merged.outcomes:
        for path in outcome.paths:
            (launch,) = outcome.rendering.launched
            assert sum(type(w) is Split for w in launch.words) == 2  # not forked on MODE
            for value in path.domains["MODE"]:
                env = {} if value is None else {"MODE": value}
                assert concrete_words(launch, env)[1:] == _bash_argv(tmp_path, env)
                seen.add(value)
    assert {"a b", None, ""} <= seen


WRONG_DEFAULT = ('if [[ -z ${PERIOD} ]] ; then\n    PERIOD=1.5\nfi\n'
                 'python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=r log_period=$PERIOD \\\n'
                 + "".join(f"    per_device_batch_size=${n} \\\n" for n in DEFAULTS[:1]) + "    steps=10\n")


def test_a_wrong_default_among_many_is_found_with_only_its_input(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("".join(f"if [[ -z ${{{n}}} ]] ; then\n    {n}={i + 1}\nfi\n" for i, n in enumerate(DEFAULTS))
                      + WRONG_DEFAULT)
    result = check_script(script, Checker()).result
    errors = [f for f in result.findings if f.severity == "error"]
    assert [(f.rule, f.location.line) for f in errors] == [("FL005", 3 * len(DEFAULTS) + 4)], [f.message for f in errors]
    (finding,) = errors
    assert "log_period" in finding.message
    assert set(finding.witness["env"]) == {"PERIOD"}  # not the other dozen inputs



def test_an_array_of_every_default_joins_again_and_agrees_with_bash(tmp_path):
    # Each element reads one input: the paths fork on all of them at the array, and join after.
    names = DEFAULTS[:6]
    script = "".join(f"if [[ -z ${{{n}}} ]]; then\n  export {n}=d{i}\nfi\n" for i, n in enumerate(names))
    script += "args=(\n" + "".join(f'  "{n}=${{{n}}}"\n' for n in names) + ")\n"
    script += 'count() { export N=$#; }\ncount "${args[@]}"\nif [[ ${IN0} == x ]]; then\n  args+=(more)\nfi\n'
    script += 'export JOINED="${args[*]}"\n'
    (tmp_path / "gen.sh").write_text(script)
    merged = evaluate(tmp_path / "gen.sh")
    paths = [(p, o) for o in merged.outcomes for p in o.paths]
    assert len(paths) <= 4  # not 3**6
    domains = {n: sorted({v for p, _ in paths for v in p.domains.get(n, ())}, key=str) for n in names}
    _exports_agree_with_bash(tmp_path, paths, _samples(domains, 12, seed=2))


def test_an_m_variable_set_on_one_branch_reaches_the_launch_on_that_branch(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text('if [[ "${X:-}" == a ]]; then\n  export M_LOG_PERIOD=1.5\nelse\n  export M_LOG_PERIOD=10\nfi\n'
                      "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=r\n")
    (finding,) = [f for f in check_script(script, Checker()).result.findings if f.severity == "error"]
    assert finding.rule == "FL042" and "M_LOG_PERIOD" in finding.message
    assert finding.witness["env"] == {"X": "a"}


def test_joined_values_handed_to_a_function_through_an_array_stay_one_launch(tmp_path):
    # The values go into an array, the array to a function as its arguments, the function's locals
    # into a `bash -c` string: each stays symbolic, so the paths do not fork on every combination.
    names = DEFAULTS[:8]
    script = "".join(f"if [[ -z ${{{n}}} ]]; then\n  {n}=d{i}\nfi\n" for i, n in enumerate(names))
    script += "run() {\n" + "".join(f"  local v{i}=${i + 1}\n" for i in range(len(names)))
    script += ('  python3 -m maxtext.trainers.pre_train.train cfg.yml '
               + " ".join(f'"key{i}=${{v{i}}}"' for i in range(len(names))) + "\n}\n")
    script += "args=(" + " ".join(f'"${{{n}}}"' for n in names) + ')\nrun "${args[@]}"\n'
    (tmp_path / "gen.sh").write_text(script)
    merged = evaluate(tmp_path / "gen.sh")
    paths = [(p, o) for o in merged.outcomes for p in o.paths]
    assert len(paths) == 1  # not 2**8
    ((launch,),) = [o.rendering.launched for _, o in paths]
    assert sum(type(w) in (Choice, Sym) for w in launch.words) == len(names)
    for sample in _samples(paths[0][0].domains, 12, seed=3):
        env = {k: v for k, v in sample.items() if v is not None}
        words = [resolved_in(w, env) if type(w) in (Choice, Sym) else w for w in launch.words]
        assert [w.text for w in words][1:] == _bash_argv(tmp_path, env), env


GUARDED_WORDS = """if [[ -n "${A:-}" || -n "${B:-}" || -n "${C:-}" ]]; then J='{"a": 1}'; fi
python3 -m maxtext.trainers.pre_train.train cfg.yml ${A:+a=$A} "--cmd=run ${B:+b=$B} ${J:+j=ok}" ${C:-c} last
"""


def test_a_launch_whose_words_read_undecided_inputs_is_one_launch_that_bash_agrees_with(tmp_path):
    # `${A:+a=$A}` and the parts of a quoted --cmd string are guarded on their inputs (Choices), and
    # the `||` guard forks once per class of values (empty or not), not once per value.
    (tmp_path / "gen.sh").write_text(GUARDED_WORDS)
    merged = evaluate(tmp_path / "gen.sh")
    ((outcome,),) = [merged.outcomes]
    (launch,) = outcome.rendering.launched
    assert any(type(w) is Split for w in launch.words) and any(type(w) is Sym for w in launch.words)
    values = [merged.inputs[name] for name in ("A", "B", "C")]
    for a in values[0]:
        for b in values[1]:
            for c in values[2]:
                env = {k: v for k, v in zip("ABC", (a, b, c)) if v is not None}
                assert concrete_words(launch, env)[1:] == _bash_argv(tmp_path, env), env

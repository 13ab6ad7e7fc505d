"""A script's positional parameters as bash gives them: `$1`, `$#`, `"$@"`, `${@:2}`, shift,
getopts, an options loop with case and shift, and the arguments handed on to a function or a
sourced file. With arguments given (render), the evaluator agrees with bash; without (explore),
the count and each argument are inputs whose paths partition every assignment, and each path's
outcome is what bash gives with those arguments. bash only runs the scripts generated here, in a
temporary directory, with an empty environment except PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from script_shapes import options_launcher
from test_bash_property import BASH_OWN

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate, explore, render
from flaglint.render.bash.explorer import run_inputs

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

ARGUMENTS = ["-a", "-b", "-ab", "-bx", "-c", "x", "", "a b", "--name", "--name=v", "--", "-"]

STATEMENTS = [
    'export FIRST="$1"', 'export SECOND="${2:-none}"', "export COUNT=$#", 'export ALL="$*"', 'export REST="${@:2}"',
    'export LAST="${@: -1}"', "shift", "shift 2", "shift || export SHIFT_FAILED=1",
    'if [ -z "$1" ]; then export EMPTY=1; fi', 'if [ $# -gt 1 ]; then export MANY=1; fi',
    'for word in "$@"; do SEEN="$SEEN[$word]"; done; export SEEN', "for word; do export LOOPED=$word; done",
    'case "$1" in -a) export CASE=a ;; --name=*) export CASE="${1#*=}" ;; *) export CASE=other ;; esac',
    'first() { export IN_FUNCTION="$1:$#"; }; first "$@"',
    'while [ $# -gt 0 ]; do case "$1" in --name) export NAME="${2:-}"; shift 2 || shift ;; -a) export A=1; shift ;; '
    '*) export STOP="$1"; break ;; esac; done',
    'while getopts "ab:c" opt; do OPTS="$OPTS $opt:${OPTARG-unset}"; done; export OPTS OPTIND',
    'while getopts ":ab:" opt; do QUIET="$QUIET $opt:${OPTARG-unset}"; done; export QUIET opt',
    'set -- one "two words"; export RESET="$2"',
]

scripts = st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=5).map(lambda xs: "\n".join(xs) + "\n")
argument_lists = st.lists(st.sampled_from(ARGUMENTS), max_size=4)


def _bash(directory: Path, args: list[str]) -> dict[str, str]:
    """What the script exports, run by bash with `args` as its arguments."""
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", 'trap "env -0" EXIT; source ./gen.sh',
                          str(directory / "gen.sh"), *args],
                         cwd=directory, capture_output=True, timeout=20)
    pairs = [item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item]
    return {k: v for k, v in pairs if k not in BASH_OWN}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=scripts, args=argument_lists)
@example(script=STATEMENTS[15] + "\n", args=["-a", "--name", "v", "x"])
@example(script=STATEMENTS[16] + "\n", args=["-ab", "v", "-c", "--", "-a"])
@example(script=STATEMENTS[17] + "\n", args=["-b"])
def test_given_arguments_are_what_bash_gives(script, args):
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "gen.sh").write_text(script)
        expected = _bash(Path(d), args)
        rendering = render(Path(d) / "gen.sh", {}, args=args)
        assert {k: v.text for k, v in rendering.exported.items()} == expected, (script, args)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=scripts, choice=st.randoms(use_true_random=False))
@example(script='if [ -z "$1" ]; then exit 1; fi\nexport RUN="$1"\n', choice=None)
def test_unknown_arguments_are_inputs_whose_paths_partition_them(script, choice):
    """In Z3, every assignment of the count and the arguments' explored values satisfies exactly one
    path's condition, and bash given those arguments exports what that path's outcome does."""
    import random

    import z3

    from flaglint.render.bash.path_conditions import PathConditions

    choice = choice or random.Random(0)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "gen.sh"
        path.write_text(script)
        result = explore(path)
        assert not result.capped
        paths = [(p, o) for o in result.outcomes for p in o.paths]
        conditions = PathConditions(result.inputs, [p for p, _ in paths])
        solver = z3.Solver()
        solver.add(conditions.bounds, z3.Not(z3.PbEq([(conditions.any_of([p]), 1) for p, _ in paths], 1)))
        assert solver.check() == z3.unsat, script
        for _ in range(4):
            drawn = {name: choice.choice(values) for name, values in conditions.values.items()}
            ((taken, outcome),) = [(p, o) for p, o in paths if all(drawn.get(n) in vs for n, vs in p.domains.items())]
            # The inputs the path read: each grouped one at the value drawn, the others at the one it took.
            _, args = run_inputs({**taken.env, **{name: drawn[name] for name in taken.domains}})
            expected = _bash(Path(d), args)
            if outcome.rendering.status == 0:
                assert {k: v.text for k, v in outcome.rendering.exported.items()} == expected, (script, args)


def test_a_launch_behind_an_argument_check_is_reachable(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text('if [ $# -lt 1 ]; then echo "usage: $0 NAME" >&2; exit 1; fi\nexport NAME="$1"\n')
    result = explore(script)
    launched = [o for o in result.outcomes if o.rendering.status == 0]
    assert [o.env["$#"] for o in launched] == ["1"] and launched[0].rendering.exported["NAME"].text
    assert {o.env["$#"] for o in result.outcomes if o.rendering.status == 1} == {"0"}


def test_arguments_handed_on_are_decided_where_they_are_compared(tmp_path):
    # `source lib.sh "$@"` before lib.sh is loaded: its comparisons still give the arguments' values.
    (tmp_path / "lib.sh").write_text('case "$1" in --fast) export FAST=1 ;; esac\n')
    script = tmp_path / "run.sh"
    script.write_text('DIR="$(dirname "$0")"\nsource "$DIR/lib.sh" "$@"\n')
    result = explore(script)
    assert {o.rendering.exported.get("FAST") is not None for o in result.outcomes} == {True, False}
    assert "--fast" in result.inputs["$1"]


@pytest.mark.parametrize("options", [2, 4, 8, 16])
def test_an_options_loop_whose_shift_can_fail_ends_with_paths_that_do_not_grow(tmp_path, options):
    # `--oI VALUE` read by `shift 2`, which fails on a last lone option and leaves the arguments as
    # they were: the loop comes back to the same state, so it ends here (bash would loop forever).
    arms = "".join(f'    --o{i}) O{i}="$2"; shift 2 ;;\n' for i in range(options))
    script = tmp_path / "gen.sh"
    script.write_text(f'while [[ $# -gt 0 ]]; do\n  case "$1" in\n{arms}    *) exit 1 ;;\n  esac\ndone\n'
                      f'export {" ".join(f"O{i}" for i in range(options))}\n')
    evaluated = evaluate(script)
    assert evaluated.paths_explored <= 4
    assert not [n for o in evaluated.outcomes for n in o.rendering.notes if "does not end" in str(n)]


def test_a_function_handed_the_arguments_compares_the_script_s_arguments(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text('parse() { case "$1" in --fast) export FAST=1 ;; esac; }\nparse "$@"\n')
    result = explore(script)
    assert "--fast" in result.inputs["$1"]
    assert {o.rendering.exported.get("FAST") is not None for o in result.outcomes} == {True, False}


def test_a_function_given_other_words_compares_its_own_arguments_not_the_script_s(tmp_path):
    # google/tunix's example launchers call a mesh check with four words and hand "$@" to Tunix: the
    # check's `$4 != null` says nothing of the script's arguments, nor does its `$4` make them four.
    script = tmp_path / "run.sh"
    script.write_text('check() { if [ "$4" != "null" ]; then export MESH="$1"; fi; }\ncheck 8 "(2,4)" "(4,2)" null\n'
                      'export ALL="$*"\n')
    result = explore(script)
    assert "null" not in result.inputs.get("$1", ())
    assert max(int(count) for count in result.inputs["$#"]) <= 1


def _run_by(tmp_path, launcher: str, handed: str) -> Path:
    """A script that runs `launcher` (launcher.sh beside it) with the words `handed`."""
    (tmp_path / "launcher.sh").write_text(launcher)
    script = tmp_path / "run.sh"
    script.write_text(f'cd "$(dirname "$0")"\nbash ./launcher.sh {handed}\n')
    return script


def _launched(evaluated) -> set[tuple[str, int]]:
    return {(Path(launch.file).name, launch.line) for o in evaluated.outcomes for launch in o.rendering.launched}


def test_a_script_run_with_words_of_its_own_compares_its_own_arguments_not_the_script_s(tmp_path):
    # google/tunix's single_rollout_proc_test.sh runs its launcher with `--target="${1:-…}"`: the
    # launcher's options (29 of them) say nothing of the script's $1, which was run once for each.
    arms = "".join(f"    --o{i}) O{i}=1; shift ;;\n" for i in range(24))
    launcher = (f'while [[ $# -gt 0 ]]; do\n  case "$1" in\n{arms}    --command=*) COMMAND="${{1#*=}}"; shift ;;\n'
                '    *) shift ;;\n  esac\ndone\nif [[ "$COMMAND" == train ]]; then python3 -m maxtext.train base.yml steps=abc; fi\n')
    evaluated = evaluate(_run_by(tmp_path, launcher, '--target="${1:-v5e}" --command=train'))
    assert not {value for value in evaluated.inputs.get("$1", ()) if value and value.startswith("--o")}
    assert evaluated.paths_explored <= 4
    assert _launched(evaluated) == {("launcher.sh", 31)}


@pytest.mark.parametrize("handed", ['"$@"', '"$1"', "${1:-x}", 'first "$2"'])
def test_a_script_run_with_the_arguments_handed_on_compares_them(tmp_path, handed):
    # the script's own arguments, whole: what the launcher compares them with gives their values
    launcher = 'for word in "$@"; do\n  if [[ "$word" == train ]]; then python3 -m maxtext.train base.yml steps=abc; fi\ndone\n'
    evaluated = evaluate(_run_by(tmp_path, launcher, handed))
    argument = "$2" if "$2" in handed else "$1"
    assert "train" in evaluated.inputs[argument]
    assert _launched(evaluated) == {("launcher.sh", 2)}


@pytest.mark.parametrize("run", ['bash ./launcher.sh --command="$1"\n', 'MODE="$1"\nbash ./launcher.sh "$MODE"\n'])
def test_an_argument_handed_on_inside_another_word_takes_the_values_it_is_given(tmp_path, run):
    # README, "Not followed": the launcher's comparisons give no value to an argument handed on
    # in a word of its own or through a variable; --vary gives one
    launcher = ('for word in "$@"; do\n  if [[ "${word#--command=}" == train ]]; then python3 -m maxtext.train base.yml steps=abc; fi\n'
                'done\n')
    script = _run_by(tmp_path, launcher, "")
    script.write_text(f'cd "$(dirname "$0")"\n{run}')
    assert _launched(evaluate(script)) == set()
    assert _launched(evaluate(script, vary={"$1": ["train"]})) == {("launcher.sh", 2)}


def test_the_arguments_values_are_found_in_the_same_order_whatever_the_hash_seed(tmp_path):
    # a subcommand shifted off before an options loop: $2's values come from what several names
    # are compared with; kept in a set of names, their order (and so the paths' and a finding's
    # witness, google/tunix's submit_gsm8k.sh's `TRAIN_MICRO_BATCH_SIZE='-f'`) moved with the seed
    arms = "".join(f"    --o{i}) O{i}=\"$2\"; shift 2 ;;\n" for i in range(6))
    script = tmp_path / "run.sh"
    script.write_text('if [[ $# -gt 0 ]]; then\n  case "$1" in\n    start|stop) SUB="$1"; shift ;;\n  esac\nfi\n'
                      f'while [[ $# -gt 0 ]]; do\n  case "$1" in\n{arms}    -f|--follow) F=1; shift ;;\n    *) shift ;;\n  esac\ndone\n'
                      'python3 -m maxtext.train base.yml steps=${O1:-10}\n')
    probe = ("from pathlib import Path\nfrom flaglint.render import evaluate\n"
             f"print(sorted((name, values) for name, values in evaluate(Path({str(script)!r})).inputs.items() if name.startswith('$')))\n")
    found = {subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}).stdout
             for seed in (1, 2, 3, 4)}
    assert len(found) == 1, found


@pytest.mark.parametrize("options,reads_last,most", [(8, False, 8 + 8), (4, True, 4 * 4 * 4)])
def test_options_handed_to_a_function_through_an_array_do_not_multiply_the_paths(tmp_path, options, reads_last, most):
    # Each option's value is joined over the loop's arms; handed on through the array and the
    # function's arguments undecided, the paths are the ways out of the loop, not one per
    # combination of the options (forked at the array: 154 paths at 8 options; with the last
    # argument read, 4 options did not end in minutes).
    script = tmp_path / "gen.sh"
    script.write_text(options_launcher(options, reads_last))
    evaluated = evaluate(script)
    assert evaluated.paths_explored <= most


LOOP_OVER_ARGUMENTS = """MAXTEXT_MODEL=""
for arg in "$@"; do
  case $arg in
    --model=*) MAXTEXT_MODEL="${arg#*=}" ;;
    --steps=*) STEPS="${arg#*=}" ;;
  esac
done
[[ -z ${MAXTEXT_MODEL} ]] && { echo "need --model"; exit 1; }
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml model_name=${MAXTEXT_MODEL} stepz=${STEPS:-10}
"""


def test_a_loop_over_the_arguments_reaches_the_launch_that_needs_an_option():
    # `for arg in "$@"` hands each argument to `arg`: an argument is compared with the loop's
    # patterns, so `$1=--model=<any value>` reaches the launch (it was read as no argument: no findings).
    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "run.sh"
        script.write_text(LOOP_OVER_ARGUMENTS)
        (finding,) = [f for f in check_script(script, Checker()).result.findings if f.severity == "error"]
        assert (finding.rule, finding.location.line) == ("FL004", 9)
        assert finding.witness["env"] == {"$#": "1", "$1": "--model=<any value>", "STEPS": None}
        # and the launch is what bash runs with such an argument
        launched = render(script, {}, args=["--model=llama2-7b"]).launched
        assert [w.text for w in launched[0].words][1:] == _bash_launch(Path(d), script, ["--model=llama2-7b"])


def _bash_launch(directory: Path, script: Path, args: list[str]) -> list[str]:
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", f"python3() {{ printf '%s\\0' \"$@\"; }}; source {script}",
                          "bash", *args], cwd=directory, capture_output=True, timeout=20)
    return out.stdout.decode().split("\0")[:-1]

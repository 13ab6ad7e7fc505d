"""An options loop (`while [[ $# -gt 0 ]]; do case "$1" in --x) X="$2"; shift 2 ;; … esac; done`)
where the script's arguments are not given: each arm is an option a run gives or not, apart from
the others, so a launcher of many options is judged without FL011 and at a cost that follows its
options, not the sequences of arguments; a finding's witness is the arguments of a run that gives
its options, and that run takes the path the finding is on. Where the arguments are given, or an
arm does what options apart cannot (leave the loop, read every argument), the loop runs as written."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from script_shapes import options_loop_launcher, subcommand_launcher
from test_bash_property import BASH_OWN
from test_bash_symbolic import exported_as, taken_by
from union_counts import cubes_unioned

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate, render
from flaglint.render.bash.explorer import run_inputs
from flaglint.render.bash.state import input_label, is_option, option_arguments
from flaglint.render.bash.types import OTHER

PIN = "bbd0f6f10"
DPO_AND_PACKING = {"MXXYHDE", "MXG84NB"}  # MaxText refuses use_dpo with packing


def _arguments(env: dict) -> list:
    return [env[f"${i}"] for i in range(1, int(env.get("$#", "0")) + 1)]


@pytest.mark.parametrize("options", [2, 16])
def test_options_given_together_are_found_with_the_arguments_of_a_run_that_gives_them(tmp_path, options):
    script = tmp_path / "launch.sh"
    script.write_text(options_loop_launcher(options))
    findings = check_script(script, Checker(PIN)).result.findings
    assert "FL011" not in {f.rule for f in findings}
    conflicts = [f for f in findings if f.rule in DPO_AND_PACKING]
    assert {f.rule for f in conflicts} == DPO_AND_PACKING
    for finding in conflicts:
        arguments = _arguments(finding.witness["env"])
        assert "--dpo" in arguments and ("--packing=true" in arguments or "--packing" in arguments and "stop" not in arguments)
        # the run with those arguments takes the path: both flags on the launch
        words = [w.text for launch in render(script, {}, None, arguments).launched for w in launch.words]
        assert "use_dpo=true" in words and "packing=true" in words


@pytest.mark.parametrize("options", [4, 32])
def test_an_options_loop_costs_a_path_per_outcome_not_per_sequence_of_arguments(tmp_path, options):
    # the runs that launch, the one `stop` ends, and those help and an unknown option end
    script = tmp_path / "launch.sh"
    script.write_text(options_loop_launcher(options))
    assert evaluate(script).paths_explored <= 6


def _launched_words(rendering) -> list:
    """The words of every launch of a run and of the scripts it runs."""
    return [w.text for launch in rendering.launched for w in launch.words] + [
        word for handoff in rendering.handoffs for word in _launched_words(handoff)]


@pytest.mark.parametrize("options", [2, 4])
def test_a_subcommand_before_the_options_loop_leaves_the_loop_its_options(tmp_path, options):
    # google/tunix's submit_gsm8k.sh: `start` shifted away or `-*) COMMAND=start` kept, then the
    # options loop, then the options handed to the script's own launching run through its
    # environment; the loop is still taken apart (a path per outcome), and a witness's arguments
    # put the subcommand before the options, as a run gives them
    script = tmp_path / "submit.sh"
    script.write_text(subcommand_launcher(options))
    assert evaluate(script).paths_explored <= 40
    # the launching run's environment as only `start` gives it: the conflict is the options'
    findings = check_script(script, Checker(PIN), fixed={"RUN_DPO": "false", "RUN_PACKING": "false"}).result.findings
    assert "FL011" not in {f.rule for f in findings}
    conflicts = [f for f in findings if f.rule in DPO_AND_PACKING]
    assert {f.rule for f in conflicts} == DPO_AND_PACKING
    runs = {tuple(_arguments(f.witness["env"])) for f in conflicts}
    assert all(run[:4] == ("start", "--dpo", "--packing", "true") for run in runs), runs
    for finding in conflicts:
        env = {name: value for name, value in finding.witness["env"].items() if not name.startswith("$")}
        words = _launched_words(render(script, {**env, "RUN_DPO": "false", "RUN_PACKING": "false"}, None,
                                       _arguments(finding.witness["env"])))
        assert "use_dpo=true" in words and "packing=true" in words
    # the kept first word is read again by the loop: the options alone are the run's arguments
    given = ["--dpo", "--packing=true", *(f"--o{i}=x" for i in range(options))]
    assert "use_dpo=true" in _launched_words(render(script, {}, None, given))


def _cubes_settled(script: Path, monkeypatch) -> tuple[int, set]:
    """The products of value sets a lint of the script unions, and its findings' rules."""
    count, result = cubes_unioned(monkeypatch, lambda: check_script(script, Checker(PIN)).result)
    return count, {f.rule for f in result.findings}


def test_a_subcommand_launcher_costs_its_options_not_their_combinations(tmp_path, monkeypatch):
    # google/tunix's submit_gsm8k.sh: each option's value, else the environment's, checked apart
    # (one factor of the path past the check); the paths that gave no options join the others at
    # each check. Joined whole, the union multiplied the factors out: 401, 2,631 and 22,141 products
    # at 2, 4 and 6 options (3**n), and a lint of 8 options ran for minutes
    found = {}
    for options in (8, 16):
        script = tmp_path / f"submit{options}.sh"
        script.write_text(subcommand_launcher(options))
        found[options] = _cubes_settled(script, monkeypatch)
    assert all(DPO_AND_PACKING <= rules for _, rules in found.values())
    assert found[16][0] <= 2 * found[8][0]


def test_options_checked_then_handed_to_a_script_cost_a_path_per_outcome(tmp_path):
    # google/tunix's submit_gsm8k.sh: every option's value, else the environment's, must not be
    # empty; then `K="${K}" … bash k8s_launcher.sh` hands them all on. The values the path has not
    # decided stay joined into the script, which decides them where it reads them: a run per
    # combination of the options' values was 267 paths at 8 options (28 s), 46 at 3
    options = 3
    arms = "\n".join(f'    --o{i}) O{i}="$2"; shift 2 ;;\n    --o{i}=*) O{i}="${{1#*=}}"; shift ;;' for i in range(options))
    checks = "\n".join(f'O{i}="${{O{i}:-${{DEFAULT_O{i}:-}}}}"\nif [[ -z "$O{i}" ]]; then echo "--o{i} is empty" >&2; exit 1; fi'
                       for i in range(options))
    handed = " ".join(f'RUN_O{i}="${{O{i}}}"' for i in range(options))
    (tmp_path / "submit.sh").write_text(
        "#!/bin/bash\nDPO=false\nPACKING=false\nwhile [[ $# -gt 0 ]]; do\n  case \"$1\" in\n    --dpo) DPO=true; shift ;;\n"
        f'    --packing) PACKING=true; shift ;;\n{arms}\n    *) echo "unknown option $1" >&2; exit 1 ;;\n  esac\ndone\n{checks}\n'
        f'RUN_DPO="${{DPO}}" RUN_PACKING="${{PACKING}}" {handed} bash "${{BASH_SOURCE[0]%/*}}/train.sh"\n')
    (tmp_path / "train.sh").write_text(
        '#!/bin/bash\nFLAGS="steps=10 packing=false run_name=${RUN_O0}"\nif [[ "$RUN_DPO" == "true" ]]; then FLAGS="$FLAGS use_dpo=true"; fi\n'
        'if [[ "$RUN_PACKING" == "true" ]]; then FLAGS="$FLAGS packing=true"; fi\n'
        "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml $FLAGS\n")
    assert evaluate(tmp_path / "submit.sh").paths_explored <= 4 * options
    findings = check_script(tmp_path / "submit.sh", Checker(PIN)).result.findings
    conflicts = [f for f in findings if f.rule in DPO_AND_PACKING]
    assert {f.rule for f in conflicts} == DPO_AND_PACKING
    for finding in conflicts:
        arguments = _arguments(finding.witness["env"])
        assert "--dpo" in arguments and "--packing" in arguments
        words = _launched_words(render(tmp_path / "submit.sh", {}, None, arguments))
        assert "use_dpo=true" in words and "packing=true" in words


def test_the_words_read_before_an_options_loop_come_before_its_options():
    subcommand = {"$#": "3", "$1": "start", "$1@12/1": "--dpo", "$1@14/2": "--packing", "$2@14/2": "true", "HOME": "/h"}
    assert run_inputs(subcommand) == ({"HOME": "/h"}, ["start", "--dpo", "--packing", "true"])
    assert run_inputs({"$1@12/1": "--dpo", "$1@14/2": None, "$2@14/2": None}) == ({}, ["--dpo"])


def test_given_arguments_run_the_loop_as_written(tmp_path):
    script = tmp_path / "launch.sh"
    script.write_text(options_loop_launcher(2))

    def words(*arguments):
        return [w.text for launch in render(script, {}, None, list(arguments)).launched for w in launch.words]

    assert "packing=true" in words("--packing", "true", "--o1=x")
    assert [launch.assigned["O1"].text for launch in render(script, {}, None, ["--o1=x"]).launched] == ["x"]
    assert "use_dpo=true" not in words("--packing", "--dpo")  # --dpo is the value of --packing here
    assert words("--packing", "true", "stop") == [] and words("--bogus") == []


def test_a_loop_that_leaves_early_is_walked_as_written(tmp_path):
    # `--) shift; break` leaves the rest of the arguments to the script: the arms are not options apart
    script = tmp_path / "launch.sh"
    text = options_loop_launcher(1).replace("    -h|--help)", "    --) shift; break ;;\n    -h|--help)")
    script.write_text(text + 'echo "rest: $*"\n')
    evaluated = evaluate(script)
    assert not any(is_option(name) for name in evaluated.inputs)
    assert any(outcome.rendering.launched for outcome in evaluated.outcomes)


def test_the_options_a_run_gives_are_its_arguments_in_the_order_of_the_arms():
    options = {"$1@12/2": "--image", "$2@12/2": None, "$1@9/1": "--dry-run", "$1@15/1": None, "$2@15/1": "x"}
    assert option_arguments(options) == ["--dry-run", "--image", OTHER]
    # arms that set one variable are one option: only the words of theirs that take a value take one
    grouped = {"$1@20/2[--command|-c]": "start", "$2@20/2[--command|-c]": "x", "$1@30/2[--queue]": "--queue", "$2@30/2[--queue]": "q"}
    assert option_arguments(grouped) == ["start", "--queue", "q"]
    assert input_label("$1@12/2") == "the argument matched at line 12"
    assert input_label("$2@12/2") == "the value after the argument matched at line 12"
    assert input_label("$1@20/2[--command|-c]") == "the argument matched at line 20"
    assert input_label("STEPS") == "STEPS"


def test_arms_that_set_one_variable_are_one_option(tmp_path):
    # `--packing X`, `--packing=X`: one input decides PACKING, and a witness gives one of them
    script = tmp_path / "launch.sh"
    script.write_text(options_loop_launcher(2))
    inputs = evaluate(script).inputs
    assert len([name for name in inputs if name.startswith("$1@")]) == 7  # command, dpo, packing, o0, o1, help, unknown
    line = next(i for i, text in enumerate(script.read_text().splitlines(), 1) if "--packing)" in text)
    assert inputs[f"$1@{line}/2[--packing]"] == [None, "--packing", f"--packing={OTHER}"]


ARMS = {
    "switch": ['--s{i}) S{i}=on; shift ;;'],
    "value": ['--v{i}) V{i}="$2"; shift 2 ;;'],
    "both": ['--v{i}) V{i}="$2"; shift 2 ;;', '--v{i}=*) V{i}="${{1#*=}}"; shift ;;'],
    "word": ['go{i}|run{i}) W="$1"; shift ;;'],
    "two": ['--t{i}) T{i}="$2"; U{i}=set; shift 2 ;;'],
}
LAST = ["*) shift ;;", '*) echo "bad $1"; exit 3 ;;', "-h|--help) exit 0 ;;\n    *) shift ;;"]


@st.composite
def options_scripts(draw) -> str:
    """An options loop of one to four options of the shapes launchers write (a switch, an option
    with a value as two words or one, a subcommand word, an arm that sets two variables), its last
    arm skipping, refusing or helping; then tests of what the options set, and exports."""
    kinds = draw(st.lists(st.sampled_from(sorted(ARMS)), min_size=1, max_size=4))
    arms = [arm.format(i=i) for i, kind in enumerate(kinds) for arm in ARMS[kind]]
    names = sorted({name for i, kind in enumerate(kinds) for name in _set_by(kind, i)})
    tests = [f'if [[ "${{{name}:-}}" == "x" || "${{{name}:-}}" == on ]]; then export HIT_{name}=1; fi' for name in names]
    return "\n".join(["W=none", "while [[ $# -gt 0 ]]; do", '  case "$1" in', *(f"    {arm}" for arm in arms),
                      f"    {draw(st.sampled_from(LAST))}", "  esac", "done", *tests, f"export {' '.join(names)}", "export DONE=1", ""])


def _set_by(kind: str, i: int) -> list[str]:
    return {"switch": [f"S{i}"], "value": [f"V{i}"], "both": [f"V{i}"], "word": ["W"], "two": [f"T{i}", f"U{i}"]}[kind]


def bash_run(directory, arguments: list, env: dict | None = None) -> tuple[int, dict]:
    """Bash's status sourcing gen.sh in `directory` with these arguments and only `env` (a value of None
    leaves the name unset), and the variables it exported."""
    given = [f"{name}={value}" for name, value in (env or {}).items() if value is not None]
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", *given, "bash", "-c", 'source ./gen.sh "$@"; env -0', "_", *arguments],
                         cwd=directory, capture_output=True, timeout=20)
    pairs = [item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item]
    return out.returncode, {k: v for k, v in pairs if k not in BASH_OWN}


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=options_scripts(), data=st.data())
def test_options_taken_apart_agree_with_bash_run_with_their_arguments(script, data):
    # Any choice of the options' values the evaluation explored is one path, whose outcome is what
    # bash does with the arguments of a run that gives those options (state.option_arguments).
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "gen.sh"
        path.write_text(script)
        evaluated = evaluate(path)
        options = {name: data.draw(st.sampled_from(values), label=name)
                   for name, values in sorted(evaluated.inputs.items()) if is_option(name)}
        assert options, script
        ((_, outcome),) = taken_by([(p, o) for o in evaluated.outcomes for p in o.paths], options)
        status, expected = bash_run(Path(d), option_arguments(options))
        assert outcome.rendering.status == status, (script, options)
        if "DONE" in expected:  # bash got to the end
            assert exported_as(outcome, options) == expected, (script, options)

"""Switches that default from the environment and that an options loop's arms set
(`DRY_RUN="${DRY_RUN:-false}"`, `--dry-run) DRY_RUN=true`), then read in a function called for
each instance: the runs that give an option and those that do not join into one path, and what
bash exports stays exact."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from script_shapes import option_switches_launcher
from test_bash_symbolic import exported_as, resolved_in, taken_by
from test_options_loops import bash_run

from flaglint.render import evaluate
from flaglint.render.bash.state import is_argument, option_arguments
from flaglint.render.bash.types import OTHER


@pytest.mark.parametrize("switches", [2, 4, 8, 12])
def test_switches_an_options_loop_sets_join_into_one_path(tmp_path, switches):
    # Each option given or not, each switch read per instance: 2**(switches-1) paths before the
    # runs that assign a switch joined those that still hold the environment's value.
    script = tmp_path / "launch.sh"
    script.write_text(option_switches_launcher(switches))
    evaluated = evaluate(script)
    assert evaluated.paths_explored == 1
    (outcome,) = evaluated.outcomes
    launched = outcome.rendering.launched
    assert [f"run_name=roll-{i}" in "".join(map(str, launch.words)) for i, launch in enumerate(launched)] == [True] * 3


def test_a_switch_an_option_sets_is_exported_where_the_environment_set_it(tmp_path):
    # bash keeps the export of a variable the environment gave when the script assigns it.
    script = tmp_path / "launch.sh"
    script.write_text(option_switches_launcher(3))
    evaluated = evaluate(script)
    (outcome,) = evaluated.outcomes
    options = {name: None for name in evaluated.inputs if is_argument(name)}
    sw1 = next(name for name, values in evaluated.inputs.items() if "--sw1" in values)
    assert exported_as(outcome, {**options, sw1: "--sw1", "SW1": OTHER})["SW1"] == "true"
    assert "SW1" not in exported_as(outcome, {**options, sw1: "--sw1", "SW1": None})
    assert exported_as(outcome, {**options, "SW1": OTHER})["SW1"] == OTHER
    assert exported_as(outcome, {**options, "SW2": None})["SW2"] == "false"  # `export SW2` in the script


DEFAULTS = ['S{i}="${{S{i}:-off}}"', "", "unset S{i}", "S{i}=off", "export S{i}"]
AFTER = ['if [[ "${{S{i}:-}}" == on ]]; then export HIT{i}=1; fi', "export S{i}", "", "unset S{i}", "S{i}=late",
         'S{i}="${{S{i}}}x"']


@st.composite
def switch_scripts(draw) -> str:
    """One to three switches, each defaulted from the environment, unset, set or exported before an
    options loop whose arm sets it; after the loop, read, exported, unset or assigned again."""
    count = draw(st.integers(1, 3))
    before = [draw(st.sampled_from(DEFAULTS)).format(i=i) for i in range(count)]
    arms = [f"    --s{i}) S{i}=on; shift ;;" for i in range(count)]
    after = [draw(st.sampled_from(AFTER)).format(i=i) for i in range(count) for _ in range(2)]
    return "\n".join([*before, "while [[ $# -gt 0 ]]; do", '  case "$1" in', *arms, "    *) shift ;;", "  esac", "done",
                      *after, "export DONE=1", ""])


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=switch_scripts(), data=st.data())
def test_joined_switches_export_what_bash_exports(script, data):
    # Any choice of the options and the environment's values the evaluation explored is one path,
    # whose exports are bash's with that environment and the arguments of a run giving those options.
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "gen.sh"
        path.write_text(script)
        evaluated = evaluate(path)
        chosen = {name: data.draw(st.sampled_from(values), label=name) for name, values in sorted(evaluated.inputs.items())}
        env = {name: value for name, value in chosen.items() if not is_argument(name)}
        options = {name: value for name, value in chosen.items() if is_argument(name)}
        ((_, outcome),) = taken_by([(p, o) for o in evaluated.outcomes for p in o.paths], chosen)
        _, expected = bash_run(Path(d), option_arguments(options), env)
        assert exported_as(outcome, chosen) == expected, (script, chosen)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("environment", [None, OTHER])
@pytest.mark.parametrize("given_option", [False, True])
def test_a_script_run_after_the_join_sees_the_switch_where_bash_exports_it(tmp_path, environment, given_option):
    # The switch joined from the runs that give the option and those that do not is in the
    # environment of a script the launcher runs exactly where the caller's environment set it.
    (tmp_path / "child.sh").write_text('#!/bin/bash\npython3 -m maxtext.trainers.pre_train.train base.yml run_name="r${DRY_RUN-unset}"\n')
    (tmp_path / "gen.sh").write_text('DRY_RUN="${DRY_RUN:-false}"\nwhile [[ $# -gt 0 ]]; do\n  case "$1" in\n'
                                     '    --dry-run) DRY_RUN=true; shift ;;\n    *) shift ;;\n  esac\ndone\n'
                                     'if [[ "$DRY_RUN" == true ]]; then echo dry; fi\nbash ./child.sh\n')
    evaluated = evaluate(tmp_path / "gen.sh")
    option = next(name for name, values in evaluated.inputs.items() if "--dry-run" in values)
    chosen = {name: None for name in evaluated.inputs} | {"DRY_RUN": environment, option: "--dry-run" if given_option else None}
    ((_, outcome),) = taken_by([(p, o) for o in evaluated.outcomes for p in o.paths], chosen)
    (launch,) = outcome.rendering.launched
    word = next(resolved_in(w, chosen).text for w in launch.words if "run_name" in str(w))
    env = {"DRY_RUN": environment} if environment is not None else {}
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "python3").write_text('#!/bin/bash\nfor w in "$@"; do case "$w" in run_name=*) echo "$w" ;; esac; done\n')
    (stub / "python3").chmod(0o755)
    given = [f"{k}={v}" for k, v in env.items()]
    out = subprocess.run(["env", "-i", f"PATH={stub}:/usr/bin:/bin", *given, "bash", "./gen.sh", *(["--dry-run"] if given_option else [])],
                         cwd=tmp_path, capture_output=True, text=True, timeout=20)
    assert word == out.stdout.splitlines()[-1]

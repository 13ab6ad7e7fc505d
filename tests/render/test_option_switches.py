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
from test_bash_property import BASH_OWN
from test_bash_symbolic import exported_as, taken_by

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


def _bash_exports(directory: Path, env: dict, arguments: list) -> dict:
    given = [f"{name}={value}" for name, value in env.items() if value is not None]
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", *given, "bash", "-c", 'source ./gen.sh "$@"; env -0', "_", *arguments],
                         cwd=directory, capture_output=True, timeout=20)
    pairs = [item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item]
    return {k: v for k, v in pairs if k not in BASH_OWN}


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
        expected = _bash_exports(Path(d), env, option_arguments(options))
        assert exported_as(outcome, chosen) == expected, (script, chosen)

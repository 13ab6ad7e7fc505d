"""A launcher that runs a script after its switches joined (google/tunix's experimental
launch_raiden.sh: `restart) …; "$0" start --run-id=… "${EXTRA_ARGS[@]}"`): the script run gets a
switch exported only where the caller's environment set it as that, not a run for each switch set
or unset; it sees and launches what bash gives it, and the launcher's exports stay bash's."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from script_shapes import restart_launcher
from test_bash_property import BASH_OWN
from test_bash_symbolic import exported_as, resolved_in, taken_by

from flaglint.render import evaluate
from flaglint.render.bash.machine import Interp
from flaglint.render.bash.state import is_argument, option_arguments


def _children(monkeypatch, script: Path) -> tuple[int, int]:
    """How many times the evaluation starts a script run as its own process, and its paths."""
    started = []
    real = Interp.child

    def counted(interp, ins, state, *rest):
        depth = len(state.stack)
        real(interp, ins, state, *rest)
        started.extend([1] * (len(state.stack) > depth))

    monkeypatch.setattr(Interp, "child", counted)
    evaluated = evaluate(script)
    monkeypatch.setattr(Interp, "child", real)
    return len(started), evaluated.paths_explored


def test_the_restarted_launcher_is_run_as_often_whatever_the_switches(tmp_path, monkeypatch):
    # Each switch read before the restart left its variable exported where the environment set it;
    # the run of "$0" forked on each of them set or not: 27 * 2**N children, 7, 10, 16, 28 … paths.
    found = {}
    for switches in (1, 2, 4, 8):
        script = tmp_path / f"launch_{switches}.sh"
        script.write_text(restart_launcher(switches))
        found[switches] = _children(monkeypatch, script)
    assert found[8] == found[4] == found[2] == found[1]
    children, paths = found[1]
    assert children <= 27 and paths <= 7


def test_the_restarted_launch_keeps_its_options_values_and_the_switches_parts(tmp_path):
    script = tmp_path / "launch.sh"
    script.write_text(restart_launcher(3))
    submit = next(number for number, line in enumerate(restart_launcher(3).splitlines(), 1) if "xpk workload create" in line)
    evaluated = evaluate(script)
    options = {name: None for name in evaluated.inputs if is_argument(name)}
    arms = {value: name for name, values in evaluated.inputs.items() if is_argument(name) for value in values if value}
    run = {**options, arms["restart"]: "restart", arms["--sw2"]: "--sw2", arms["--opt0"]: "--opt0=flaglint-other",
           "DRY_RUN": None, "SW1": "true", "SW2": None}
    ((_, outcome),) = taken_by([(p, o) for o in evaluated.outcomes for p in o.paths], run)
    (launch,) = outcome.rendering.launched
    assert launch.line == submit  # start's, in the run of "$0"
    # it sees --opt0's value, and SW1 from the environment; SW2, which --sw2 set in the launcher
    # alone (unexported: the environment did not set it), is its default there
    assert resolved_in(launch.words[-1], run).text.endswith("run_name=flaglint-other stepz=10 log_period=1")


_BEFORE = ['S{i}="${{S{i}:-off}}"', "S{i}=off", "export S{i}"]
_READ = ['if [[ "${{S{i}:-}}" == on ]]; then echo on; fi', ""]
_CHILD = ["", 'S{i}="${{S{i}:-c}}"', "S{i}=c", "export S{i}=x", "unset S{i}", 'if [[ "${{S{i}}}" == on ]]; then echo on; fi',
          'if [[ "${{S{i}}}" == on ]]; then python3 -m maxtext.trainers.pre_train.train base.yml run_name=on{i}; fi']
_AFTER = ["", "export S{i}", 'if [[ "${{S{i}-}}" == off ]]; then export OFF{i}=1; fi']


@st.composite
def restarted_scripts(draw) -> tuple[str, str]:
    """A launcher whose switches default from the environment and are set by an options loop, read
    (or not) so that the paths join, then a script run with `bash`, which assigns, exports, unsets
    or reads them and launches MaxText with their values, and runs one more script that does too;
    after it the launcher exports or reads them."""
    count = draw(st.integers(1, 3))
    values = "_".join(f"${{S{i}-unset}}" for i in range(count))
    launch = 'python3 -m maxtext.trainers.pre_train.train base.yml run_name="PREFIX' + values + '"'
    before = [draw(st.sampled_from(_BEFORE)) for _ in range(count)]
    parent = [line.format(i=i) for i, line in enumerate(before)]
    parent += ["while [[ $# -gt 0 ]]; do", '  case "$1" in', *(f"    --s{i}) S{i}=on; shift ;;" for i in range(count)),
               "    *) shift ;;", "  esac", "done"]
    # a switch that holds the environment's value may be read before the run (launch_raiden.sh's
    # are) or not: unread, the script run gets it exported where the environment set it all the same
    parent += [draw(st.sampled_from(_READ)).format(i=i) for i in range(count)]
    parent += ["bash ./child.sh", *(draw(st.sampled_from(_AFTER)).format(i=i) for i in range(count)), "export DONE=1"]
    child = [draw(st.sampled_from(_CHILD)).format(i=i) for i in range(count)]
    child += [launch.replace("PREFIX", "c"), "bash ./grand.sh", f'export SEEN="{values}"']
    return "\n".join(parent) + "\n", "\n".join([*child, launch.replace("PREFIX", "g")]) + "\n"


def _bash_run(directory: Path, env: dict, arguments: list) -> tuple[list, dict]:
    """The run_name of each MaxText launch a bash run makes, in order, and the launcher's exports."""
    stub = directory / "bin"
    stub.mkdir(exist_ok=True)
    log = directory / "launched"
    (stub / "python3").write_text(f'#!/bin/bash\nfor w in "$@"; do case "$w" in run_name=*) echo "$w" >> {log} ;; esac; done\n')
    (stub / "python3").chmod(0o755)
    given = [f"{name}={value}" for name, value in env.items() if value is not None]
    subprocess.run(["env", "-i", f"PATH={stub}:/usr/bin:/bin", *given, "bash", "-c",
                    'source ./gen.sh "$@" >/dev/null; env -0 > exports', "_", *arguments],
                   cwd=directory, capture_output=True, timeout=20)
    launched = log.read_text().splitlines() if log.exists() else []
    pairs = [item.split("=", 1) for item in (directory / "exports").read_text().split("\0") if "=" in item]
    return launched, {k: v for k, v in pairs if k not in BASH_OWN and k != "PATH"}


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts=restarted_scripts(), data=st.data())
def test_a_script_run_after_the_switches_joined_sees_and_launches_what_bash_does(scripts, data):
    # Any choice of the options and the environment's values the evaluation explored is one path:
    # the MaxText launches of the scripts it runs are bash's, and so are the launcher's exports.
    parent, child = scripts
    with tempfile.TemporaryDirectory() as d:
        directory = Path(d)
        (directory / "gen.sh").write_text(parent)
        (directory / "child.sh").write_text(child)
        (directory / "grand.sh").write_text(child.replace("bash ./grand.sh\n", ""))
        evaluated = evaluate(directory / "gen.sh")
        chosen = {name: data.draw(st.sampled_from(values), label=name) for name, values in sorted(evaluated.inputs.items())}
        env = {name: value for name, value in chosen.items() if not is_argument(name)}
        options = {name: value for name, value in chosen.items() if is_argument(name)}
        ((_, outcome),) = taken_by([(p, o) for o in evaluated.outcomes for p in o.paths], chosen)
        launched, exports = _bash_run(directory, env, option_arguments(options))
        names = [next(resolved_in(w, chosen).text for w in launch.words if "run_name" in str(w))
                 for launch in outcome.rendering.launched]
        assert names == launched, (parent, child, chosen)
        assert exported_as(outcome, chosen) == exports, (parent, child, chosen)


def test_a_variable_defaulted_from_the_environment_reaches_a_script_run_before_it_is_read(tmp_path):
    """`S1="${S1:-off}"; bash ./child.sh`: bash exports S1 to the child where the environment set
    it (the assignment keeps its export), so the child's launch on S1=on is reached."""
    (tmp_path / "child.sh").write_text('if [ "$S1" = on ]; then\n  python3 -m maxtext.train base.yml run_name=x stepz=1\nfi\n')
    (tmp_path / "gen.sh").write_text('S1="${S1:-off}"\nbash ./child.sh\nif [ "$S1" = on ]; then echo on; fi\n')
    evaluated = evaluate(tmp_path / "gen.sh")
    launched = {p.env.get("S1"): [launch.line for launch in o.rendering.launched] for o in evaluated.outcomes for p in o.paths}
    assert launched["on"] == [2]
    assert launched[None] == []
    launches, _ = _bash_run(tmp_path, {"S1": "on"}, [])
    assert launches == ["run_name=x"]

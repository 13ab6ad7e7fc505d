"""Launches behind wrappers and exec, against bash running the script with a stand-in `python3`
that writes down its arguments and environment instead of launching anything: the evaluator
keeps the same launches, in the same order, with the same words and M_ variables; what follows
an exec never runs. The wrappers are the system's own (nice, stdbuf, timeout, env, taskset,
nohup), so their option parsers are the judge of the table flaglint reads them with. bash only
runs the scripts generated here, in a temporary directory, with an empty environment except PATH."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from flaglint.render import render

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

# Each wrapper with forms of its options as people write them; only those the system has are drawn.
WRAPPERS = {
    "nice": ["nice", "nice -n 5", "nice -n5", "nice -5", "nice --adjustment=3", "nice -- "],
    "stdbuf": ["stdbuf -oL", "stdbuf -o L -e 0", "stdbuf --output=L", "stdbuf -i0 --error L"],
    "timeout": ["timeout 30", "timeout -k 5 30", "timeout --signal=TERM 1m", "timeout --preserve-status -s INT 30s"],
    "env": ["env", "env M_B=2", "env -u M_A", 'env -i "PATH=$PATH" M_C=3', "env --unset=M_A M_D=4", "env -- M_E=5",
            "/usr/bin/env M_F=6"],
    "taskset": ["taskset -c 0", "taskset 0x1", "taskset --cpu-list 0"],
    "nohup": ["nohup"],
}
AVAILABLE = [form for name, forms in WRAPPERS.items() if shutil.which(name) for form in forms]
LAUNCH = "python3 -m maxtext.trainers.pre_train.train base.yml run_name=r"

chains = st.lists(st.sampled_from(AVAILABLE), max_size=3).map(" ".join)


@st.composite
def statements(draw) -> str:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return f"export M_{draw(st.sampled_from('AB'))}={draw(st.integers(0, 9))}"
    if kind == 1:
        return f"unset M_{draw(st.sampled_from('AB'))}"
    prefix = draw(st.sampled_from(["", "M_A=8 ", "M_G=9 "]))
    words = " ".join(draw(st.lists(st.sampled_from(["steps=1", "'k=a b'", "log_period=$M_A", "-- x"]), max_size=2)))
    exec_ = "exec " if kind == 4 else ""
    return f"{prefix}{exec_}{draw(chains)} {LAUNCH} {words}".replace("  ", " ")


scripts = st.lists(statements(), min_size=1, max_size=5).map(lambda lines: "\n".join(lines) + "\n")

_MARK = "\x01"


def _stand_in(directory: Path) -> Path:
    """A `python3` that appends its arguments and environment to a log, and nothing else."""
    log = directory / "launches.log"
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text(f"#!/bin/bash\n{{ printf '{_MARK}launch\\0'; printf '%s\\0' \"$@\"; printf '{_MARK}env\\0'; env -0; }} >> '{log}'\n")
    fake.chmod(0o755)
    return log


def _bash_launches(directory: Path) -> list[tuple[list[str], dict[str, str]]]:
    log = _stand_in(directory)
    subprocess.run(["env", "-i", f"PATH={directory / 'bin'}:/usr/bin:/bin", "bash", "./gen.sh"], cwd=directory,
                   capture_output=True, timeout=30)
    launches: list[tuple[list[str], dict[str, str]]] = []
    section = None
    for item in log.read_bytes().decode().split("\0") if log.exists() else []:
        if item == f"{_MARK}launch":
            launches.append(([], {}))
            section = "args"
        elif item == f"{_MARK}env":
            section = "env"
        elif section == "args":
            launches[-1][0].append(item)
        elif "=" in item and item.startswith("M_"):
            name, value = item.split("=", 1)
            launches[-1][1][name] = value
    return launches


def _evaluated_launches(script: Path) -> list[tuple[list[str], dict[str, str]]]:
    rendering = render(script, {})
    return [([w.text for w in launch.words[1:]], {k: v.text for k, v in launch.env.items()}) for launch in rendering.launched]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=scripts)
@example(script=f"export M_A=1\nenv -u M_A nice -n 5 {LAUNCH} steps=1\nexec timeout -k 5 30 {LAUNCH}\n{LAUNCH} after=1\n")
@example(script=f'M_G=9 env -i "PATH=$PATH" M_C=3 stdbuf -oL {LAUNCH}\n')
def test_the_launches_are_those_bash_makes(script):
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "gen.sh").write_text(script)
        assert _evaluated_launches(Path(d) / "gen.sh") == _bash_launches(Path(d)), script

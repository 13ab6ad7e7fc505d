"""Counted loops over a replica count (`for ((i = 0; i < REPLICAS; i++))`, google/tunix's
k8s_launcher.sh): past the first pass their passes run summarised, the counter a value not known
here, so the work and the launches kept are the same at 16 replicas as at 256 (counts, never time),
the launch is judged, and what the loop leaves is what bash leaves (real bash, on the loops these
tests write and on generated ones)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from script_shapes import replica_loop_launcher

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate
from flaglint.render.bash.explorer import explore, render
from flaglint.render.recipes import LAUNCHES


def _launch_counts(script: Path) -> tuple[int, list[int]]:
    exploration = evaluate(script)
    return exploration.paths_explored, sorted(len(o.rendering.launched) for o in exploration.outcomes)


def test_a_replica_loop_is_judged_with_the_same_work_at_any_count(tmp_path):
    counts = {}
    # 10,000 passes one by one would be past the evaluator's step limit (machine.STEP_LIMIT): judged
    # all the same, the loop's work does not follow its count
    for replicas in (16, 256, 10_000):
        script = tmp_path / f"launcher_{replicas}.sh"
        script.write_text(replica_loop_launcher(replicas))
        lines = script.read_text().splitlines()
        findings = check_script(script, Checker("bbd0f6f10")).result.findings
        errors = {(f.rule, lines[f.location.line - 1][f.location.column - 1:].split("=")[0]) for f in findings if f.severity == "error"}
        assert errors == {("FL004", "stepz")}
        counts[replicas] = _launch_counts(script)
    assert counts[16] == counts[256] == counts[10_000]
    paths, launches = counts[256]
    # a replica count of 0, 1, 2 (a pass each) or the default; the default's launches: the first
    # pass's and the summarised passes', not one per replica
    assert paths <= 8 and max(launches) <= 2


BASH = shutil.which("bash")
needs_bash = pytest.mark.skipif(BASH is None, reason="needs bash")


def _bash(script: str, env: dict[str, str]) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as d:
        Path(d, "gen.sh").write_text(script)
        out = subprocess.run([BASH, "-c", 'trap "env -0" EXIT; source ./gen.sh'], cwd=d, capture_output=True, timeout=30,
                             env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env})
    pairs = (item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item)
    return {k: v for k, v in pairs if k.startswith(("X_", "N"))}


def _flaglint(script: str, env: dict[str, str]) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d, "gen.sh")
        path.write_text(script)
        exported = render(path, LAUNCHES, env).exported
    return {k: v.text for k, v in exported.items() if k.startswith(("X_", "N"))}


def _loop(body: str, functions: str = "") -> str:
    return functions + 'N="${N:-9}"\nfor ((i = 0; i < N; i++)); do\n' + body + "\ndone\nexport X_I=\"$i\"\n"


# The counter only written into strings; read where its own characters count (a test, a `case`,
# arithmetic, a parameter operator, a function's argument tested, a captured output); a value that
# grows each pass; a pass that leaves the loop; a variable named by it.
LOOPS = {
    "written": _loop('export X_LAST="r-$i"; target="${X_LAST}"'),
    "tested": _loop('if [[ $i == 3 ]]; then export X_HIT="$i"; fi'),
    "tested on one input's value": _loop('if [[ "${SW:-}" == on && $i -eq 3 ]]; then export X_HIT="$i"; fi'),
    "a case": _loop('x="r-$i"; case "$x" in r-5) export X_HIT=5 ;; esac'),
    "arithmetic": _loop("(( i % 4 == 1 )) && export X_ODD=$((i * 2))"),
    "an operator": _loop('x="r-$i"; export X_LEN="${#x}" X_CUT="${x#r-}"'),
    "an argument": _loop('f "r-$i"', 'f() { if [[ "$1" == r-6 ]]; then export X_HIT=6; fi; local t="$1"; export X_T="$t"; }\n'),
    "an output": _loop('x=$(h "$i"); [[ $x == a7 ]] && export X_HIT=7', 'h() { echo "a$1"; }\n'),
    "growing": _loop('export X_ACC="${X_ACC}$i,"'),
    "the one before": _loop('export X_PREV="$cur"; cur="$i"'),
    "an exit": _loop('[[ "${X_STOP:-}" == yes && $i -gt 5 ]] && exit 0; export X_SEEN="s$i"'),
    "a return": _loop("g", 'g() { [[ $i -eq 6 ]] && return 3; export X_G="g$i"; }\n'),
    "an indirect name": _loop('export X_A5=five; n="X_A$i"; [[ -n "${!n:-}" ]] && export X_FOUND="${!n}"'),
}


@needs_bash
@pytest.mark.parametrize("name", LOOPS)
@pytest.mark.parametrize("count", ["0", "1", "3", "4", "5", "9", "40"])
def test_what_a_counted_loop_leaves_is_bash_s(name, count):
    script = LOOPS[name]
    env = {"N": count, "X_STOP": "yes", "SW": "on"}
    assert _flaglint(script, env) == _bash(script, env)


_STATEMENTS = [
    'export X_W="w-$i"', 'x="p$i"', 'export X_X="$x"', 'if [[ "${SW:-}" == on ]]; then export X_ON="$i"; else export X_OFF=1; fi',
    'if [[ $i -eq 4 ]]; then export X_FOUR=1; fi', '(( i > 6 )) && export X_BIG=1', 'case "$x" in p2) export X_TWO=1 ;; esac',
    'export X_ACC="${X_ACC:-}$i"', 'f "$i"', 'y=$(h "$x"); export X_Y="$y"', 'export X_PREV="${cur:-}"; cur="$i"',
    'export X_LEN="${#x}"', 'export X_SUM=$(( ${X_SUM:-0} + 1 ))', 'export X_K="k"',
    'if [[ "${SW:-}" == on && $i -eq 5 ]]; then export X_AND=1; fi',
]
_FUNCTIONS = 'f() { local t="t$1"; export X_F="$t"; }\nh() { echo "h$1"; }\n'


@needs_bash
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.lists(st.sampled_from(_STATEMENTS), min_size=1, max_size=5),
       count=st.integers(0, 12), start=st.integers(0, 2), switch=st.sampled_from(["on", "off"]))
def test_a_counted_loop_over_an_unknown_bound_agrees_with_bash(body, count, start, switch):
    script = _FUNCTIONS + f'N="${{N:-7}}"\nfor ((i = {start}; i < N; i++)); do\n' + "\n".join(body) + '\ndone\nexport X_I="$i"\n'
    env = {"N": str(count), "SW": switch}
    assert _flaglint(script, env) == _bash(script, env)


@needs_bash
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.lists(st.sampled_from(_STATEMENTS), min_size=1, max_size=4))
def test_each_path_through_a_counted_loop_is_what_bash_does_on_its_witness(body):
    # the bound and the switch are inputs: the paths fork on them inside the summarised passes too,
    # and a path that goes back to run the passes one by one keeps the values it took
    script = (_FUNCTIONS + 'N="${N:-7}"\nif [[ "$N" -gt 5 ]]; then export X_MANY=1; fi\nfor ((i = 0; i < N; i++)); do\n'
              + "\n".join(body) + '\ndone\nexport X_I="$i"\n')
    with tempfile.TemporaryDirectory() as d:
        path = Path(d, "gen.sh")
        path.write_text(script)
        outcomes = explore(path, LAUNCHES).outcomes
    for outcome in outcomes:
        env = {k: v for k, v in outcome.env.items() if v is not None}
        got = {k: v.text for k, v in outcome.rendering.exported.items() if k.startswith(("X_", "N"))}
        assert got == _bash(script, env)

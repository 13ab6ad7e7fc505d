"""Scripts that grow one variable by conditional appends: evaluate() keeps them one path whatever
the number of switches, and its symbolic value is what bash exports on every assignment.

bash only ever runs scripts this test generated itself, in a temporary directory, with an empty
environment except PATH.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flaglint.render import evaluate
from flaglint.render.bash.expansion import input_value
from flaglint.render.bash.types import OTHER, resolve

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _append(i: int, value: str) -> str:
    return f'export F="${{F}} k{i}={value}"'


def appends(count: int, shape: str) -> str:
    """`count` appends to F, each on its own switch, with a value that is itself an input."""
    lines = ['export F="${F:-} base=1"']
    for i in range(count):
        value = f"${{V{i}:-{i}}}"
        if shape == "flat":
            lines += [f'if [[ "${{SW{i}:-false}}" == "true" ]]; then', f"  {_append(i, value)}", "fi"]
        elif shape == "nested":
            lines += [f'if [[ "${{G{i // 2}:-false}}" == "true" ]]; then',
                      f'  if [[ "${{SW{i}:-false}}" == "true" ]]; then {_append(i, value)}; fi', "fi"]
        else:
            lines += [f'case "${{SW{i}:-off}}" in', f"  true) {_append(i, value)} ;;", f"  low) {_append(i, 'low')} ;;",
                      "  *) ;;", "esac"]
    return "\n".join(lines) + "\n"


def _bash_value(directory: Path, env: dict) -> str | None:
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", *[f"{k}={v}" for k, v in env.items()],
                          "bash", "-c", 'source ./gen.sh; printf %s "${F-UNSET}"'],
                         cwd=directory, capture_output=True, timeout=20, check=True)
    return out.stdout.decode()


def _resolved(value, env: dict) -> str:
    def pick(choice):
        """The alternative of the input's value; a value no comparison names is "anything else"."""
        value = env.get(choice.name)
        if not any(value in values for values, _ in choice.alts):
            value = OTHER
        return next(alt for values, alt in choice.alts if value in values)

    return resolve(value, pick, lambda name: input_value(env.get(name))).text


@pytest.mark.parametrize("shape", ["flat", "nested", "case"])
def test_sixty_four_appends_on_their_own_switches_are_one_path(tmp_path, shape):
    path = tmp_path / "gen.sh"
    path.write_text(appends(64, shape))
    merged = evaluate(path)
    assert merged.paths_explored == 1 and len(merged.outcomes) == 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(count=st.integers(1, 6), shape=st.sampled_from(["flat", "nested", "case"]),
       switches=st.lists(st.sampled_from([None, "true", "low", "false"]), min_size=6, max_size=6),
       values=st.lists(st.sampled_from([None, "7", ""]), min_size=6, max_size=6))
def test_the_merged_appends_are_what_bash_exports(tmp_path, count, shape, switches, values):
    """One assignment of the switches and the values: the one path's value, resolved there, is bash's."""
    script = appends(count, shape)
    path = tmp_path / "gen.sh"
    path.write_text(script)
    merged = evaluate(path)
    assert merged.paths_explored == 1
    env = {}
    for i in range(count):
        if switches[i] is not None:
            env[f"SW{i}"] = switches[i]
            env[f"G{i // 2}"] = "true"
        if values[i] is not None:
            env[f"V{i}"] = values[i]
    # An input no condition compares is explored unset only: its value is not the path's to choose.
    env = {k: v for k, v in env.items() if not k.startswith("V")}
    ((outcome,),) = [merged.outcomes]
    assert _resolved(outcome.rendering.exported["F"], env) == _bash_value(tmp_path, env)

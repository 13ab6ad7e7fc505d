"""Arithmetic that bash refuses when the command runs (`let "1 = 2"`, a malformed index, a test's
operand): an error of that one command, never of flaglint. Compared with real bash on generated
expressions; bash only ever runs scripts this test wrote, with an empty environment except PATH."""

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

# Pieces of expressions, well-formed and not: assignments to non-variables, operators without an
# operand, bases and hex numbers out of range, brackets that do not close.
PIECES = ["1", "2", "0", "x", "y", "=", "+", "-", "*", "/", "(", ")", "0x", "0x1f", "16#zz", "64#_", "2#102", "[", "]",
          "?", ":", ",", "==", "<", "0xffffffffffffffffffffffffffff", "99999999999999999999999"]
expressions = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map(" ".join)


def _bash_exports(directory: Path) -> dict[str, str]:
    ran = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", "source ./gen.sh 2>/dev/null; env -0"],
                         cwd=directory, capture_output=True, timeout=20)
    pairs = [item.split("=", 1) for item in ran.stdout.decode().split("\0") if "=" in item]
    return {k: v for k, v in pairs if k in ("STATUS", "X", "Y")}


def _script(expression: str) -> str:
    return (f"x=3\ny=4\nlet '{expression}'\nexport STATUS=$?\n"
            f"a=(p q r)\nexport X=\"${{a[{expression}]}}\"\nexport Y=\"$x.$y\"\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=expressions)
@example(expression="0x == 0x")  # `0x` with no digits is 0 to bash
def test_let_and_an_index_agree_with_bash(expression: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gen.sh"
        path.write_text(_script(expression))
        expected = _bash_exports(Path(folder))
        if set(expected) != {"STATUS", "X", "Y"}:
            return  # bash stopped the script (an expansion error ends a non-interactive shell's command list)
        got = {k: v.text for k, v in render(path, {}).exported.items() if k in expected}
        assert got == expected, _script(expression)


@pytest.mark.parametrize("line, note", [
    ('let "1 = 2"', "assignment to a non-variable"),
    ('let "x = 1 +"', "arithmetic ends early"),
    ("A=${a[1=2]}", "assignment to a non-variable"),
    ("b[-5]=1", "bad array subscript"),
])
def test_a_refused_expression_is_a_note(tmp_path, line, note):
    path = tmp_path / "s.sh"
    path.write_text(f"{line}\nexport DONE=1\n")
    rendering = render(path, {})
    assert rendering.exported["DONE"].text == "1"
    assert any(note in n.message for n in rendering.notes), rendering.notes


def test_an_index_past_the_elements_held_is_not_followed(tmp_path):
    path = tmp_path / "s.sh"
    path.write_text("b[999999999]=1\nexport DONE=1\n")
    rendering = render(path, {})
    assert "DONE" not in rendering.exported
    assert any("16,384 array elements" in n.message for n in rendering.notes)

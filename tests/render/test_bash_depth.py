"""Scripts nested deep, and values joined many times: within the input limits none exhausts
Python's stack. Each construct nested as deep as the evaluator follows (depth.NESTING_LIMIT) is
linted with a margin of stack to spare; deeper, it is FL011 naming the construct and its line."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.maxtext.values import format_value
from flaglint.render.bash.compiler import compile_text
from flaglint.render.bash.depth import NESTING_LIMIT
from flaglint.render.bash.types import TooDeep

PIN = "bbd0f6f10"
BROKEN = 'export MAXTEXT_EXTRA_FLAGS="moe_roe_packed_routing_gather=true moe_chunk_pipeline=false"'
# Frames the command line adds above check_script (click, the cli's commands), with room to spare.
MARGIN = 400


def nested(construct: str, depth: int) -> str:
    """A script that nests `construct` `depth` times around flags that break FL101, and launches."""
    body = {
        "if": lambda n: "\n".join([*['if [[ "${S:-x}" == x ]]; then'] * n, BROKEN, *["fi"] * n]),
        "group": lambda n: "{ " * n + BROKEN + "; }" * n,
        "substitution": lambda n: 'X="' + "$(echo " * n + "x" + ")" * n + '"\n' + BROKEN,
        "expansion": lambda n: 'X="' + "".join(f"${{A{i}:-" for i in range(n)) + "x" + "}" * n + '"\n' + BROKEN,
        "arithmetic": lambda n: "X=$((" + "(" * n + "1" + ")" * n + "))\n" + BROKEN,
        "list": lambda n: " && ".join(["true"] * n) + " && " + BROKEN,
        "case": lambda n: "\n".join([*['case "${S:-x}" in x)'] * n, BROKEN, *[";; esac"] * n]),
        "loop": lambda n: "\n".join(["while false; do"] * n + [":"] + ["done"] * n) + "\n" + BROKEN,
    }[construct](depth)
    return f"#!/bin/bash\n{body}\npython3 -m tunix.launcher\n"


CONSTRUCTS = ["if", "group", "substitution", "expansion", "arithmetic", "list", "case", "loop"]


def _deepest(construct: str) -> int:
    """The deepest nesting of the construct the evaluator follows."""
    low, high = 1, 2 * NESTING_LIMIT
    while low < high:
        middle = (low + high + 1) // 2
        try:
            compile_text("nested.sh", nested(construct, middle).encode())
            low = middle
        except TooDeep:
            high = middle - 1
    return low


@pytest.mark.parametrize("construct", CONSTRUCTS)
def test_the_deepest_nesting_followed_is_linted_with_stack_to_spare(construct, tmp_path):
    script = tmp_path / "nested.sh"
    script.write_text(nested(construct, _deepest(construct)))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + limit - MARGIN)
    try:
        findings = check_script(script, Checker(PIN)).result.findings
    finally:
        sys.setrecursionlimit(limit)
    assert "FL101" in {f.rule for f in findings} and "FL011" not in {f.rule for f in findings}


@pytest.mark.parametrize("construct", CONSTRUCTS)
def test_nesting_deeper_is_fl011_naming_the_construct(construct, tmp_path):
    script = tmp_path / "nested.sh"
    script.write_text(nested(construct, 2000))
    (finding,) = check_script(script, Checker(PIN)).result.findings
    assert finding.rule == "FL011" and finding.severity == "error"
    assert "nested more than" in finding.message and f"at line {finding.location.line}" in finding.message


def test_two_thousand_nested_ifs_as_a_command_give_fl011_not_a_refusal(tmp_path):
    script = tmp_path / "nested.sh"
    script.write_text(nested("if", 2000))
    proc = subprocess.run([sys.executable, "-m", "flaglint", "lint", "--pin", PIN, str(script)], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 1 and "too deeply nested" not in proc.stderr, proc.stderr
    assert "FL011" in proc.stdout and "the if at line " in proc.stdout and f"nested more than {NESTING_LIMIT} levels" in proc.stdout


def test_fifty_kilobytes_of_appends_and_prepends_are_linted(tmp_path):
    """Each append or prepend of its own key on its own switch: one value of many pieces, never
    nested deeper."""
    pin = Checker(PIN).pin
    keys = [name for name, key in sorted(pin.keys.items())
            if key.kind in ("int", "bool") and key.default is not None and not key.nullable and name != "steps"]
    lines = ["#!/bin/bash", 'export MAXTEXT_EXTRA_FLAGS="steps=10"']
    for i, key in enumerate(keys[:440]):
        value = format_value(pin.keys[key].default)
        if i % 2:
            lines.append(f'if [[ "${{SWITCH_{i}:-false}}" == "true" ]]; then export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {key}={value}"; fi')
        else:
            lines.append(f'if [[ "${{SWITCH_{i}:-false}}" == "true" ]]; then export MAXTEXT_EXTRA_FLAGS="{key}={value} ${{MAXTEXT_EXTRA_FLAGS}}"; fi')
    lines += ['if [[ "${TUNED:-false}" == "true" ]]; then export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS}'
              ' moe_roe_packed_routing_gather=true moe_chunk_pipeline=false"; fi', "python3 -m tunix.launcher"]
    script = tmp_path / "appends.sh"
    script.write_text("\n".join(lines) + "\n")
    assert script.stat().st_size > 50_000
    findings = check_script(script, Checker(PIN)).result.findings
    rules = {f.rule for f in findings}
    assert "FL101" in rules and "FL011" not in rules

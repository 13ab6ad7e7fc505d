"""`lint` on a launcher that reads its own options in a loop (`while [[ $# -gt 0 ]]; case "$1" in
--vI) VI="$2"; shift 2 ;;`) and appends each option's value to MAXTEXT_EXTRA_FLAGS: each option is
given or not, apart from the others, whatever their number (never FL011 for the combinations of the
arguments); a value the script compares is judged, with the option in the witness, and one it never
names is noted as not judged."""

from __future__ import annotations

import pytest

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.pins.pins import load_pin

PIN = "bbd0f6f10"
FORK_PIN = "e526ea02"  # its validate_moe_chunks refuses the chunk pipeline with one chunk (FL102)


def _options_script(keys: list[tuple[str, str]], before: list[str] = (), after: list[str] = ()) -> str:
    """One option `--vI VALUE` per (key, default), each appended as `key=${VI:-default}`."""
    arms = [f'    --v{i}) V{i}="$2"; shift 2 ;;' for i in range(len(keys))]
    lines = ["#!/bin/bash", "while [[ $# -gt 0 ]]; do", '  case "$1" in', *arms,
             '    *) echo "unknown option $1"; exit 1 ;;', "  esac", "done", *before,
             'export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS:-} steps=10"']
    lines += [f'export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {key}=${{V{i}:-{default}}}"' for i, (key, default) in enumerate(keys)]
    return "\n".join([*lines, *after, "python3 -m tunix.launcher", ""])


def _switches_and_numbers(count: int) -> list[tuple[str, str]]:
    """`count` boolean and integer keys of the pin that no rule reads at their defaults, in name order."""
    keys = load_pin(PIN).keys
    found = [(name, str(key.default).lower()) for name, key in sorted(keys.items())
             if key.kind in ("int", "bool") and key.default is not None and not key.nullable
             and name not in ("moe_roe_packed_routing_gather", "moe_chunk_pipeline")]
    return found[:count]


@pytest.mark.parametrize("count", [8, pytest.param(64, marks=pytest.mark.slow)])
def test_many_options_are_each_noted_where_nothing_tells_their_values(tmp_path, count):
    # Each option is given or not, apart from the others; no comparison tells what its value may
    # be, so each key it sets is noted as not judged: never FL011 for the combinations of the
    # arguments, and no error a value the script never names would make.
    keys = _switches_and_numbers(count)
    script = tmp_path / "launch.sh"
    script.write_text(_options_script(keys))
    result = check_script(script, Checker(PIN)).result
    assert "FL011" not in {f.rule for f in result.findings}
    assert [f for f in result.findings if f.severity == "error"] == []
    first = 8 + count  # the line of the first option's append
    assert sorted(n for n in result.notes if "is not judged" in n) == sorted(
        f"{script}:{first + i}: {key} is not judged: its value is not known here" for i, (key, _) in enumerate(keys))


def _arguments(env: dict) -> list:
    return [env[f"${i}"] for i in range(1, int(env.get("$#", "0")) + 1)]


def test_a_value_the_script_compares_is_judged(tmp_path):
    # The option --v3 gives num_moe_token_chunks; the script compares its value with 1, so 1 is a
    # value the option may take: with the chunk pipeline on, MaxText refuses one chunk (FL102),
    # whether the environment or the option gives it.
    keys = [*_switches_and_numbers(3), ("num_moe_token_chunks", "2"), *_switches_and_numbers(16)[3:]]
    script = tmp_path / "launch.sh"
    script.write_text(_options_script(keys, before=['if [[ "${V3:-2}" == "1" ]]; then echo "one chunk"; fi'],
                                      after=['export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} use_ring_of_experts=true moe_chunk_pipeline=true"']))
    findings = check_script(script, Checker(FORK_PIN)).result.findings
    assert "FL011" not in {f.rule for f in findings}
    (chunks,) = [f for f in findings if f.rule == "FL102"]
    env = chunks.witness["env"]
    arguments = _arguments(env)
    given = "--v3" in arguments and arguments[arguments.index("--v3") + 1] == "1"
    assert env.get("V3") == "1" and "--v3" not in arguments or given
    assert "FL005" not in {f.rule for f in findings}

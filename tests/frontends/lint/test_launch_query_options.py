"""`lint` on a launcher that reads its own options in a loop (`while [[ $# -gt 0 ]]; case "$1" in
--vI) VI="$2"; shift 2 ;;`) and appends each option's value to MAXTEXT_EXTRA_FLAGS: every
option's value is judged, whatever the number of options (never FL011 for the combinations of the
arguments), each finding's witness naming the option and its value; a value MaxText reads is told
apart from the values it refuses."""

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
def test_many_options_are_each_judged_with_the_option_in_the_witness(tmp_path, count):
    # Each option's value is a word the loop compares the arguments with (another option's name):
    # no number or switch reads it, so each key's first such value is FL005 there.
    keys = _switches_and_numbers(count)
    script = tmp_path / "launch.sh"
    script.write_text(_options_script(keys))
    findings = check_script(script, Checker(PIN)).result.findings
    assert "FL011" not in {f.rule for f in findings}
    errors = [(f.rule, f.location.line, f.witness["env"]) for f in findings if f.severity == "error"]
    first = 8 + count  # the line of the first option's append
    assert errors == [("FL005", first + i, {"$#": "2", "$1": f"--v{i}", "$2": "--v0"}) for i in range(count)]
    assert all(f"{key}: '--v0'" in f.message for f, (key, _) in zip(findings, keys))


def test_a_value_maxtext_reads_is_judged_apart_from_the_words_it_refuses(tmp_path):
    # The option --v3 gives num_moe_token_chunks; the script compares its value with 1, so 1 is a
    # value of the argument after --v3 as much as the other options' names are: with the chunk
    # pipeline on, MaxText refuses one chunk (FL102), and each name (FL005).
    keys = [*_switches_and_numbers(3), ("num_moe_token_chunks", "2"), *_switches_and_numbers(16)[3:]]
    script = tmp_path / "launch.sh"
    script.write_text(_options_script(keys, before=['if [[ "${V3:-2}" == "1" ]]; then echo "one chunk"; fi'],
                                      after=['export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} use_ring_of_experts=true moe_chunk_pipeline=true"']))
    findings = check_script(script, Checker(FORK_PIN)).result.findings
    assert "FL011" not in {f.rule for f in findings}
    (chunks,) = [f for f in findings if f.rule == "FL102"]
    assert chunks.witness["env"] in ({"$#": "2", "$1": "--v3", "$2": "1"}, {"$#": "0", "V3": "1"})
    refused = {f.location.line: f.witness["env"] for f in findings if f.rule == "FL005"}
    first = 8 + len(keys) + 1  # the line of the first option's append
    assert refused == {first + i: {"$#": "2", "$1": f"--v{i}", "$2": "--v0"} for i in range(len(keys))}

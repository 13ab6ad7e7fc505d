"""Parsing and checking the trainer settings (no jax needed)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flaglint.trainer.settings import (
    DEFAULT_PAD_ALIGN,
    assembler_refusals,
    check_assembler_settings,
    check_pad_settings,
    parse_head_mode,
    parse_pad_position,
    parse_positive_int,
    scoring_mode,
)

ACCEPTED = {
    None: "off", "": "off", "0": "off", "false": "off", "FALSE": "off", "Off": "off", "no": "off", "NO": "off",
    "local": "local", "fused": "fused",
}


@pytest.mark.parametrize("value,mode", ACCEPTED.items())
def test_head_modes(value, mode):
    assert parse_head_mode(value) == mode


def test_unset_zero_and_local_run_the_local_program():
    assert {scoring_mode(parse_head_mode(v)) for v in (None, "0", "local")} == {"local"}
    assert scoring_mode(parse_head_mode("fused")) == "fused"


@pytest.mark.parametrize("value", ["fuse", "Fused", "FUSED", "fused ", " fused", "Fused ", "locl", "Local",
                                   "fusedd", "2", "offf", "nope", "sharded", "1", "true", "on", "yes"])
def test_near_misses_raise(value):
    with pytest.raises(ValueError, match="TUNIX_LOGPS_SHARDED_HEAD"):
        parse_head_mode(value)


def test_near_miss_names_the_closest_value():
    with pytest.raises(ValueError, match="did you mean 'fused'"):
        parse_head_mode("fuse")


@given(st.text(max_size=8))
def test_any_other_text_raises(value):
    if value in ACCEPTED or value.lower() in ("0", "false", "off", "no"):
        return
    with pytest.raises(ValueError):
        parse_head_mode(value)


def test_positive_ints_and_positions():
    assert parse_positive_int("X", None, 7) == 7
    assert parse_positive_int("X", "4096", 7) == 4096
    for bad in ("0", "-1", "1.5", "4k", "1e3"):
        with pytest.raises(ValueError, match="X="):
            parse_positive_int("X", bad, 7)
    assert parse_pad_position(None) == "end"
    assert parse_pad_position("start") == "start"
    with pytest.raises(ValueError, match="PACK_PAD_POSITION"):
        parse_pad_position("Start")


def test_pad_checks():
    check_pad_settings("end", 3, 64)  # pad_align is not read with "end"
    check_pad_settings("start", 4096, 64)
    for position, align, segment in [("left", 4096, 64), ("start", 100, 64), ("start", 0, 1), ("start", 4096.0, 64)]:
        with pytest.raises(ValueError):
            check_pad_settings(position, align, segment)


def test_assembler_refusals():
    assert assembler_refusals("end", DEFAULT_PAD_ALIGN, packed=True, row_length=65536) == []
    assert assembler_refusals("end", DEFAULT_PAD_ALIGN, packed=False, row_length=None) == []
    assert assembler_refusals("start", 4096, packed=True, row_length=65536) == []
    (unpacked,) = assembler_refusals("start", 4096, packed=False, row_length=None)
    assert "padded (unpacked) assembler" in unpacked
    (too_big,) = assembler_refusals("start", 8192, packed=True, row_length=8192)
    assert "at least the row length" in too_big
    (unread,) = assembler_refusals("end", 2048, packed=True, row_length=65536)
    assert "only read with start" in unread
    with pytest.raises(ValueError, match="would do nothing"):
        check_assembler_settings("start", 4096, False, None)


def test_importing_the_package_does_not_import_jax_or_numpy():
    code = "import sys, flaglint.trainer; print('jax' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@given(st.one_of(st.sampled_from([*ACCEPTED, "Fused", "LOCAL", "1", "true", "fuse", " 0"]), st.text(max_size=6)))
def test_rule_fl106_accepts_exactly_what_the_trainer_parses(value):
    from flaglint.frontends.checker import Checker
    from flaglint.read.flags import FlagSource

    env = {} if value is None else {"TUNIX_LOGPS_SHARDED_HEAD": value}
    flagged = "FL106" in {f.rule for f in Checker().check(FlagSource(""), env, fix=False).findings}
    try:
        parse_head_mode(value)
        parses = True
    except ValueError:
        parses = False
    assert flagged == (not parses)

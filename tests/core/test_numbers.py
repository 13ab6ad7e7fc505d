"""Numbers of any size as text and back, without Python's 4,300-digit limit (left as it is)."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flaglint.core.numbers import (
    as_float,
    decimal_int,
    decimal_text,
    int_text,
    shown_value,
)


@given(st.integers(-(2**60_000), 2**60_000))
def test_decimal_text_and_back_are_exact(value):
    text = decimal_text(value)
    assert (-decimal_int(text[1:]) if value < 0 else decimal_int(text)) == value
    if abs(value) < 10**4000:
        assert text == str(value)


@given(st.text(alphabet="0123456789", min_size=1, max_size=9_000))
def test_decimal_int_reads_any_digit_string(digits):
    assert decimal_text(decimal_int(digits)) == digits.lstrip("0").rjust(1, "0")


@pytest.mark.parametrize("text", ["", "1.0", "-1", "١٢", " 1"])
def test_decimal_int_takes_ascii_digits_only(text):
    with pytest.raises(ValueError):
        decimal_int(text)


def test_an_int_past_python_s_limit_is_written_in_hexadecimal_that_yaml_reads_back():
    import yaml

    value = 7**9000
    assert sys.get_int_max_str_digits() in (0, 4300)
    for number in (value, -value):
        assert yaml.safe_load(int_text(number)) == number
    assert int_text(12) == "12"


def test_a_long_number_in_a_message_is_cut_short():
    assert shown_value(10**400) == "1000000000000000…0000 (401 digits)"
    assert shown_value(-(10**5000)).endswith("(5,001 digits)")
    assert shown_value([10**5000]) == "a list holding an integer of over 4,300 digits"
    assert shown_value(12) == "12" and shown_value(float("inf")) == "inf" and shown_value("x") == "'x'"
    assert as_float(10**400) is None and as_float(10) == 10.0

"""A word flaglint says numpy's dtype() refuses is refused by the real numpy (the one installed with
jax); the names MaxText's configs use are never among them."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flaglint.maxtext.dtypes import refused_dtype_name

NEAR = ["abc", "x", "none", "None", "adam_pax", "Float", "BOOL", "float_", "bfloat", "int_", "f", "S", "a", "u", "longfloat"]


def numpy_refuses(value: str) -> bool:
    try:
        numpy.dtype(value)
    except TypeError:
        return True
    return False


@given(st.from_regex(r"[A-Za-z_]{1,12}", fullmatch=True) | st.sampled_from(NEAR) | st.text(max_size=6))
def test_a_word_said_to_be_refused_is_refused_by_numpy(value):
    if refused_dtype_name(value):
        assert numpy_refuses(value), value


@pytest.mark.parametrize("name", ["bfloat16", "float32", "int8", "bool", "float", "half", "f", "S", "float8_e4m3fn", "<f4", "i4,f8"])
def test_a_name_numpy_reads_is_never_refused(name):
    assert not refused_dtype_name(name)


@pytest.mark.parametrize("value", ["abc", "x", "adam_pax", "none", "None"])
def test_words_no_numpy_reads_are_refused(value):
    assert refused_dtype_name(value) and numpy_refuses(value)


def test_only_strings_are_judged():
    assert not any(refused_dtype_name(v) for v in (None, 1, 1.5, ["a"], True))

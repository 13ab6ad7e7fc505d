"""The JSON Schema fragment of a key accepts what MaxText accepts (values.type_parsed), and refuses
what it refuses except a string that stands for a number of a bounded key (JSON Schema cannot
compare a string with a number)."""

import math
from functools import lru_cache

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from flaglint.maxtext.value_schema import DEFINITIONS, value_schema
from flaglint.maxtext.values import ValueError_, type_parsed
from flaglint.pins.pins import load_pin
from flaglint.schema.model import KeySchema

PIN = load_pin("maxtext-0.2.5")
KEYS = sorted(PIN.keys)
BOUNDS = ("ge", "gt", "le", "lt")


@lru_cache(maxsize=None)
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator({"$defs": DEFINITIONS, **value_schema(PIN.keys[name])})


def _maxtext_accepts(key, value) -> bool:
    try:
        type_parsed(key, value)
    except ValueError_:
        return False
    return True


def _beyond_json_schema(key, value) -> bool:
    """What the fragment takes without asking MaxText: a string for a bounded number, NaN against a
    bound, an int as a float too large for int64 (as the value or an item of its list)."""
    bounded = any(getattr(key, bound) is not None for bound in BOUNDS)
    if isinstance(value, str) and bounded:
        return True
    if isinstance(value, float) and (math.isnan(value) and bounded or value.is_integer() and abs(value) >= 2**63):
        return True
    return isinstance(value, list) and any(_beyond_json_schema(key, item) for item in value)


def _agrees(name: str, value) -> None:
    key = PIN.keys[name]
    maxtext = _maxtext_accepts(key, value)
    schema = _validator(name).is_valid(value)
    assert schema or not maxtext, f"{name}={value!r}: MaxText takes it, the schema refuses it"
    assert maxtext or not schema or _beyond_json_schema(key, value), f"{name}={value!r}: MaxText refuses it, the schema takes it"


# Strings that MaxText's typing treats apart: YAML 1.1 words, numbers as text, none in any case.
SPECIAL_TEXT = ["", "none", "None", "NONE", "nOnE", "null", "yes", "No", "on", "OFF", "y", "T", "f", "true", "False", "1", "0",
                "2", "-1", " 12 ", "+0_1", "1_000", "1.0", "1.5", "1e-5", "2E3", ".5", "5.", "inf", "-Infinity", "nan", "0x10",
                "1,2", "0.5, 1e3", "a", "linear", "fp8", "dpo", "gemma3", "true\n", "1\n", "[a, b]", "١٢"]
scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.sampled_from(SPECIAL_TEXT)
           | st.text(max_size=6))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
                      max_leaves=6)


@settings(max_examples=60)
@given(values)
@example([False]).via("a list of ints takes a bool as 0")
@example([9.223372036854776e18]).via("an int past int64 as a float, in a list")
def test_every_key_agrees_with_maxtext_on_drawn_values(value):
    for name in KEYS:
        _agrees(name, value)


@pytest.mark.parametrize("text", SPECIAL_TEXT)
def test_every_key_agrees_with_maxtext_on_the_special_strings(text):
    for name in KEYS:
        _agrees(name, text)


@pytest.mark.parametrize("value", [None, True, False, 0, 1, 2, -1, 1.0, 1.5, 1e-5, math.inf, [], [1, 2], ["a"], [["a", ["b"]]], {}, {"a": 1}])
def test_every_key_agrees_with_maxtext_on_yaml_values(value):
    for name in KEYS:
        _agrees(name, value)


def test_the_values_a_naive_schema_would_refuse_are_taken():
    def takes(kind_fields, value):
        key = KeySchema(name="k", **kind_fields)
        return Draft202012Validator({"$defs": DEFINITIONS, **value_schema(key)}).is_valid(value)

    assert takes({"kind": "float"}, 1) and takes({"kind": "float"}, "1e-5") and takes({"kind": "float"}, True)
    assert takes({"kind": "int"}, 2.0) and takes({"kind": "int"}, "12") and not takes({"kind": "int"}, 1.5)
    assert takes({"kind": "bool"}, "yes") and takes({"kind": "bool"}, 0) and not takes({"kind": "bool"}, 2)
    assert takes({"kind": "str", "nullable": True}, "None") and not takes({"kind": "str"}, "None")
    assert not takes({"kind": "str"}, 123)
    assert takes({"kind": "int", "gt": 0}, True) and not takes({"kind": "int", "gt": 0}, False)
    assert takes({"kind": "enum", "enum": "E", "choices": [0, 1], "int_enum": True}, "01")
    assert not takes({"kind": "enum", "enum": "E", "choices": ["linear"]}, "LINEAR")

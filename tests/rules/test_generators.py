"""Generators over a list value in the rule language (`any(r > 0 for r in compress_ratios)`, all,
sum, prod): parsed with ast, evaluated one term per element of the config's list, as Python
computes the same generator."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flaglint.rules.expr import (
    ExprError,
    Unknown,
    evaluate,
    from_json,
    parse,
    substitute,
    to_json,
)

# Each text with the same computation written in Python by the test.
GENERATORS = [
    ("any(r != 0 and r < 4 for r in xs)", lambda xs, k: any(r != 0 and r < 4 for r in xs)),
    ("all(r >= k for r in xs if r != 0)", lambda xs, k: all(r >= k for r in xs if r != 0)),
    ("sum(1 for r in xs if r > k)", lambda xs, k: sum(1 for r in xs if r > k)),
    ("sum(r * k for r in xs)", lambda xs, k: sum(r * k for r in xs)),
    ("prod(r for r in xs if r != -1 if r != 0)", lambda xs, k: math.prod(r for r in xs if r != -1 if r != 0)),
    ("not any(k == 2 * r + 1 for r in xs if 2 * r > 0)", lambda xs, k: k not in [2 * r + 1 for r in xs if 2 * r > 0]),
    ("k if any(r > k for r in xs) else len(xs)", lambda xs, k: k if any(r > k for r in xs) else len(xs)),
    ("any(any(r == s for s in xs if s != r) for r in xs)", lambda xs, k: any(any(r == s for s in xs if s != r) for r in xs)),
]


@given(text=st.text(alphabet="12,.x ", max_size=12))
def test_split_cuts_a_string_as_python_does(text):
    # MaxText before 0.2.0 reads constant_bound_config as the pieces between commas
    assert evaluate(parse("len(split(value, ','))"), {"value": text}.__getitem__) == len(text.split(","))
    with pytest.raises(Unknown):
        evaluate(parse("split(value, ',')"), {"value": None}.__getitem__)


@pytest.mark.parametrize("text, python", GENERATORS, ids=[text for text, _ in GENERATORS])
@given(xs=st.lists(st.integers(-2, 9), max_size=5), k=st.integers(-1, 5))
def test_a_generator_computes_what_python_computes(text, python, xs, k):
    values = {"xs": xs, "k": k}
    assert evaluate(parse(text), values.__getitem__) == python(xs, k)


def test_the_element_is_no_key_of_the_config():
    node = parse("any(x > limit for x in ratios if x != 0)")
    assert node.names() == ["ratios", "limit"] and node.free == {"ratios", "limit"}
    # a key named as the element is hidden inside the generator, read outside it
    shadowed = parse("x > 0 and all(x < 4 for x in ratios)")
    assert shadowed.names() == ["x", "ratios"]
    assert evaluate(shadowed, {"x": 1, "ratios": [1, 2, 3]}.__getitem__) is True
    assert evaluate(shadowed, {"x": 1, "ratios": [1, 5]}.__getitem__) is False


def test_a_derived_value_named_as_the_element_is_not_inlined_inside_it():
    node = substitute(parse("x + sum(x for x in ratios)"), {"x": parse("base * 2")})
    assert evaluate(node, {"base": 3, "ratios": [1, 2]}.__getitem__) == 9


def test_a_generator_over_no_list_is_not_judged():
    for value in (None, 3, "abc"):
        with pytest.raises(Unknown):
            evaluate(parse("any(x > 0 for x in ratios)"), {"ratios": value}.__getitem__)


def test_a_generator_keeps_its_meaning_through_the_rule_cache():
    node = parse("prod(v for v in sizes if v != -1) > 0")
    assert from_json(to_json(node)) == node


@pytest.mark.parametrize("text", ["any(xs)", "sum(x for x in xs for y in xs)", "all((a, b) for a, b in xs)", "prod((x for x in xs), 1)"])
def test_a_generator_the_language_does_not_take_is_refused_by_name(text):
    with pytest.raises(ExprError, match=r"takes one generator over a list"):
        parse(text)

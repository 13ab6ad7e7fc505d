"""A group's tables read one launch for each way the parts that write a name are written
(launch_parts.WrittenWays): two combinations of the inputs' values are one way exactly where the
values written there are the same text from the same places, so a launch read for one tells the
other's findings, and one written elsewhere is never taken for it."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.core.location import Location
from flaglint.frontends.lint.launch_parts import WrittenWays
from flaglint.render.bash.types import Choice, FromInput, Sym, Value, resolve

# Each input's values: unset, and literals a script compares it with.
DOMAINS = {"MODE": [None, "a", "b"], "SLICE": [None, "big"], "TUNED": [None, "true", "false"]}


def _written(text: str, line: int) -> Value:
    """TEXT written at LINE of a script (the same text at two lines: two places)."""
    return Value(text, [Location("recipe.sh", line, column) for column in range(1, len(text) + 1)])


leaves = st.one_of(
    st.builds(_written, st.sampled_from(["", " steps=10", " steps=20", "x"]), st.integers(1, 2)),
    st.builds(FromInput, st.sampled_from(sorted(DOMAINS))),
)


def _choice(name: str, taken: list) -> Choice:
    """A Choice on NAME: each of its values takes the alternative at its place in TAKEN."""
    return Choice(name, tuple((frozenset([value]), alternative) for value, alternative in zip(DOMAINS[name], taken)))


values = st.recursive(leaves, lambda inner: st.one_of(
    st.builds(lambda pieces: Sym(tuple(pieces)), st.lists(inner, min_size=1, max_size=3)),
    st.sampled_from(sorted(DOMAINS)).flatmap(
        lambda name: st.lists(inner, min_size=len(DOMAINS[name]), max_size=len(DOMAINS[name])).map(lambda taken: _choice(name, taken))),
), max_leaves=8)


def _content(value, env: dict) -> tuple | None:
    """The value where the inputs take their values in ENV, as bash writes it: its text, whether a
    part is not known here, and where each character was written."""
    found = resolve(value, lambda choice: next((alt for held, alt in choice.alts if env.get(choice.name) in held), choice.alts[0][1]),
                    lambda name: None if env.get(name) is None else Value(env[name], [None] * len(env[name])))
    return None if found is None else (found.text, found.opaque, tuple(found.origins))


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from([{}, {"MODE": "a"}, {"TUNED": "true", "SLICE": "big"}]),
       st.lists(st.sampled_from(sorted(DOMAINS)), min_size=1, max_size=3, unique=True))
def test_two_combinations_are_one_way_exactly_where_the_value_written_is_the_same(value, base: dict, asked: list):
    inputs = {name: DOMAINS[name] for name in sorted(asked)}
    column = WrittenWays(base).column(value, inputs)
    contents = [_content(value, {**base, **dict(zip(inputs, combo))}) for combo in itertools.product(*inputs.values())]
    assert len(column) == len(contents)
    for (first, first_content), (second, second_content) in itertools.combinations(zip(column, contents), 2):
        assert (first == second) == (first_content == second_content)

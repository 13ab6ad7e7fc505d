"""A launch word whose value nests deeper than Python's recursion allows (a value a loop or an options
loop built, joined at many paths) is still read whole, and each shared part once."""

import sys

import pytest

from flaglint.frontends.lint.tunix_commands import may_name_tunix
from flaglint.render.bash.types import Choice, Sym, Value


def _nested(depth: int, last: str) -> Choice:
    value = Value(last, ())
    for level in range(depth):
        value = Choice(f"X{level}", ((frozenset({"a"}), Sym((Value("--flag ", ()), value))), (frozenset({None}), value)))
    return value


@pytest.mark.parametrize("last, named", [("python3 -m tunix.cli.grpo_main", True), ("python3 -m maxtext.train", False)])
def test_a_word_nested_past_the_recursion_limit_is_read_whole(last, named):
    assert may_name_tunix(_nested(sys.getrecursionlimit() * 3, last)) is named


def test_a_word_whose_parts_are_shared_at_every_level_is_read_once_a_part():
    # each level refers to the one below twice: 2**60 ways down, 60 parts
    value = Value("python3 -m maxtext.train", ())
    for level in range(60):
        value = Choice(f"X{level}", ((frozenset({"a"}), Sym((value, Value(" k=v", ())))), (frozenset({None}), value)))
    assert may_name_tunix(value) is False

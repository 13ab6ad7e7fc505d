"""PieceTokens reads the tokens that touch one piece of a joined flag string from that piece's
neighbourhood; a plain tokenisation of the whole string is the reference it must agree with."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.frontends.lint.launch_parts import PieceTokens


def whole_string_tokens(texts: list[str], joins: dict) -> list[tuple[str, set]]:
    """Every token of the joined pieces, with the pieces it touches: those that write one of its
    characters, and an empty piece strictly inside it, at its end when the piece joins left, or
    at its start when it joins right."""
    chars, owners, empty_at = [], [], {}
    for index, text in enumerate(texts):
        if not text:
            empty_at.setdefault(len(chars), []).append(index)
        chars.extend(text)
        owners.extend([index] * len(text))
    found, start = [], None
    for position in range(len(chars) + 1):
        blank = position == len(chars) or chars[position].isspace()
        if not blank and start is None:
            start = position
        if blank and start is not None:
            touched = set(owners[start:position])
            for at in range(start, position + 1):
                for index in empty_at.get(at, ()):
                    left, right = joins.get(index, (True, True))
                    if start < at < position or at == position and left or at == start and right:
                        touched.add(index)
            found.append(("".join(chars[start:position]), touched))
            start = None
    return found


piece_text = st.sampled_from(["", "", "", " ", "a", "b=1", " k=2", "x ", " y=3 ", "c d", "=", " \n", "zz=9"])


@settings(max_examples=1000, deadline=None)
@given(texts=st.lists(piece_text, min_size=1, max_size=9), data=st.data())
def test_the_tokens_touching_a_piece_are_those_of_the_whole_string(texts, data):
    joins = {i: (data.draw(st.booleans()), data.draw(st.booleans())) for i in range(len(texts)) if data.draw(st.booleans())}
    tokens = PieceTokens(texts, joins)
    i = data.draw(st.integers(0, len(texts) - 1))
    text = data.draw(piece_text)
    replaced = list(texts)
    replaced[i] = text
    expected = [(token, touched) for token, touched in whole_string_tokens(replaced, joins) if i in touched]
    assert tokens.touching(i, text) == expected


def test_a_thousand_empty_pieces_at_one_place_are_never_walked():
    """Appends on switches that are all off: each piece is tokenised with its neighbours only."""
    texts = [" steps=10", *[""] * 1000]
    joins = dict.fromkeys(range(1, 1001), (False, True))
    tokens = PieceTokens(texts, joins)
    assert tokens.touching(500, " log_period=5") == [("log_period=5", {500})]
    assert tokens.touching(500, "") == []

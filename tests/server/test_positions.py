"""flaglint's places (1-based character columns, byte offsets) as the protocol's positions, checked
against Python's own UTF-8 and UTF-16 codecs."""

from __future__ import annotations

from hypothesis import assume, example, given
from hypothesis import strategies as st

from flaglint.server.positions import (
    byte_position,
    character_index,
    column_position,
    lines_of,
)


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def utf8(text: str) -> int:
    return len(text.encode("utf-8"))


lines = st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n")), min_size=1, max_size=5)


@given(lines, st.data())
def test_a_character_column_is_its_utf16_column(rows, data):
    line = data.draw(st.integers(1, len(rows)))
    column = data.draw(st.integers(1, len(rows[line - 1]) + 1))
    row, units = column_position(rows, line, column, utf16)
    assert row == line - 1
    assert units == utf16(rows[line - 1][: column - 1])
    assert character_index(rows[row], units, utf16) == column - 1


@given(lines, st.data(), st.sampled_from([utf16, utf8, len]))
def test_a_byte_offset_is_the_position_of_its_character(rows, data, units):
    text = "\n".join(rows)
    index = data.draw(st.integers(0, len(text)))
    line = text[:index].count("\n")
    column = index - (text.rfind("\n", 0, index) + 1)
    assert byte_position(text, utf8(text[:index]), units) == (line, units(rows[line][:column]))


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n")), min_size=1),
       st.lists(st.sampled_from(["\n", "\r\n", "\r"])))
@example(rows=["", "", "", ""], endings=["\r", "\r\n"])
def test_every_line_ending_ends_a_line(rows, endings):
    ends = [endings[i % len(endings)] if endings else "\n" for i in range(len(rows) - 1)]
    # a "\r" ending, an empty row and a "\n" ending are one "\r\n": one line less, as every reader counts it
    assume(not any(end == "\r" and rows[i + 1] == "" and ends[i + 1:i + 2] == ["\n"] for i, end in enumerate(ends)))
    text = "".join(row + end for row, end in zip(rows, ends)) + rows[-1]
    assert lines_of(text) == rows

"""flaglint's places (1-based character columns, byte offsets) as the protocol's positions, checked
against Python's own UTF-8 and UTF-16 codecs."""

from __future__ import annotations

from hypothesis import given
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
def test_every_line_ending_ends_a_line(rows, endings):
    text = "".join(row + (endings[i % len(endings)] if endings else "\n") for i, row in enumerate(rows[:-1])) + rows[-1]
    assert lines_of(text) == rows

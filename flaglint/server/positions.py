"""Places in a text, as flaglint writes them and as the Language Server Protocol reads them.

flaglint's locations are 1-based lines and columns in characters (code points), and its edits byte
offsets of a file's UTF-8 form; the protocol's positions are 0-based lines and columns in the code
units the client and server agreed on (UTF-16 unless the client offers another): `units` counts
them in a piece of a line.
"""

from __future__ import annotations

from typing import Callable

Units = Callable[[str], int]


def lines_of(text: str) -> list[str]:
    """The lines as the protocol counts them: \\n, \\r\\n and \\r end one."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def column_position(lines: list[str], line: int, column: int, units: Units) -> tuple[int, int]:
    """The protocol's (line, column) of the 1-based LINE and character COLUMN, clamped to the text."""
    row = min(max(line - 1, 0), len(lines) - 1)
    return row, units(lines[row][: max(column - 1, 0)])


def byte_position(text: str, offset: int, units: Units) -> tuple[int, int]:
    """The protocol's (line, column) of byte OFFSET of TEXT's UTF-8 form."""
    before = lines_of(text.encode("utf-8")[:offset].decode("utf-8", "replace"))
    return len(before) - 1, units(before[-1])


def character_index(line: str, column: int, units: Units) -> int:
    """The character index of LINE at the protocol's COLUMN (in code units): inverse of `units`."""
    counted = 0
    for index, char in enumerate(line):
        if counted >= column:
            return index
        counted += units(char)
    return len(line)

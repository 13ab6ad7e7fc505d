"""Where text was written: the one location type, from the reader that sees a token to the
reporter that points at it (flag tokens, characters a script wrote, manifest scalars, findings)."""

from __future__ import annotations

from flaglint.core.records import FrozenRecord

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


class Location(FrozenRecord):
    """A span of a file (file None: a string given on the command line).

    `line` and `column` (1-based, in characters of the line) are where it starts; `end_column` is
    the column just after it, on `end_line` (None: the same line); end_column None is one point,
    such as where one character of a rendered value was written. `offset` and `end_offset` are the
    same span in the text it was read from, where a stage edits it: characters of a flag string,
    bytes of a script; None where nothing edits it.
    """

    __slots__ = field_names = ("file", "line", "column", "offset", "end_column", "end_line", "end_offset")

    def __init__(self, file: str | None, line: int, column: int, offset: int | None = None, end_column: int | None = None,
                 end_line: int | None = None, end_offset: int | None = None):
        self.file = file
        self.line = line
        self.column = column
        self.offset = offset
        self.end_column = end_column
        self.end_line = end_line
        self.end_offset = end_offset

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column, "end_column": self.end_column}

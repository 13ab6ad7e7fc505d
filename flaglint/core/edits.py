"""The one edit type, from the fix that proposes a change to the write that makes it and the report
that shows it, and how a fix or an edit may be made (its applicability)."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from flaglint.core.location import Location
from flaglint.core.records import FrozenRecord

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


class Applicability(Enum):
    """How `--fix` may make a fix or one of its edits (ruff's model), least first. An edit's own
    applicability only ever lowers its fix's: the edit is made as the lesser of the two."""

    BY_HAND = "by hand"  # nothing --fix writes can make it: a person does (a line to add, a variable to set)
    UNSAFE = "unsafe"  # --fix makes it with --unsafe-fixes
    SAFE = "safe"  # --fix makes it

    def __lt__(self, other: Applicability) -> bool:
        order = list(Applicability)
        return order.index(self) < order.index(other)

    def allowed(self, unsafe_fixes: bool) -> bool:
        """Whether --fix makes it (given --unsafe-fixes or not)."""
        return self is Applicability.SAFE or unsafe_fixes and self is Applicability.UNSAFE


class Edit(FrozenRecord):
    """`old`, written at `location`, becomes `new`; an empty span inserts.

    `location.offset`/`end_offset` is the span replaced: characters of the flag string being
    checked (file None), or bytes of the file as it is on disk; its line and column are where a
    person finds it (None: nowhere in what was checked).
    `applicability`: SAFE (as its fix is), UNSAFE where the edit is less safe than its fix (a value
    added after a token of a shared file changes what that file does for other recipes), or
    BY_HAND: nothing written can make the change, and `new` says what to do by hand (a line to add,
    or the value to give `variable`). A byte edit of a file (`moved`) is never more applicable than
    its fix.
    `variable`: the Tunix variable whose value this is (None: the MaxText flags).
    """

    __slots__ = field_names = ("location", "old", "new", "applicability", "variable")

    def __init__(self, location: Location | None, old: str, new: str, applicability: Applicability = Applicability.SAFE,
                 variable: str | None = None):
        self.location = location
        self.old = old
        self.new = new
        self.applicability = applicability
        self.variable = variable

    @classmethod
    def in_text(cls, text: str, start: int, end: int, new: str, file: str | None = None, *,
                applicability: Applicability = Applicability.SAFE, variable: str | None = None) -> Edit:
        """The edit of characters [start, end) of `text` (a flag string, or a file's decoded text)."""
        return cls(_span(text, start, end, file, start, end), text[start:end], new, applicability, variable)

    @classmethod
    def in_bytes(cls, data: bytes, start: int, end: int, new: str, file: str, *,
                 applicability: Applicability = Applicability.SAFE) -> Edit:
        """The edit of bytes [start, end) of a file whose content is `data`."""
        before = data[:start].decode("utf-8", "replace")
        old = data[start:end].decode("utf-8", "replace")
        return cls(_span(before + old, len(before), len(before) + len(old), file, start, end), old, new, applicability)

    @property
    def start(self) -> int:
        return self.location.offset

    @property
    def end(self) -> int:
        return self.location.end_offset

    @property
    def file(self) -> str | None:
        return self.location.file if self.location else None

    @property
    def written(self) -> bool:
        """Whether --fix can make the edit (else it is done by hand)."""
        return self.applicability is not Applicability.BY_HAND

    def moved(self, start: int, end: int, file: str | None, at_most: Applicability) -> Edit:
        """The same change, with its span given in other offsets (bytes of `file`, for a write), and
        no more applicable than `at_most` (its fix's applicability)."""
        return self.replace(location=self.location.replace(file=file, offset=start, end_offset=end),
                       applicability=min(self.applicability, at_most))

    def shown(self) -> Edit:
        """The edit as a person reads it: the blanks a dropped or appended token takes with it are
        not part of what it shows."""
        if self.location is None:
            return self
        old, new = self.old.strip(), self.new.strip()
        lead = self.old[: len(self.old) - len(self.old.lstrip())]
        line, column = self.location.line, self.location.column
        if "\n" in lead:
            line, column = line + lead.count("\n"), len(lead) - lead.rfind("\n")
        else:
            column += len(lead)
        end_line = line + old.count("\n")
        end_column = (len(old) - old.rfind("\n")) if "\n" in old else column + len(old)
        location = Location(self.location.file, line, column, end_column=end_column, end_line=end_line if end_line != line else None)
        return self.replace(location=location, old=old, new=new)

    def to_json(self) -> dict[str, Any]:
        shown = self.shown()
        return {**(shown.location.to_json() if shown.location else {}), "variable": self.variable, "old": shown.old, "new": shown.new}


def joined_drops(edits: list[Edit], text: str | bytes, drop: Callable[[int, int], Edit]) -> list[Edit]:
    """The edits of `text` in order, where two dropped neighbours that both claim the blank between
    them (`a b` dropping both) become one drop of both (`drop(start, end)` makes it), so the blank
    goes once; a drop at the start of the text takes the blanks after it, up to the next edit."""
    joined: list[Edit] = []
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        last = joined[-1] if joined else None
        if last is not None and edit.start < last.end and not edit.new and not last.new:
            joined[-1] = drop(last.start, max(last.end, edit.end))
        else:
            joined.append(edit)
    if joined and joined[0].start == 0 and not joined[0].new:
        end = joined[0].end
        while text[end:end + 1] in (" ", "\t", b" ", b"\t") and not any(e.start == end for e in joined[1:]):
            end += 1
        joined[0] = drop(0, end)
    return joined


def _span(text: str, start: int, end: int, file: str | None, offset: int, end_offset: int) -> Location:
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    end_line = text.count("\n", 0, end) + 1
    end_column = end - (text.rfind("\n", 0, end) + 1) + 1
    return Location(file, line, column, offset, end_column, end_line if end_line != line else None, end_offset)

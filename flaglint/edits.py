"""The one edit type, from the fix that proposes a change to the write that makes it, and the form
in which a fix's edits are shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .location import Location


@dataclass(frozen=True)
class Edit:
    """Replace [start, end) with `text`; start == end inserts.

    file None: the offsets are characters of the flag string being checked; a file: bytes of that
    file as it is on disk. `safe`: whether `--fix` may make it without `--unsafe-fixes`; an edit of
    a file carries its fix's label, or False where it is less safe than its fix (a value added
    after a token of a shared file changes what that file does for other recipes).
    """

    start: int
    end: int
    text: str
    file: str | None = None
    safe: bool = True


@dataclass(frozen=True)
class PlacedEdit:
    """An edit as a person reads it in the file the flags were written in: the span `location`
    (which reads `old`) becomes `new`; an empty span inserts. location None: the value is not
    written in the file."""

    location: Location | None
    old: str
    new: str
    name: str | None = None  # the Tunix variable whose value this is; None: the flag string

    def to_json(self) -> dict[str, Any]:
        return {**(self.location.to_json() if self.location else {}), "variable": self.name, "old": self.old, "new": self.new}

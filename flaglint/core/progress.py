"""A progress line on standard error for work that can take seconds (a schema import, `smoke`,
`--confirm-with`, a lint of many scripts): one line, rewritten in place and erased when the work
ends. Only a terminal gets it; a pipe, a file or a CI log reads the same output as before.

It is shown from the first step, never after a delay: what flaglint prints never depends on how
long something took."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import TextIO

_ERASE = "\r\x1b[K"


class Progress:
    """`with Progress() as progress: progress.step("reading …")`."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.clear()

    @property
    def on(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def step(self, text: str) -> None:
        """Show TEXT in place of the previous step."""
        if self.on:
            self.stream.write(f"{_ERASE}flaglint: {text}")
            self.stream.flush()
            self.shown = True

    def clear(self) -> None:
        """Erase the line, so that what is printed next starts on a clean one."""
        if self.shown:
            self.stream.write(_ERASE)
            self.stream.flush()
            self.shown = False

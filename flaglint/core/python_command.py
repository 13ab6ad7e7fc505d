"""A python command line's shape: where python is, the options before what it runs, and whether it
runs a module (`-m pkg.mod`) or a script path (Tunix's launch recognition reads it)."""

from __future__ import annotations

import posixpath
import re

PYTHON = re.compile(r"python(?:[0-9](?:\.[0-9]+)?)?")
# python options that take a value (the next word), as python's own parser reads them
_OPTIONS_WITH_VALUE = {"-X", "-W", "-Q"}


def is_python(program: str) -> bool:
    # most words of a command are no program at all: the substring test spares them the regex
    return "python" in program and PYTHON.fullmatch(posixpath.basename(program)) is not None


def python_targets(words: list[str]) -> list[tuple[str, str, int]]:
    """What each python in WORDS runs, in order: ("module", dotted name, index of argv[1]) or
    ("script", path, index of argv[1]). A python that runs a script may run the next
    (`python3 meter.py python3 -m …`)."""
    found = []
    for at, word in enumerate(words):
        if is_python(word):
            target = _after_python(words, at + 1)
            if target is not None:
                found.append(target)
    return found


def _after_python(words: list[str], at: int) -> tuple[str, str, int] | None:
    while at < len(words) and words[at].startswith("-") and words[at] != "-m":
        at += 2 if words[at] in _OPTIONS_WITH_VALUE else 1
    if at >= len(words):
        return None
    if words[at] == "-m":
        return ("module", words[at + 1], at + 2) if at + 1 < len(words) else None
    return "script", words[at], at + 1

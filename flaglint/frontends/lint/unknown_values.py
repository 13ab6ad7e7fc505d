"""The keys of a launch whose values are not known here, named in a note instead of judged: a
variable no file the script runs sets (its caller's: taken as set, to a value not known here), an
argument not given (`--arg`), a command's output. An unknown value is never an error."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from flaglint.core.reading import SCRIPT, Unreadable, read_text
from flaglint.render.bash.explorer import OTHER
from flaglint.render.bash.state import is_argument
from flaglint.render.bash.types import Value

_READ = re.compile(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*|[0-9]+)")
_TOKEN = re.compile(r"[^ \t\n]+")


def callers(inputs: Mapping[str, list]) -> frozenset[str]:
    """The variables the script reads and no file it runs sets or gives a default: its caller's,
    taken as set to a value not known here (explorer.Candidates gives them that one value)."""
    return frozenset(name for name, values in inputs.items() if not is_argument(name) and list(values) == [OTHER])


def unknown_tokens(flags: Value) -> list[Value]:
    """The flag string's tokens (split on blanks) that hold a value not known here, each with its
    origins (UnknownKeys.notes reads no other)."""
    if OTHER not in flags.text:
        return []
    return [Value(m.group(), flags.origins[m.start():m.end()]) for m in _TOKEN.finditer(flags.text) if OTHER in m.group()]


class UnknownKeys:
    """The notes on the `key=value` words whose value is not known here, one per key and place."""

    def __init__(self, callers: Iterable[str], given: Mapping[str, str] = {}):
        """`callers`: the caller's variables (callers()); `given`: what --env gives (never unknown)."""
        self.callers = frozenset(callers) - set(given)
        self._lines: dict[str, list[str]] = {}

    def notes(self, words: Iterable[Value]) -> set[str]:
        found = set()
        for word in words:
            key, equals, value = word.text.partition("=")
            if not equals or OTHER in key or OTHER not in value or not key:
                continue
            origin = next((o for o in list(word.origins[:len(key)]) if o is not None), None)
            where = f"{origin.file}:{origin.line}: " if origin is not None else ""
            read = self._read(origin)
            variables = sorted(name for name in read if name in self.callers)
            arguments = sorted((name for name in read if name.isdigit()), key=int)
            why = []
            if variables:
                why.append(f"it reads {', '.join(variables)}, which the script never sets: taken as set by its caller,"
                           f" to a value not known here (--env {variables[0]}=VALUE judges it)")
            if arguments:
                why.append(f"it reads the argument{'s' if len(arguments) > 1 else ''} {', '.join('$' + a for a in arguments)},"
                           " not given (--arg VALUE gives them)")
            found.add(f"{where}{key} is not judged: " + ("; ".join(why) if why else "its value is not known here"))
        return found

    def _read(self, origin) -> set[str]:
        """The variables and arguments the word at `origin` reads, as the script writes it."""
        if origin is None or not origin.file:
            return set()
        lines = self._lines.get(origin.file)
        if lines is None:
            try:
                lines = self._lines[origin.file] = read_text(origin.file, SCRIPT).splitlines()
            except Unreadable:
                lines = self._lines[origin.file] = []
        if not 0 < origin.line <= len(lines):
            return set()
        written = re.match(r"\S*", lines[origin.line - 1][origin.column - 1:]).group()
        return set(_READ.findall(written))

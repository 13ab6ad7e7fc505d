"""Flag strings as Tunix hands them to MaxText, with every token's span.

Tunix splits MAXTEXT_EXTRA_FLAGS with `str.split()` and refuses a token without `=`; MaxText
splits each token at its first `=` and lets the last occurrence of a key win.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from flaglint.core.findings import InputError
from flaglint.core.location import Location
from flaglint.core.reading import (
    ENV_FILE,
    FLAG_FILE,
    InputKind,
    decode,
    read_file,
    read_stdin,
    read_text,
)
from flaglint.read.config_chain import Chain

# Python's str.split() and the regex \s agree on what whitespace is (both use Py_UNICODE_ISSPACE).
_TOKEN = re.compile(r"\S+")
BOM = "\ufeff"


@dataclass(frozen=True)
class Token:
    """A token and where it is written: `where.offset`/`end_offset` are characters of the flag
    string (a shell-quoted argv word takes more of them than its text has)."""

    text: str
    where: Location

    @property
    def offset(self) -> int:
        return self.where.offset

    @property
    def end_offset(self) -> int:
        return self.where.end_offset

    @property
    def line(self) -> int:
        return self.where.line

    @property
    def column(self) -> int:
        return self.where.column

    @property
    def key(self) -> str | None:
        return self.text.split("=", 1)[0] if "=" in self.text else None

    @property
    def value(self) -> str | None:
        return self.text.split("=", 1)[1] if "=" in self.text else None

    def location(self, file: str | None = None) -> Location:
        return Location(line=self.line, column=self.column, end_column=self.column + self.end_offset - self.offset, file=file)


def tokenize(text: str) -> list[Token]:
    tokens = []
    line, line_start = 1, 0
    scanned = 0
    for match in _TOKEN.finditer(text):
        start = match.start()
        newlines = text.count("\n", scanned, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", scanned, start) + 1
        scanned = start
        tokens.append(Token(match.group(), Location(None, line, start - line_start + 1, offset=start, end_offset=match.end())))
    return tokens


@dataclass(frozen=True)
class FlagSource:
    """One flag string and where it came from (file None: the command line or stdin)."""

    text: str
    file: str | None = None
    name: str | None = None  # the environment variable it was read from
    argv: bool = False  # MaxText's own argv, written as shell words (read/argv.py), not a whitespace-split string
    chain: Chain | None = None  # the YAML config files the argv starts from (None: MaxText's base.yml)


def read_flag_sources(args: tuple[str, ...]) -> list[FlagSource]:
    """`check FLAGS…`, `check -` and `check NAME` (a set environment variable)."""
    if args == ("-",):
        return [FlagSource(decode(read_stdin(FLAG_FILE), "<stdin>"), file="<stdin>")]
    if len(args) == 1 and _looks_like_env_name(args[0]):
        name = args[0]
        if name not in os.environ:
            raise InputError(f"{name}: looks like an environment variable name, but it is not set")
        return [FlagSource(os.environ[name], name=name)]
    return [FlagSource(" ".join(args))]


def _looks_like_env_name(arg: str) -> bool:
    return re.fullmatch(r"[A-Z_][A-Z0-9_]*", arg) is not None


def read_text_file(path: str, kind: InputKind) -> str:
    """A flag, env, config or requirements file's text; a UTF-8 BOM some editors write is not part of the first key."""
    return read_text(path, kind).removeprefix(BOM)


def bom_length(path: str, kind: InputKind) -> int:
    """How many bytes of the file come before the text `read_text_file` gives (a BOM's, or none)."""
    return len(BOM.encode("utf-8")) if read_file(path, kind).startswith(BOM.encode("utf-8")) else 0


def read_env_assignments(items: tuple[str, ...], env_file: str | None) -> dict[str, str]:
    """`--env K=V` (repeatable) and `--env-file` (KEY=VALUE lines, # comments, optional export)."""
    env: dict[str, str] = {}
    if env_file:
        for number, raw in enumerate(read_text_file(env_file, ENV_FILE).splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            line = line.removeprefix("export ").strip()
            key, sep, value = line.partition("=")
            if not sep or not key:
                raise InputError(f"{env_file}:{number}: expected KEY=VALUE, got {raw!r}")
            env[key.strip()] = _unquote(value.strip())
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--env {item!r}: expected KEY=VALUE")
        env[key] = value
    return env


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value

"""Flag strings as Tunix hands them to MaxText, with every token's span.

Tunix splits MAXTEXT_EXTRA_FLAGS with `str.split()` and refuses a token without `=`; MaxText
splits each token at its first `=` and lets the last occurrence of a key win.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

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
from flaglint.core.records import FrozenRecord
from flaglint.read.config_chain import Chain

# Python's str.split() and the regex \s agree on what whitespace is (both use Py_UNICODE_ISSPACE).
_TOKEN = re.compile(r"\S+")
BOM = "\ufeff"


class Token(FrozenRecord):
    """A token and where it is written: `where.offset`/`end_offset` are characters of the flag
    string (a shell-quoted argv word takes more of them than its text has)."""

    __slots__ = field_names = ("text", "where")

    def __init__(self, text: str, where: Location):
        self.text = text
        self.where = where

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


# Past this many characters of flag strings kept with their tokens (tokenize), the oldest go.
TOKENIZED_CHARACTERS = 4_000_000


class _Tokenized:
    """The tokens of the flag strings tokenized last, by their text: a recipe's launches are a few
    flag strings read again and again (each with other Tunix variables)."""

    def __init__(self):
        self.tokens: dict[str, tuple[Token, ...]] = {}
        self.characters = 0

    def of(self, text: str) -> tuple[Token, ...]:
        found = self.tokens.get(text)
        if found is None:
            found = self.tokens[text] = tuple(_tokens(text))
            self.characters += len(text)
            while self.characters > TOKENIZED_CHARACTERS and len(self.tokens) > 1:
                oldest = next(iter(self.tokens))
                self.characters -= len(oldest)
                del self.tokens[oldest]
        return found


_TOKENIZED = _Tokenized()


def tokenize(text: str) -> list[Token]:
    """The string's tokens, each with its span (a list of the caller's own; the tokens are frozen)."""
    return list(_TOKENIZED.of(text))


def _tokens(text: str) -> list[Token]:
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


class FlagSource(FrozenRecord):
    """One flag string and where it came from (file None: the command line or stdin)."""

    __slots__ = field_names = ("text", "file", "name", "argv", "chain")

    def __init__(self, text: str, file: str | None = None, name: str | None = None, argv: bool = False,
                 chain: Chain | None = None):
        self.text = text
        self.file = file
        self.name = name  # the environment variable it was read from
        self.argv = argv  # MaxText's own argv, written as shell words (read/argv.py), not a whitespace-split string
        self.chain = chain  # the YAML config files the argv starts from (None: MaxText's base.yml)


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
    """`--env K=V` (repeatable, each word whole) and `--env-file`, read as python-dotenv's
    `dotenv_values` reads a `.env` file (read_dotenv)."""
    env = read_dotenv(read_text_file(env_file, ENV_FILE), env_file) if env_file else {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--env {item!r}: expected KEY=VALUE")
        env[key] = value
    return env


# python-dotenv's grammar, part by part: blank space, `export `, the key (bare, or in single quotes),
# `=` and the value (single-quoted: only \\ and \' escaped; double-quoted: backslash escapes, and it
# may run over lines; bare: to the end of the line, less a comment after whitespace), then only a
# comment to the end of the line. Compiled by re when first used: a check without an env file compiles none.
_SPACE = r"\s*"
_EXPORT = r"(?:export[^\S\r\n]+)?"
_KEY = r"'([^']+)'|([^=#\s]+)"
_EQUALS = r"[^\S\r\n]*(=[^\S\r\n]*)?"
_VALUE = r"'((?:\\'|[^'])*)'|\"((?:\\\"|[^\"])*)\"|([^\r\n]*)"
_LINE_END = r"[^\S\r\n]*(?:#[^\r\n]*)?[^\S\r\n]*(?:\r\n|\n|\r|$)"
_SINGLE_QUOTE_ESCAPES = r"\\[\\']"
_DOUBLE_QUOTE_ESCAPES = r"\\[\\'\"abfnrtv]"
_VARIABLE = r"\$\{(?P<name>[^}:]*)(?::-(?P<default>[^}]*))?\}"


def read_dotenv(text: str, where: str) -> dict[str, str]:
    """A `.env` file's values as python-dotenv's `dotenv_values` gives them: an inline comment after
    a bare value dropped, quotes removed and their escapes decoded, `${NAME}` and
    `${NAME:-default}` taken from the file's earlier values. This run's environment is not the
    launch's, so a name the file does not set and that has no default is refused; so is a line
    python-dotenv would skip with a warning. A key without `=` has no value and is left out."""
    env: dict[str, str] = {}
    for key, value, line in _dotenv_entries(text, where):
        env[key] = _resolved(value, env, where, line)
    return env


def dotenv_lines(text: str, where: str) -> dict[str, int]:
    """The line that sets each key of a `.env` file (the last, as the last value wins)."""
    return {key: line for key, _, line in _dotenv_entries(text, where)}


def _dotenv_entries(text: str, where: str) -> Iterator[tuple[str, str, int]]:
    """(key, value before `${…}` is resolved, line) for each assignment of a `.env` file."""
    position = re.compile(_SPACE).match(text).end()
    while position < len(text):
        line = text.count("\n", 0, position) + 1
        if text[position] == "#":
            position = re.compile(_LINE_END).match(text, position).end()
        else:
            position = re.compile(_EXPORT).match(text, position).end()
            key = re.compile(_KEY).match(text, position)
            equals = re.compile(_EQUALS).match(text, key.end()) if key else None
            value = re.compile(_VALUE).match(text, equals.end()) if equals and equals.group(1) else None
            end = re.compile(_LINE_END).match(text, (value or equals or key).end()) if key else None
            if end is None:
                raise InputError(f"{where}:{line}: expected KEY=VALUE, got {text[position:].splitlines()[0]!r}")
            if value is not None:
                yield key.group(1) or key.group(2), _dotenv_value(value, len(equals.group(1)) > 1), line
            position = end.end()
        position = re.compile(_SPACE).match(text, position).end()


def _dotenv_value(value: re.Match, after_space: bool) -> str:
    single, double, bare = value.groups()
    if single is not None:
        return re.sub(_SINGLE_QUOTE_ESCAPES, lambda m: m.group()[1], single)
    if double is not None:
        return re.sub(_DOUBLE_QUOTE_ESCAPES, lambda m: m.group().encode("ascii").decode("unicode-escape"), double)
    if after_space and bare.startswith("#"):
        return ""
    return re.sub(r"\s+#.*", "", bare).rstrip()


def _resolved(value: str, earlier: dict[str, str], where: str, line: int) -> str:
    def variable(match: re.Match) -> str:
        name, default = match.group("name"), match.group("default")
        if name in earlier:
            return earlier[name]
        if default is not None:
            return default
        raise InputError(f"{where}:{line}: ${{{name}}} is not set earlier in the file and has no default "
                         f"(`${{{name}:-VALUE}}`); flaglint does not take it from this shell")

    return re.sub(_VARIABLE, variable, value)

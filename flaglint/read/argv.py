"""MaxText's own argv (`train.py CONFIG.yml key=value …`): each argv word whole, so a value may
hold spaces (`prompt='I love to'`).

The words are kept as one shell-quoted string, so a fix edits it as it edits a flag string, and
each word's span is the quoted text a user would type.
"""

from __future__ import annotations

from collections.abc import Sequence

from flaglint.core.findings import InputError
from flaglint.core.location import Location
from flaglint.read.flags import FlagSource, Token

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

_BLANK = " \t\n"
_DOUBLE_ESCAPES = '$`"\\\n'


def argv_source(words: tuple[str, ...] | list[str], file: str | None = None) -> FlagSource:
    import shlex  # noqa: PLC0415 shlex: only for MaxText's argv

    return FlagSource(" ".join(shlex.quote(word) for word in words), file=file, argv=True)


def quoted_origins(words: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
    """For words given with the origin of each character (a script's, a manifest's), the origin
    of each character of argv_source's text (None for the quotes and blanks it adds)."""
    import shlex  # noqa: PLC0415 shlex: only for MaxText's argv

    origins: list[Any] = []
    for text, where in words:
        quoted = shlex.quote(text)
        if quoted == text:
            origins.extend(where)
        elif quoted == f"'{text}'":
            origins.extend([None, *where, None])
        else:  # a quote inside: each character points at the word's start
            origins.extend([where[0] if where else None] * len(quoted))
        origins.append(None)
    return origins[:-1]


def shell_words(text: str) -> list[Token]:
    """The words of a shell-quoted string (quotes and backslashes as bash reads them, no
    expansion), each with the span of its quoted text."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    line, line_start = 1, 0
    while i < n:
        if text[i] in _BLANK:
            if text[i] == "\n":
                line, line_start = line + 1, i + 1
            i += 1
            continue
        start, start_line, start_column = i, line, i - line_start + 1
        word: list[str] = []
        while i < n and text[i] not in _BLANK:
            char = text[i]
            if char == "'":
                end = text.find("'", i + 1)
                if end < 0:
                    raise InputError(f"column {i + 1}: unterminated single quote")
                word.append(text[i + 1:end])
                i = end + 1
            elif char == '"':
                i += 1
                while i < n and text[i] != '"':
                    if text[i] == "\\" and i + 1 < n and text[i + 1] in _DOUBLE_ESCAPES:
                        i += 1
                    word.append(text[i])
                    i += 1
                if i >= n:
                    raise InputError(f"column {start + 1}: unterminated double quote")
                i += 1
            elif char == "\\" and i + 1 < n:
                if text[i + 1] != "\n":
                    word.append(text[i + 1])
                i += 2
            else:
                word.append(char)
                i += 1
        tokens.append(Token("".join(word), Location(None, start_line, start_column, offset=start, end_offset=i)))
    return tokens

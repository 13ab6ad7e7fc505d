"""Bash words, lexed from the script's own text.

tree-sitter-bash gives the statement structure and each word's extent; the inside of a word is
lexed here instead, because the parser misreads several word shapes that recipes use (arithmetic
inside `${X:-...}`, single quotes inside a double-quoted default, a space before a closing quote,
backslash-newline) and because every literal character must keep its exact position.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Union

from flaglint.render.bash.arithmetic import parse_arith
from flaglint.render.bash.types import OTHER, Origin, Spans


class WordSyntaxError(Exception):
    def __init__(self, message: str, position: int):
        super().__init__(message)
        self.message = message
        self.position = position


class Source:
    """A script's text with the maps from tree-sitter byte offsets to characters, lines and columns."""

    def __init__(self, path: str, data: bytes):
        self.path = path
        self.data = data
        self.text = data.decode("utf-8")  # UnicodeDecodeError is the caller's to report
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        self._ascii = len(self.text) == len(data)
        self._byte_at: list[int] | None = None
        if not self._ascii:
            offsets, total = [], 0
            for ch in self.text:
                offsets.append(total)
                total += len(ch.encode("utf-8"))
            offsets.append(total)
            self._byte_at = offsets
        self._origins: dict[int, Origin] = {}
        self.spans: dict[tuple[int, int], object] = {}  # (start, end) -> the Code of a command substitution there

    def char_index(self, byte_offset: int) -> int:
        if self._byte_at is None:
            return byte_offset
        return bisect.bisect_left(self._byte_at, byte_offset)

    def byte_offset(self, index: int) -> int:
        return index if self._byte_at is None else self._byte_at[index]

    def line_of(self, index: int) -> int:
        return bisect.bisect_right(self.line_starts, index)

    def origin(self, index: int) -> Origin:
        found = self._origins.get(index)
        if found is None:
            line = bisect.bisect_right(self.line_starts, index)
            found = Origin(self.path, line, index - self.line_starts[line - 1] + 1, self.byte_offset(index))
            self._origins[index] = found
        return found


def spans(src: Source, indices: Sequence[int]) -> Spans:
    """The origins of the characters of `src` at `indices`, as spans of consecutive ones."""
    runs: list[tuple] = []
    for index in indices:
        if runs and runs[-1][1] + runs[-1][2] == index:
            runs[-1] = (src, runs[-1][1], runs[-1][2] + 1)
        else:
            runs.append((src, index, 1))
    return Spans(runs)


# ---- word parts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    text: str
    origins: Sequence  # one Origin per character (None for a character an escape produced)
    quoted: bool


UNSET_OPERATORS = (":-", "-", ":=", "=", ":+", "+", ":?", "?")  # the operators of a Param that handle an unset variable


@dataclass(frozen=True)
class Param:
    name: str  # a variable name, a positional digit string, or one of @ * # ? $ ! - 0
    quoted: bool
    line: int
    op: str = ""  # "", ":-", "-", ":=", "=", ":+", "+", ":?", "?", "%", "%%", "#", "##", "/", "//", "/#", "/%", "^^", "^", ",,", ",", ":"
    arg: "Word | None" = None
    arg2: "Word | None" = None  # the replacement of the / operators, the length of ${X:o:l}
    index: "Word | str | None" = None  # an array subscript; "@" and "*" as strings
    length: bool = False  # ${#X}
    indirect: bool = False  # ${!X}


@dataclass(frozen=True)
class Arith:
    expr: tuple  # an arithmetic node
    quoted: bool
    text: str


@dataclass(frozen=True)
class CmdSub:
    kind: str  # "dir" (the directory of the current file), "toplevel" (the repository root) or "opaque"
    text: str
    quoted: bool
    line: int
    start: int = -1  # the command inside, as character offsets in the file
    end: int = -1


Part = Union[Lit, Param, Arith, CmdSub]


@dataclass(frozen=True)
class Word:
    parts: tuple
    literal: str | None = field(init=False, compare=False)  # the word's text when it has no expansion

    def __post_init__(self) -> None:
        literal = "".join(p.text for p in self.parts) if all(isinstance(p, Lit) for p in self.parts) else None
        object.__setattr__(self, "literal", literal)

    @cached_property
    def literal_pattern(self) -> re.Pattern:
        """A literal word as a glob pattern (`case` arms, `[[ x == pattern ]]`), compiled once for
        every run of the script (the witness of each finding runs it again)."""
        return compile_glob([(p.text, p.quoted) for p in self.parts])

    def mutates(self) -> bool:
        """Whether expanding the word can change more than its value (${X:=d}, arithmetic assignment, ${X:?})."""
        for p in self.parts:
            if isinstance(p, Param):
                if p.op in (":=", "=", ":?", "?"):  # ? can end the script
                    return True
                if any(w is not None and not isinstance(w, str) and w.mutates() for w in (p.arg, p.arg2, p.index)):
                    return True
            elif isinstance(p, Arith) and ARITH_ASSIGN.search(p.text):
                return True
        return False


ARITH_ASSIGN = re.compile(r"(?<![=!<>])=(?!=)|\+\+|--")

# The idioms for this file's directory and the repository root, on the text without quotes and blanks.
_SOURCE = re.compile(r"\$(?:\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE|0|\{0\})")
_RESOLVE = re.compile(r"\$\((?:readlink-[fem]|realpath)S\)")
_DIRNAME = re.compile(r"\$\(dirnameS\)")
_CD_PWD = re.compile(r"\$\(cd(?:-P)?D(?:>/dev/null(?:2>&1)?)?(?:&&|;)pwd(?:-P)?\)|\$\(realpathD\)")
# `$(cd "$(dirname "$0")/.." && pwd)`: a folder named from the file's own (bash's cd fails where it is
# missing, and `&&` then prints nothing: the folder is checked where the value is made)
_CD_RELATIVE_PWD = re.compile(r"\$\(cd(?:-P)?D(?P<relative>(?:/[\w.-]+)+)/?(?:>/dev/null(?:2>&1)?)?&&pwd(?:-P)?\)")
_RELATIVE_DIR = re.compile(r"D((?:/[\w.-]+)+)")
_TOPLEVEL = "$(gitrev-parse--show-toplevel)"


def substitution_kind(text: str) -> str:
    """"dir" for the idioms that give the current file's directory, "dir/REL" for those that give a
    folder relative to it (`/..`), "toplevel" for the repository root."""
    canon = re.sub(r"[\s\"]", "", text)
    if canon == _TOPLEVEL:
        return "toplevel"
    canon = _SOURCE.sub("S", canon)
    while True:
        reduced = _CD_PWD.sub("D", _DIRNAME.sub("D", _RESOLVE.sub("S", canon)))
        reduced = _CD_RELATIVE_PWD.sub(lambda m: "D" + m["relative"], reduced)
        if reduced == canon:
            if canon == "D":
                return "dir"
            relative = _RELATIVE_DIR.fullmatch(canon)
            return "dir" + relative[1] if relative and text.lstrip().startswith("$(cd") else "opaque"
        canon = reduced


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = "@*#?$!-0123456789"
_DEFAULT_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?")
_PATTERN_OPS = ("%%", "%", "##", "#", "//", "/#", "/%", "/")
_CASE_OPS = ("^^", "^", ",,", ",")


class Lexer:
    """Lexes text[start:end] of a Source into a Word."""

    def __init__(self, src: Source, start: int, end: int):
        self.src = src
        self.text = src.text
        self.pos = start
        self.end = end

    # -- buffer of literal characters --
    def _flush(self, parts: list, buf: list, quoted: bool) -> None:
        if buf:
            parts.append(Lit("".join([self.text[i] for i in buf]), spans(self.src, buf), quoted))
            buf.clear()

    def word(self) -> Word:
        parts = self._unquoted(stops="")
        if self.pos < self.end:
            raise WordSyntaxError("unexpected character in word", self.pos)
        return Word(tuple(parts))

    def _peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.text[i] if i < self.end else ""

    def _unquoted(self, stops: str) -> list:
        """Unquoted context; ends at the end or at one of `stops` (at brace depth 0)."""
        parts: list = []
        buf: list = []
        depth = 0
        while self.pos < self.end:
            c = self.text[self.pos]
            if c in stops and depth == 0:
                break
            if c == "{" and "}" in stops:
                depth += 1
            elif c == "}" and depth:
                depth -= 1
            if c == "'":
                self._flush(parts, buf, False)
                close = self.text.find("'", self.pos + 1, self.end)
                if close < 0:
                    raise WordSyntaxError("unterminated single quote", self.pos)
                buf.extend(range(self.pos + 1, close))
                self._flush(parts, buf, True)
                parts.append(Lit("", (), True))  # '' is an empty field, not nothing
                self.pos = close + 1
            elif c == '"':
                self._flush(parts, buf, False)
                self.pos += 1
                inner = self._dquoted(stops='"', default=False)
                parts.extend(inner)
                if not any(type(p) is Param and "@" in (p.name, p.index) for p in inner):
                    parts.append(Lit("", (), True))  # "$X" is one field even when X is empty; "$@" may be none
                if self._peek() != '"':
                    raise WordSyntaxError("unterminated double quote", self.pos)
                self.pos += 1
            elif c == "\\":
                nxt = self._peek(1)
                if nxt == "\n":
                    self.pos += 2
                elif nxt:
                    self._flush(parts, buf, False)
                    buf.append(self.pos + 1)
                    self._flush(parts, buf, True)
                    self.pos += 2
                else:
                    buf.append(self.pos)
                    self.pos += 1
            elif c == "$" and self._peek(1) == "'":
                self._flush(parts, buf, False)
                parts.append(self._ansi_c())
            elif c == "$" or c == "`":
                part = self.expansion(quoted=False)
                if part is None:
                    buf.append(self.pos)
                    self.pos += 1
                else:
                    self._flush(parts, buf, False)
                    parts.append(part)
            else:
                buf.append(self.pos)
                self.pos += 1
        self._flush(parts, buf, False)
        return parts

    def _dquoted(self, stops: str, default: bool) -> list:
        """Inside double quotes (default=False), or a default word of ${X:-...} inside double quotes
        (default=True: single quotes are plain characters, a nested "..." quotes, `}` ends it)."""
        parts: list = []
        buf: list = []
        escapable = '$`"\\' + ("}" if default else "")
        depth = 0
        while self.pos < self.end:
            c = self.text[self.pos]
            if default and c == "{":
                depth += 1
            if c in stops and depth == 0:
                break
            if default and c == "}":
                depth -= 1
            if c == "\\":
                nxt = self._peek(1)
                if nxt == "\n":
                    self.pos += 2
                    continue
                if nxt and nxt in escapable:
                    buf.append(self.pos + 1)
                    self.pos += 2
                    continue
                buf.append(self.pos)
                self.pos += 1
            elif c == '"' and default:
                self._flush(parts, buf, True)
                self.pos += 1
                parts.extend(self._dquoted(stops='"', default=False))
                if self._peek() != '"':
                    raise WordSyntaxError("unterminated double quote", self.pos)
                self.pos += 1
            elif c == "$" or c == "`":
                part = self.expansion(quoted=True)
                if part is None:
                    buf.append(self.pos)
                    self.pos += 1
                else:
                    self._flush(parts, buf, True)
                    parts.append(part)
            else:
                buf.append(self.pos)
                self.pos += 1
        self._flush(parts, buf, True)
        return parts

    def _ansi_c(self) -> Lit:
        escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "e": "\x1b", "0": "\0"}
        self.pos += 2
        buf: list = []
        while self.pos < self.end and self.text[self.pos] != "'":
            if self.text[self.pos] == "\\" and self.pos + 1 < self.end:
                buf.append((escapes.get(self.text[self.pos + 1], "\\" + self.text[self.pos + 1]), self.pos))
                self.pos += 2
            else:
                buf.append(self.pos)
                self.pos += 1
        if self.pos >= self.end:
            raise WordSyntaxError("unterminated $'...'", self.pos)
        self.pos += 1
        text, origins = [], []
        for item in buf:
            if isinstance(item, int):
                text.append(self.text[item])
                origins.append(self.src.origin(item))
            else:
                text.append(item[0])
                origins.extend([None] * len(item[0]))  # an escape: not the file's own character
        return Lit("".join(text), tuple(origins), True)

    def _line(self, index: int) -> int:
        return self.src.line_of(index)

    def expansion(self, quoted: bool) -> Part | None:
        """The `$` or backquote expansion at pos as a word part, pos moved past it; None where the
        `$` is a plain character (pos stays)."""
        start = self.pos
        c = self.text[self.pos]
        if c == "`":
            close = self.text.find("`", self.pos + 1, self.end)
            if close < 0:
                raise WordSyntaxError("unterminated backquote", self.pos)
            self.pos = close + 1
            return CmdSub("opaque", self.text[start:self.pos], quoted, self._line(start), start + 1, close)
        nxt = self._peek(1)
        if nxt == "(":
            if self._peek(2) == "(":
                close = self._arith_end(self.pos + 3)
                if close is not None:
                    inner_start = self.pos + 3
                    self.pos = close + 2
                    return Arith(lex_arith(self.src, inner_start, close), quoted, self.text[inner_start:close])
            close = self._paren_end(self.pos + 2)
            self.pos = close + 1
            text = self.text[start:self.pos]
            return CmdSub(substitution_kind(text), text, quoted, self._line(start), start + 2, close)
        if nxt == "{":
            self.pos += 2
            return self._braced(quoted, start)
        m = _NAME.match(self.text, self.pos + 1, self.end)
        if m:
            self.pos = m.end()
            return Param(m.group(), quoted, self._line(start))
        if nxt and nxt in _SPECIAL:
            self.pos += 2
            return Param(nxt, quoted, self._line(start))
        return None

    def _arith_end(self, i: int) -> int | None:
        """Index of the `))` closing an arithmetic expansion whose text starts at i, or None."""
        depth = 0
        while i < self.end:
            c = self.text[i]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    return i if i + 1 < self.end and self.text[i + 1] == ")" else None
                depth -= 1
            elif c in "'\"":
                close = self.text.find(c, i + 1, self.end)
                if close < 0:
                    return None
                i = close
            i += 1
        return None

    def _paren_end(self, i: int) -> int:
        depth = 0
        while i < self.end:
            c = self.text[i]
            if c == "\\":
                i += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    return i
                depth -= 1
            elif c == "'":
                close = self.text.find("'", i + 1, self.end)
                if close < 0:
                    break
                i = close
            elif c == '"':
                i = self._dquote_end(i + 1)
            i += 1
        raise WordSyntaxError("unterminated command substitution", i)

    def _dquote_end(self, i: int) -> int:
        while i < self.end:
            c = self.text[i]
            if c == "\\":
                i += 2
                continue
            if c == '"':
                return i
            if c == "$" and i + 1 < self.end and self.text[i + 1] == "(":
                i = self._paren_end(i + 2)
            i += 1
        raise WordSyntaxError("unterminated double quote", i)

    def _braced(self, quoted: bool, start: int) -> Param:
        line = self._line(start)
        length = indirect = False
        c = self._peek()
        if c == "#" and self._peek(1) not in ("}", "") and (
            _NAME.match(self.text, self.pos + 1, self.end) or self._peek(1) in _SPECIAL
        ):
            length = True
            self.pos += 1
        elif c == "!" and (_NAME.match(self.text, self.pos + 1, self.end) or self._peek(1) in _SPECIAL):
            indirect = True
            self.pos += 1
        m = _NAME.match(self.text, self.pos, self.end)
        if m:
            name = m.group()
            self.pos = m.end()
        elif self._peek() and self._peek() in _SPECIAL:
            m = re.compile(r"[0-9]+").match(self.text, self.pos, self.end)
            name = m.group() if m else self._peek()
            self.pos = m.end() if m else self.pos + 1
        else:
            raise WordSyntaxError("bad parameter expansion", start)
        index: Word | str | None = None
        if self._peek() == "[":
            close = self.text.find("]", self.pos, self.end)
            if close < 0:
                raise WordSyntaxError("unterminated subscript", self.pos)
            inner = self.text[self.pos + 1:close]
            if inner in ("@", "*"):
                index = inner
            else:
                index = Lexer(self.src, self.pos + 1, close).word()
            self.pos = close + 1
        if self._peek() == "}":
            self.pos += 1
            return Param(name, quoted, line, index=index, length=length, indirect=indirect)
        if length:
            raise WordSyntaxError("bad ${#...} expansion", start)
        for op in _DEFAULT_OPS + _PATTERN_OPS + _CASE_OPS + (":",):
            if self.text.startswith(op, self.pos):
                break
        else:
            raise WordSyntaxError("unsupported parameter expansion", start)
        self.pos += len(op)
        arg2 = None
        if op in _DEFAULT_OPS:
            arg = self._arg(quoted, "}", pattern=False)
        elif op in ("/", "//", "/#", "/%"):
            arg = self._arg(quoted, "/}", pattern=True)
            if self._peek() == "/":
                self.pos += 1
                arg2 = self._arg(quoted, "}", pattern=False)
        elif op == ":":
            arg = self._arg(quoted, ":}", pattern=True)
            if self._peek() == ":":
                self.pos += 1
                arg2 = self._arg(quoted, "}", pattern=True)
        else:
            arg = self._arg(quoted, "}", pattern=True)
        if self._peek() != "}":
            raise WordSyntaxError("unterminated parameter expansion", start)
        self.pos += 1
        return Param(name, quoted, line, op, arg, arg2, index, length, indirect)

    def _arg(self, quoted: bool, stops: str, pattern: bool) -> Word:
        if quoted and not pattern:
            return Word(tuple(self._dquoted(stops=stops, default=True)))
        return Word(tuple(self._unquoted(stops=stops)))

    def heredoc(self) -> Word:
        """An expanded here-document's body (lex_heredoc)."""
        return Word(tuple(self._dquoted(stops="", default=False)))


def lex_word(src: Source, start: int, end: int) -> Word:
    return Lexer(src, start, end).word()


def lex_heredoc(src: Source, start: int, end: int, expand: bool) -> Word:
    """A here-document's body: as written when its delimiter is quoted, else with its expansions
    (as inside double quotes, where a `"` is a plain character)."""
    if not expand:
        return Word((Lit(src.text[start:end], Spans(((src, start, end - start),)), True),))
    return Lexer(src, start, end).heredoc()


def lex_arith(src: Source, start: int, end: int) -> tuple:
    """The arithmetic in src.text[start:end], its `$` and backquote expansions lexed as word parts."""

    def expansion_at(at: int) -> tuple[Part | None, int]:
        lexer = Lexer(src, at, end)
        return lexer.expansion(quoted=True), lexer.pos

    return parse_arith(src.text, start, end, expansion_at)


# ---- glob patterns ----------------------------------------------------------------------------

_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
    "word": "a-zA-Z0-9_",
}


def glob_to_regex(pieces: list[tuple[str, bool]]) -> str:
    """A Python regex for a bash glob given as (text, quoted) pieces: quoted text matches itself."""
    out: list[str] = []
    chars: list[tuple[str, bool]] = [(ch, q) for text, q in pieces for ch in text]
    i = 0
    while i < len(chars):
        ch, q = chars[i]
        if q:
            out.append(re.escape(ch))
        elif ch == "\\" and i + 1 < len(chars):
            out.append(re.escape(chars[i + 1][0]))
            i += 1
        elif ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            cls, i = _bracket(chars, i)
            out.append(cls)
            continue
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _bracket(chars: list[tuple[str, bool]], i: int) -> tuple[str, int]:
    j = i + 1
    negate = j < len(chars) and chars[j][0] in "!^" and not chars[j][1]
    if negate:
        j += 1
    body: list[str] = []
    first = True
    while j < len(chars):
        ch, q = chars[j]
        if ch == "]" and not first and not q:
            return "[" + ("^" if negate else "") + "".join(body) + "]", j + 1
        if ch == "[" and not q and j + 1 < len(chars) and chars[j + 1][0] == ":":
            end = "".join(c for c, _ in chars[j:]).find(":]")
            if end > 0:
                name = "".join(c for c, _ in chars[j + 2:j + end])
                body.append(_CLASSES.get(name, ""))
                j += end + 2
                first = False
                continue
        if ch == "-" and not q and not first and j + 1 < len(chars) and chars[j + 1][0] != "]":
            body.append("-")
        else:
            body.append(re.escape(ch) if ch in "\\]^-[" else ch)
        first = False
        j += 1
    return re.escape("["), i + 1  # no closing bracket: a literal [


_compiled: dict[tuple, re.Pattern] = {}


def compile_glob(pieces: list[tuple[str, bool]]) -> re.Pattern:
    key = tuple(pieces)
    found = _compiled.get(key)
    if found is None:
        if len(_compiled) > 4096:
            _compiled.clear()
        found = _compiled[key] = re.compile(glob_to_regex(pieces), re.DOTALL)
    return found


def glob_sample(pieces: list[tuple[str, bool]]) -> str | None:
    """A string the glob matches (for exploring the branch that the pattern selects)."""
    sample = []
    chars: list[tuple[str, bool]] = [(ch, q) for text, q in pieces for ch in text]
    i = 0
    while i < len(chars):
        ch, q = chars[i]
        if not q and ch == "*":
            if sample and sample[-1] == "=":
                sample.append(OTHER)  # an option's value (`--model=*`): some value, not known here
        elif not q and ch == "?":
            sample.append("x")
        elif not q and ch == "[":
            cls, j = _bracket(chars, i)
            rx = re.compile(cls)
            pick = next((c for c in "xa0_-.A" if rx.fullmatch(c)), None)
            if pick is None:
                return None
            sample.append(pick)
            i = j
            continue
        elif not q and ch == "\\" and i + 1 < len(chars):
            sample.append(chars[i + 1][0])
            i += 1
        else:
            sample.append(ch)
        i += 1
    text = "".join(sample)
    return text if compile_glob(pieces).fullmatch(text) else None

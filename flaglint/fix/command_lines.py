"""A fix of a MaxText command line in a recipe script, written as edits of the words the script
wrote.

The fix is made on the command line's argv (as `check` fixes MaxText's argv) and each of its edits
is moved to the word of the script it is about: a `key=value` word is replaced whole, in the
quoting it was written in; a dropped word goes with one blank next to it (never with a line's
continuation backslash); a new word follows the command line's last word. Inside a string a shell
reads again (XPK's `--command "…"`) a word is edited only as plain characters that need no quotes.
A word the script does not write as one literal (a variable's expansion in it, a file it sources)
is not edited: the fix is then not offered.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from flaglint.core.edits import Edit, joined_drops
from flaglint.core.findings import Fix, InputError
from flaglint.read.argv import argv_source, shell_words
from flaglint.render.bash.types import Value

_BLANKS = (b" ", b"\t")


def command_fix(fixes: list[Fix], argv: list[Value], last: Value, script: Path, data: bytes) -> Fix | None:
    """The first of `fixes` (the fixes of the command line's argv; a safe one first) whose every
    edit is an edit of words the script `script` (whose bytes are `data`) wrote; None when there is
    none. `argv`: the words of the script that make the argv; `last`: the command line's last word."""
    for fix in sorted(fixes, key=lambda f: not f.safe):
        edits = _script_edits(fix, argv, last, script, data)
        if edits is not None:
            return fix.replace(edits=edits)
    return None


def _script_edits(fix: Fix, argv: list[Value], last: Value, script: Path, data: bytes) -> list[Edit] | None:
    text = argv_source([w.text for w in argv]).text
    spans, at = [], 0
    for word in argv:
        quoted = shlex.quote(word.text)
        spans.append((at, at + len(quoted)))
        at += len(quoted) + 1
    edits, elsewhere = [], []
    for edit in fix.edits:
        if not edit.written:
            return None  # a Tunix variable: a command line has none to set
        if edit.file is not None:  # already a byte edit of another file (a Tunix override file)
            elsewhere.append(edit)
            continue
        if edit.start == edit.end == len(text):  # a new word, after the command line's last word
            written = _written(last, script, data)
            new = _new_word(written, _unquoted(edit.new))
            if new is None:
                return None
            edits.append(Edit.in_bytes(data, written[1], written[1], " " + new, str(script), applicability=fix.applicability))
            continue
        old = text[edit.start:edit.end]
        start = edit.start + len(old) - len(old.lstrip())
        end = start + len(old.strip())
        index = next((i for i, span in enumerate(spans) if span == (start, end)), None)
        written = _written(argv[index], script, data) if index is not None else None
        if written is None:
            return None
        word_start, word_end, _ = written
        if edit.new.strip():
            new = _new_word(written, _unquoted(edit.new))
            if new is None:
                return None
            edits.append(Edit.in_bytes(data, word_start, word_end, new, str(script), applicability=fix.applicability))
        else:
            edits.append(Edit.in_bytes(data, *_with_one_blank(data, word_start, word_end), "", str(script),
                                       applicability=fix.applicability))
    return [*joined_drops(edits, data, lambda start, end: Edit.in_bytes(data, start, end, "", str(script), applicability=fix.applicability)),
            *elsewhere]


def _written(word: Value, script: Path, data: bytes) -> tuple[int, int, str | None] | None:
    """The byte span of `script` that wrote `word`, and the word as written there (with its
    quotes); None unless the script wrote the whole word as one literal. The word as written is
    None for a word inside a quoted string that a shell reads again (an XPK `--command "…"`): its
    characters are the span's own."""
    origins = word.origins
    if not word.text or len(origins) != len(word.text) or any(o is None for o in origins):
        return None
    if any(o.file is None or Path(o.file).resolve() != script.resolve() for o in origins):
        return None
    first = origins[0].offset
    line_start = data.rfind(b"\n", 0, first) + 1
    line_end = data.find(b"\n", first)
    line = data[line_start:len(data) if line_end < 0 else line_end].decode("utf-8", "replace")
    try:
        tokens = shell_words(line)
    except InputError:
        return _in_string(word, data)  # a quote the line does not close: a string over several lines
    for token in tokens:
        start = line_start + len(line[:token.offset].encode("utf-8"))
        end = line_start + len(line[:token.end_offset].encode("utf-8"))
        if start <= first < end:
            if token.text == word.text and all(start <= o.offset < end for o in origins):
                return start, end, line[token.offset:token.end_offset]
            return _in_string(word, data)
    return None


def _in_string(word: Value, data: bytes) -> tuple[int, int, None] | None:
    """The span of a word that is part of a quoted string in the script: its characters written
    there one after another, as they are, between blanks or the string's quotes."""
    start = word.origins[0].offset
    end = start + len(word.text.encode("utf-8"))
    if data[start:end].decode("utf-8", "replace") != word.text:
        return None
    if any(o.offset != start + len(word.text[:i].encode("utf-8")) for i, o in enumerate(word.origins)):
        return None
    if data[start - 1:start] not in (b" ", b"\t", b'"', b"'") or data[end:end + 1] not in (b" ", b"\t", b'"', b"'"):
        return None
    return start, end, None


def _unquoted(new: str) -> str | None:
    """The one word an edit of the argv text writes (in that text it is shell-quoted: a mesh
    shape's parentheses)."""
    try:
        words = shlex.split(new)
    except ValueError:
        return None
    return words[0] if len(words) == 1 else None


def _new_word(written: tuple[int, int, str | None] | None, word: str | None) -> str | None:
    """The new word as the script must write it; None where it cannot (no span, or a word inside a
    string that would need quotes there)."""
    if written is None or word is None:
        return None
    if written[2] is None:
        return word if shlex.quote(word) == word else None
    return _requote(written[2], word)


def _requote(written: str, word: str) -> str:
    """The new word in the quoting the old one was written in: all of it quoted ('k=v', "k=v"), or
    its value (k="v"); shell-quoted where that quoting cannot hold it."""
    key, eq, value = word.partition("=")
    for quote in ("'", '"'):
        if len(written) > 1 and written[0] == quote and written[-1] == quote and _fits(word, quote):
            return f"{quote}{word}{quote}"
        if eq and written.startswith(f"{key}={quote}") and written.endswith(quote) and _fits(value, quote):
            return f"{key}={quote}{value}{quote}"
    return shlex.quote(word)


def _fits(text: str, quote: str) -> bool:
    """Whether `text` reads as itself inside that quote (nothing there that bash would expand or end)."""
    return quote not in text if quote == "'" else not any(c in text for c in '"$`\\!')


def _with_one_blank(data: bytes, start: int, end: int) -> tuple[int, int]:
    """A dropped word's span with one blank next to it: the one before it, unless the word starts
    its line (its indentation stays), then the one after it. A continuation backslash stays."""
    line_start = data.rfind(b"\n", 0, start) + 1
    before = start > line_start and data[start - 1:start] in _BLANKS
    after = data[end:end + 1] in _BLANKS
    if before and (data[line_start:start].strip() or not after):
        return start - 1, end
    if after:
        return start, end + 1
    return start, end

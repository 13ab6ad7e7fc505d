"""What bash's `printf FORMAT ARGUMENTS…` writes, for the formats a launcher's captured functions use
(`printf '%s' "$flags"`, `printf -- '--%s=%s ' k v`, `printf '%d\\n' "$n"`): `%s`, `%d` and `%i` with
flags, width and precision, `%%`, and the common backslash escapes of the format. The format is used
again while arguments are left, as bash uses it. Anything else (`%q`, `%b`, `%x`, `%f`, a width from
an argument, an octal escape, a number bash would read in another base) is not known here: None."""

from __future__ import annotations

import re
from collections.abc import Sequence

from flaglint.render.bash.types import joined_origins

# a directive: flags, width, precision, conversion; or a backslash escape; or a run of plain text
_PIECE = re.compile(r"%(?P<flags>[-+ 0#]*)(?P<width>\d*)(?:\.(?P<precision>\d*))?(?P<conversion>.?)|\\(?P<escape>.?)|[^%\\]+",
                    re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_DECIMAL = re.compile(r"[+-]?(?:0|[1-9]\d*)")

Written = list[tuple[str, Sequence]]  # pieces of text, each with its characters' origins (Spans, or one a character)
# A piece of a captured function's output that is not known here: the captured value is not either.
OPAQUE_OUTPUT = (None, ())


def printf_output(format_text: str, arguments: list[tuple[str, Sequence]]) -> Written | None:
    """What printf writes: pieces of text with origins (an argument written as it is keeps its own;
    other text has none). `arguments`: each argument's text and origins. None where the format holds
    what is not followed here."""
    pieces = list(_PIECE.finditer(format_text))
    written: Written = []
    at = 0
    while True:
        consumed = False
        for m in pieces:
            if m["escape"] is not None:
                if m["escape"] not in _ESCAPES:
                    return None
                written.append((_ESCAPES[m["escape"]], (None,)))
            elif m.group().startswith("%"):
                conversion = m["conversion"]
                if conversion == "%" and m.group() == "%%":
                    written.append(("%", (None,)))
                    continue
                if conversion not in ("s", "d", "i"):
                    return None
                text, origins = arguments[at] if at < len(arguments) else ("", ())
                consumed = consumed or at < len(arguments)
                at += 1
                piece = _directive(m, conversion, text, origins)
                if piece is None:
                    return None
                written.append(piece)
            else:
                written.append((m.group(), (None,) * len(m.group())))
        if not consumed or at >= len(arguments):
            return written


def _directive(m: re.Match, conversion: str, text: str, origins: Sequence) -> tuple[str, Sequence] | None:
    flags, width, precision = m["flags"], m["width"], m["precision"]
    if conversion == "s":
        if set(flags) - {"-"}:
            return None
        core = text if precision is None else text[: int(precision or 0)]
        kept = origins[: len(core)] if len(origins) >= len(core) else (None,) * len(core)
        shown = ("%" + flags + width + "s") % core
        pad = (None,) * (len(shown) - len(core))
        return shown, joined_origins([kept, pad] if "-" in flags else [pad, kept])
    if text.strip() == "":
        number = 0
    elif _DECIMAL.fullmatch(text.strip()):
        number = int(text.strip())
    else:  # another base, a character's code, or no number at all (bash complains and writes 0)
        return None
    if precision is not None or "#" in flags:
        return None
    shown = ("%" + flags + width + "d") % number
    return shown, (None,) * len(shown)

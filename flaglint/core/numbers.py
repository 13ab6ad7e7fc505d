"""Numbers of any size, as exact values. Python refuses to convert an int of more than 4,300 decimal
digits to or from text (`sys.set_int_max_str_digits`, process-wide and left as it is), and `float()`
of an int past 1.8e308 raises: MaxText and Tunix stop there, flaglint gives their finding instead.
"""

from __future__ import annotations

import re

_CHUNK = 4_000  # decimal digits converted at once, below the 4,300 Python allows
_DIGITS = r"[0-9]+"  # compiled by re when first used: a check compiles only the patterns it uses
_SHOWN_BITS = 2**20  # an int of more bits is shown in hexadecimal (its decimal digits take long to find)


def decimal_int(digits: str) -> int:
    """The exact value of a string of ASCII decimal digits of any length (divide and conquer, so a
    million digits take a fraction of a second)."""
    if not re.fullmatch(_DIGITS, digits):
        raise ValueError(f"not decimal digits: {shown_text(digits)!r}")
    return _decimal(digits)


def _decimal(digits: str) -> int:
    if len(digits) <= _CHUNK:
        return int(digits)
    low = len(digits) // 2
    return _decimal(digits[:-low]) * 10**low + _decimal(digits[-low:])


def decimal_text(value: int) -> str:
    """VALUE in decimal, of any length (divide and conquer, as decimal_int)."""
    if value < 0:
        return "-" + decimal_text(-value)
    if value.bit_length() <= _CHUNK * 3:  # under 4,000 bits: under 1,300 digits
        return str(value)
    low = (value.bit_length() * 3 // 10) // 2  # about half its digits
    high, rest = divmod(value, 10**low)
    return decimal_text(high) + decimal_text(rest).rjust(low, "0")


def int_text(value: int) -> str:
    """VALUE as a YAML integer that reads back as the same value: decimal where Python can write it,
    else hexadecimal (YAML 1.1's `0x…`, which has no length limit)."""
    try:
        return str(value)
    except ValueError:
        return f"-{hex(-value)}" if value < 0 else hex(value)


def as_float(value: int | float) -> float | None:
    """VALUE as a float, or None where an int is past a float's range."""
    try:
        return float(value)
    except OverflowError:
        return None


def shown_text(text: str, width: int = 40) -> str:
    """TEXT cut to WIDTH characters for a message, saying how long it was."""
    return text if len(text) <= width else f"{text[: width // 2]}…{text[-(width // 4):]} ({len(text):,} characters)"


def shown_value(value: object) -> str:
    """A value for a message, as repr() writes it, but an int in full only when short, else its
    first and last digits and its length."""
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            return repr(value)
        except ValueError:  # a list or dict holding an int too long to write
            return f"a {type(value).__name__} holding an integer of over 4,300 digits"
    text = decimal_text(value) if value.bit_length() <= _SHOWN_BITS else int_text(value)
    if len(text) <= 40:
        return text
    kind = "hexadecimal digits" if "x" in text else "digits"
    count = len(text.lstrip("-")) - (2 if "x" in text else 0)
    return f"{text[:16]}…{text[-4:]} ({count:,} {kind})"

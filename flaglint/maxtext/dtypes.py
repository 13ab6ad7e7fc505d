"""Names `jax.numpy.dtype` (numpy's `dtype`) refuses for certain, whatever numpy a trainer has.

numpy reads far more than names: type codes with sizes (`f8`, `S10`), byte orders, comma-separated
fields, the names ml_dtypes registers. A word of letters and underscores only is none of those
forms, so numpy reads it only as a name or a one-letter type code: a word outside every numpy
release's names and codes (2.x's and 1.x's aliases, measured on numpy 2.5) is refused. Anything
else is left to MaxText (flaglint's FL016 names the check it does not judge).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

_WORD = r"[A-Za-z_]+"  # compiled by re when first used: a check compiles only the patterns it uses
# numpy's names of letters only (sctypeDict's), and 1.x's aliases since removed, compared in lower case
_NAMES = frozenset((
    "bool", "bool_", "byte", "bytes", "bytes_", "cdouble", "cfloat", "clongdouble", "clongfloat", "complex", "complex_",
    "csingle", "double", "float", "float_", "half", "int", "int_", "intc", "intp", "long", "longcomplex", "longdouble",
    "longfloat", "longlong", "object", "object_", "short", "single", "singlecomplex", "str", "str_", "string_", "ubyte",
    "uint", "uintc", "uintp", "ulong", "ulonglong", "unicode", "unicode_", "ushort", "void",
))  # fmt: skip
# one-letter type codes of numpy 2.x (measured) and 1.x ('a', 'u', 'w' kept for safety)
_CODES = frozenset("abcdefghilmnpquwBDFGHILMNOPQSTUV")


def refused_dtype_name(value: Any) -> bool:
    """Whether numpy's dtype() refuses VALUE for certain: a word of letters and underscores that is
    no numpy name or type code."""
    if not isinstance(value, str) or not re.fullmatch(_WORD, value):
        return False
    return value not in _CODES if len(value) == 1 else value.lower() not in _NAMES

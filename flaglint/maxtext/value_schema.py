"""What MaxText accepts for a key's value, as a JSON Schema (draft 2020-12) fragment.

A config file's value is YAML 1.1 as pyconfig loads it, then pyconfig's clean-up and pydantic's
lax validation (values.py `type_parsed`): an int key takes `1.0`, `true` and `"12"`, a float key
`1e-5` and `"inf"`, a bool key `"yes"` and `0`, a nullable key `none` in any case. The fragment
accepts every value `type_parsed` accepts; where a string stands for a number, the key's bounds
(`>= 1`) are not applied to it, as JSON Schema cannot compare a string with a number, so such a
string is accepted whatever it says. The special values (null, a `none` string, the empty string)
are decided by `type_parsed` itself, key by key, so pyconfig's clean-up is not written twice.
tests/maxtext/test_value_schema.py holds the fragments to `type_parsed` on drawn values.
"""

from __future__ import annotations

from typing import Any

from flaglint.maxtext.values import (
    FALSE_WORDS,
    INT_TEXT,
    MERGED_RULE_LISTS,
    TRUE_WORDS,
    ValueError_,
    coerce,
    splits_float_string,
    type_parsed,
)
from flaglint.schema.keys import Key


def _any_case(word: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


def full_match(regex: str) -> str:
    """A JSON Schema pattern that REGEX match the whole string, in ECMA-262 as in Python."""
    # `$` before a final newline is Python's end of text too, not ECMA-262's: the lookahead makes it one
    return f"^(?:{regex})$(?!\\n)"


_DIGITS = r"\d(?:_?\d)*"  # Python's float() reads any decimal digit
_FLOAT_TEXT = (rf"\s*[+-]?(?:(?:(?:{_DIGITS})?\.{_DIGITS}|{_DIGITS}\.?)(?:[eE][+-]?{_DIGITS})?"
               rf"|{_any_case('inf')}(?:{_any_case('inity')})?|{_any_case('nan')})\s*")  # what Python's float() reads
_NONE_TEXT = _any_case("none")

# Shared fragments, under the document's $defs.
DEFINITIONS: dict[str, dict[str, Any]] = {
    "bool-text": {"type": "string", "pattern": full_match("|".join(_any_case(w) for w in TRUE_WORDS + FALSE_WORDS)),
                  "description": "a string MaxText reads as a bool (true/false, yes/no, on/off, t/f, y/n, 1/0, in any case)"},
    "int-text": {"type": "string", "pattern": full_match(rf"\s*{INT_TEXT}\s*"), "description": "a string MaxText reads as an int"},
    "float-text": {"type": "string", "pattern": full_match(_FLOAT_TEXT), "description": "a string MaxText reads as a number"},
    "none-text": {"type": "string", "pattern": full_match(_NONE_TEXT), "description": "none in any case: MaxText reads it as null"},
}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _bounds(key: Key) -> dict[str, Any]:
    return {word: getattr(key, attr) for attr, word in (("ge", "minimum"), ("gt", "exclusiveMinimum"), ("le", "maximum"),
                                                       ("lt", "exclusiveMaximum")) if getattr(key, attr) is not None}


def _bools_within(key: Key, item: bool) -> list[bool]:
    """The bools KEY takes as numbers (0, 1), as its value or (ITEM) as an item of its list."""
    return [flag for flag in (False, True) if _accepts(key, [flag] if item else flag, coerce)]


def _number(json_type: str, text: str, key: Key, item: bool) -> dict[str, Any]:
    """An int or float: the number (bounded), a bool (as 0 or 1), or a string that reads as one."""
    return {"anyOf": [{"type": json_type, **_bounds(key)}, {"enum": _bools_within(key, item)}, _ref(text)]}


def _scalar(kind: str, key: Key, item: bool = False) -> dict[str, Any]:
    """A value of KIND as pydantic's lax mode takes it (not null): KEY's value, or (ITEM) an item of its list."""
    if kind == "bool":
        return {"anyOf": [{"type": "boolean"}, {"enum": [0, 1]}, _ref("bool-text")]}
    if kind == "int":
        return _number("integer", "int-text", key, item)
    if kind == "float":
        return _number("number", "float-text", key, item)
    if kind == "str":
        return {"type": "string"}
    if kind == "dict":
        return {"type": "object"}
    return {}


def _int_text_of(number: int) -> str:
    """The strings an int key reads as NUMBER: signs, leading zeros, underscores, `.0`."""
    digits = "_?".join(str(abs(number)))
    sign = "-" if number < 0 else "[+-]?" if number == 0 else r"\+?"
    return full_match(rf"\s*{sign}(?:0_?)*{digits}(?:\.0+)?\s*")


def _choices(key: Key) -> dict[str, Any]:
    choices = list(key.choices or ())
    if key.kind == "enum" and key.int_enum:
        return {"anyOf": [{"enum": choices}, {"enum": [flag for flag in (False, True) if int(flag) in choices]},
                          *({"type": "string", "pattern": _int_text_of(c)} for c in choices)]}
    if key.kind == "enum":
        return {"enum": [c for c in choices if isinstance(c, str)]}
    # a Literal: a choice compares equal to a value of its own sort (1 == True == 1.0, not "1")
    flags = [flag for flag in (False, True) if any(not isinstance(c, str) and c == flag for c in choices)]
    return {"enum": choices + flags}


def _list(key: Key) -> dict[str, Any]:
    items = {"type": "array", "items": _scalar(key.item or "any", key, item=True)}
    if splits_float_string(key.name):
        float_list = rf"(?:{_FLOAT_TEXT}(?:,{_FLOAT_TEXT})*)?"
        return {"anyOf": [items, {"type": "string", "pattern": full_match(float_list)}]}
    return items


_RULE_LIST = {"anyOf": [
    {"enum": [None, False, 0, "", [], {}]},  # pyconfig keeps base.yml's rules for an empty value
    {"type": "array", "items": {"anyOf": [
        {"type": "string", "minLength": 1},
        {"type": "array", "minItems": 1, "prefixItems": [{"not": {"type": ["array", "object"]}}]},
    ]}},
]}


def _kind(key: Key) -> dict[str, Any]:
    """The fragment of a value that is not one of the special values."""
    if key.name in MERGED_RULE_LISTS:
        return _RULE_LIST
    if key.kind in ("enum", "literal"):
        return _choices(key)
    if key.kind == "list":
        fragment = _list(key)
        if key.list_when_string:  # pyconfig makes a string the list of it
            fragment = {"anyOf": [fragment, {"allOf": [{"type": "string"}, _scalar(key.item or "any", key)]}]}
        return fragment
    if key.kind == "union":
        return {"anyOf": [_list(key) if member == "list" else _scalar(member, key) for member in key.members or ()]}
    return _scalar(key.kind, key)


def _as_given(key: Key, value: Any) -> Any:
    """What the kind's fragment takes: the value typed without pyconfig's clean-up of it."""
    return coerce(key, [value] if key.list_when_string and isinstance(value, str) else value)


def _accepts(key: Key, value: Any, typing=type_parsed) -> bool:
    try:
        typing(key, value)
    except ValueError_:
        return False
    return True


_NONE_SPELLINGS = tuple("".join(c.upper() if bit & (1 << i) else c for i, c in enumerate("none")) for bit in range(16))


def value_schema(key: Key) -> dict[str, Any]:
    """The JSON Schema fragment of the values MaxText accepts for KEY in a config file."""
    kind = _kind(key)
    accepted, refused = [], []
    if _accepts(key, None):
        accepted.append({"type": "null"})
    for spellings, fragment in ((_NONE_SPELLINGS, _ref("none-text")), (("",), {"const": ""})):
        taken_as_given = [_accepts(key, spelling, _as_given) for spelling in spellings]
        if _accepts(key, spellings[0]):
            if not all(taken_as_given):
                accepted.append(fragment)
        elif any(taken_as_given):
            refused.append(fragment)  # the kind's fragment takes it, but pyconfig makes it a value MaxText refuses
    if refused:
        kind = {"allOf": [kind, {"not": refused[0] if len(refused) == 1 else {"anyOf": refused}}]}
    return {"anyOf": [*accepted, kind]} if accepted else kind

"""Typing a flag's value the way MaxText 0.2.5 does.

A value goes through three steps (measured on the real package, see the reference table):
YAML 1.1 scalar (PyYAML's safe rules plus `1e-5` style floats, no timestamps), then pyconfig's
normalisation (any string equal to 'none' in any case becomes None, ...), then pydantic's lax
validation for the field's type (`'T'` is True, `1.0` is 1, `1.5` is refused).
"""

from __future__ import annotations

import operator
import re

from flaglint.core.numbers import as_float, decimal_int, int_text, shown_value

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


class ValueError_(Exception):
    """A value MaxText would refuse; the message is one line."""


# The common shapes of a value, read without the YAML parser: a word that starts with a letter is
# a string unless YAML 1.1 names a boolean or null with it; plain decimals are numbers.
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("null", "Null", "NULL"), None),
}
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*")
_INTEGER = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,17})")
_DECIMAL = r"[0-9]{1,15}\.[0-9]{1,15}"  # compiled by re when first used: a check compiles only the patterns it uses
_NOT_PLAIN = object()


def _plain_value(raw: str) -> Any:
    if _WORD.fullmatch(raw):
        return _WORDS.get(raw, raw)
    if _INTEGER.fullmatch(raw):
        return int(raw)
    if re.fullmatch(_DECIMAL, raw):
        return float(raw)
    return _NOT_PLAIN


# pyconfig's clean-up, key by key (measured on 0.2.5).
_NONE_WHEN_EMPTY = {"hf_train_files", "hf_eval_files", "hf_access_token", "hf_name", "hf_data_dir", "hf_eval_split", "tokenizer_path"}
_EMPTY_WHEN_NONE = r"run_name|dump_hlo.*_module_name"  # compiled by re when first used: a check compiles only the patterns it uses


def parse_cli_value(raw: str | None) -> Any:
    """The Python value OmegaConf makes of a command-line value (before the field's type); an argv
    word without '=' has the value None."""
    if raw is None:
        return None
    value = _plain_value(raw)
    if value is not _NOT_PLAIN:
        return value
    import yaml  # noqa: PLC0415 yaml: only for a value of a shape _plain_value does not read

    from flaglint.core.omegaconf_yaml import cli_loader  # noqa: PLC0415 OmegaConf's YAML loader: only with yaml

    try:
        return yaml.load(raw, Loader=cli_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ValueError_(f"not a valid YAML value ({problem})") from None


def format_value(value: Any) -> str:
    """A typed value as a flag's value, which MaxText reads back as the same value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int):
        return int_text(value)
    return str(value)


def shown_setting(value: Any) -> str:
    """format_value for a message: an int too long to read at a glance is cut to its first and
    last digits and its length."""
    return shown_value(value) if isinstance(value, int) and not isinstance(value, bool) else format_value(value)


def normalise(key: str, value: Any, list_when_string: bool = False) -> Any:
    """pyconfig's clean-up between YAML and pydantic. LIST_WHEN_STRING: the key is one pyconfig
    wraps in a list when given a string (the pin's schema says which; 0.2.3 and later)."""
    if "." in key:
        return value  # it cleans top-level values only: a nested one (dpo.*, lora.*) reaches pydantic as written
    if isinstance(value, str) and value.lower() == "none":
        value = None
    if value == "" and key in _NONE_WHEN_EMPTY:
        value = None
    if value is None and re.fullmatch(_EMPTY_WHEN_NONE, key):
        value = ""
    if isinstance(value, str) and list_when_string:
        value = [value]
    return value


def cleaned(schema, value: Any) -> Any:
    """The value as the pin's pyconfig hands it on to be typed: normalised (0.2.0 and later), or as
    OmegaConf read it (before 0.2.0 pyconfig cleans nothing)."""
    return value if schema.typed_as_default else normalise(schema.name, value, schema.list_when_string)


def type_value(schema, raw: str | None) -> Any:
    """The value MaxText gives `key=raw`, or ValueError_ with MaxText's reason."""
    return type_parsed(schema, parse_cli_value(raw))


def type_parsed(schema, parsed: Any) -> Any:
    """The value MaxText gives a value as YAML reads it (a config file's, or a flag's once parsed),
    or ValueError_ with MaxText's reason."""
    if schema.name in MERGED_RULE_LISTS:
        check_rule_list(parsed)
    return coerce(schema, cleaned(schema, parsed))


# pyconfig merges these lists itself, before pydantic, by each rule's first item (its name).
MERGED_RULE_LISTS = {"logical_axis_rules"}


def check_rule_list(value: Any) -> None:
    if not value:
        return  # pyconfig skips an empty (or false, or null) value: base.yml's rules stay
    if not isinstance(value, list):
        raise ValueError_(f"{shown_value(value)}: pyconfig needs a list of [name, axes] rules here")
    for rule in value:
        if not (isinstance(rule, (list, str)) and len(rule) > 0 and not isinstance(rule[0], (list, dict))):
            raise ValueError_(f"{rule!r}: each rule must be a non-empty [name, axes] list whose name pyconfig can index")


def _float_list_when_string(value: Any) -> Any:
    """A before-validator of the field: '' is [], 'a,b' is [float(a), float(b)]."""
    if not isinstance(value, str):
        return value
    try:
        return [float(v) for v in value.split(",")] if value else []
    except ValueError as err:
        raise ValueError_(f"{shown_value(value)}: {err}") from None


# Fields with a pydantic before-validator in types.py (constant_bound_config: types.py:2782).
_BEFORE_VALIDATORS = {"constant_bound_config": _float_list_when_string}


def splits_float_string(name: str) -> bool:
    """Whether the key's field takes a string of comma-separated numbers as the list of them."""
    return _BEFORE_VALIDATORS.get(name) is _float_list_when_string


def coerce(schema, value: Any) -> Any:
    """pydantic's lax validation for the key's type, written out so checks need not import pydantic.

    tests/maxtext/test_values.py checks it against pydantic itself on generated values.
    """
    if schema.typed_as_default:
        return _typed_as_default(schema, value)
    before = _BEFORE_VALIDATORS.get(schema.name)
    if before is not None:
        value = before(value)
    if value is None:
        if schema.nullable or schema.kind == "any":
            return None
        raise ValueError_(f"None: {schema.name} is not nullable")
    result = _KINDS[schema.kind](schema, value)
    for bound, holds in (("ge", operator.ge), ("gt", operator.gt), ("le", operator.le), ("lt", operator.lt)):
        limit = getattr(schema, bound)
        if limit is not None and not holds(result, limit):  # exact: an int of any size, inf; NaN holds none
            symbol = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}[bound]
            raise ValueError_(f"{shown_value(value)}: value should be {symbol} {format_value(limit)}")
    return result


def _string_to_bool(value: Any) -> bool:
    """pyconfig's string_to_bool before 0.2.0: a string, true or false in any case (any other
    value has no .lower(): MaxText stops with an AttributeError)."""
    if value.lower() == "true":
        return True
    if value.lower() == "false":
        return False
    raise ValueError(f"Can't convert {value} to bool")


# pyconfig's `_yaml_types_to_parser` before 0.2.0, and the Python type of each kind's base.yml value
_DEFAULT_PARSERS = {"str": str, "int": int, "float": float, "bool": _string_to_bool}
_DEFAULT_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}


def _typed_as_default(schema, value: Any) -> Any:
    """The value typed as pyconfig before 0.2.0 types it (below), and split as its checks split it:
    validate_constant_bound reads constant_bound_config as types.py's before-validator does later
    (`.split(",")` of None fails there too)."""
    typed = _typed_by_default_type(schema, value)
    split = _BEFORE_VALIDATORS.get(schema.name)
    if split is not None:
        if typed is None:
            raise ValueError_(f"None: pyconfig splits {schema.name} at each ','")
        split(typed)
    return typed


def _typed_by_default_type(schema, value: Any) -> Any:
    """pyconfig before 0.2.0 (`_update_from_env_and_command_line`): a value of the base.yml value's
    type is taken as it is (True is an int there), None (`key=`) stays None where that type has a
    parser, another value is converted by the parser; a list or dict key takes no other value, None
    included (the type check comes first)."""
    expected = _DEFAULT_TYPES.get(schema.kind, type(None))  # kind any: base.yml's value is null
    parser = _DEFAULT_PARSERS.get(schema.kind)
    if isinstance(value, expected) or (value is None and parser is not None):
        return _one_of_when_set(schema, value)
    if parser is None:
        raise ValueError_(f"{shown_value(value)}: {schema.name} is a {expected.__name__} in base.yml, and pyconfig takes no other type for it")
    try:
        typed = parser(value)
    except (ValueError, TypeError, AttributeError, OverflowError) as err:
        raise ValueError_(f"{shown_value(value)}: pyconfig cannot read it as {schema.kind}, the type of base.yml's value ({err})") from None
    return _one_of_when_set(schema, typed)


def _one_of_when_set(schema, value: Any) -> Any:
    """A key with choices before 0.2.0 (compile_topology) is looked up only when it is set (not empty)."""
    if schema.choices is not None and value and value not in schema.choices:
        raise ValueError_(_describe_choice(schema, value))
    return value


TRUE_WORDS = ("1", "on", "t", "true", "y", "yes")  # a string pydantic takes as a bool, in any case
FALSE_WORDS = ("0", "off", "f", "false", "n", "no")
INT_TEXT = r"[+-]?[0-9](?:_?[0-9])*(?:\.0+)?"  # a string pydantic takes as an int, once stripped
_INT64 = 2**63
_INT_TEXT_DIGITS = 4_300  # pydantic reads a string of more digits as no int (leading zeros aside)


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in TRUE_WORDS + FALSE_WORDS:
        return value.lower() in TRUE_WORDS
    raise ValueError_(f"{shown_value(value)}: value should be a valid boolean")


def _as_int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError_(f"{shown_value(value)}: value should be a finite number")
        if not value.is_integer():
            raise ValueError_(f"{shown_value(value)}: value should be a valid integer, got a number with a fractional part")
        if abs(value) >= _INT64:
            raise ValueError_(f"{shown_value(value)}: value should be a valid integer, too large")
        return int(value)
    if isinstance(value, str) and re.fullmatch(INT_TEXT, value.strip()):
        text = value.strip().split(".")[0].replace("_", "")
        digits = text.lstrip("+-").lstrip("0") or "0"
        if len(digits) > _INT_TEXT_DIGITS:
            raise ValueError_(f"{shown_value(value)}: unable to parse input string as an integer, exceeded maximum size")
        return -decimal_int(digits) if text.startswith("-") else decimal_int(digits)
    raise ValueError_(f"{shown_value(value)}: value should be a valid integer")


def _as_float(value: Any) -> float:
    if isinstance(value, (bool, int, float)) and as_float(value) is not None:  # pydantic refuses an int past a float's range
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    raise ValueError_(f"{shown_value(value)}: value should be a valid number")


def _as_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise ValueError_(f"{shown_value(value)}: value should be a valid string")


def _check_choice(schema, value: Any) -> Any:
    if schema.kind == "enum" and schema.int_enum:
        number = _as_int(value) if not isinstance(value, float) or value.is_integer() else None
        if number in schema.choices:
            return number
    elif schema.kind == "enum":
        if isinstance(value, str) and value in schema.choices:
            return value
    else:
        for choice in schema.choices:
            if isinstance(choice, str) == isinstance(value, str) and choice == value and not isinstance(value, (list, dict)):
                return choice
    raise ValueError_(_describe_choice(schema, value))


def _describe_choice(schema, value: Any) -> str:
    if len(schema.choices) <= 8:
        return f"{shown_value(value)} is not one of {', '.join(repr(c) for c in schema.choices)}"
    import difflib  # noqa: PLC0415 difflib: only for a did-you-mean

    close = difflib.get_close_matches(str(value), [str(c) for c in schema.choices], n=3)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"{shown_value(value)} is not one of the {len(schema.choices)} choices{hint}"


def _as_list(schema, value: Any) -> list:
    if not isinstance(value, (list, tuple)):
        raise ValueError_(f"{shown_value(value)}: value should be a valid list")
    item = _SCALARS[schema.item or "any"]
    return [item(v) for v in value]


def _as_dict(value: Any) -> dict:
    if isinstance(value, dict):
        return value
    raise ValueError_(f"{shown_value(value)}: value should be a valid dictionary")


_SCALARS = {
    "bool": _as_bool, "int": _as_int, "float": _as_float, "str": _as_str, "dict": _as_dict, "any": lambda v: v,
}
_EXACT = {"bool": (bool,), "int": (int,), "float": (float,), "str": (str,), "dict": (dict,), "list": (list,), "any": (object,)}


def _as_union(schema, value: Any) -> Any:
    members = schema.members or []
    # pydantic's smart mode: a member whose type the value already has wins, else the first that accepts it.
    for member in members:
        if isinstance(value, _EXACT[member]) and not (member == "int" and isinstance(value, bool)):
            return _as_list(schema, value) if member == "list" else _SCALARS[member](value)
    for member in members:
        try:
            return _as_list(schema, value) if member == "list" else _SCALARS[member](value)
        except ValueError_:
            continue
    raise ValueError_(f"{shown_value(value)}: value should be one of {' | '.join(members)}")


_KINDS = {
    "bool": lambda s, v: _as_bool(v),
    "int": lambda s, v: _as_int(v),
    "float": lambda s, v: _as_float(v),
    "str": lambda s, v: _as_str(v),
    "dict": lambda s, v: _as_dict(v),
    "any": lambda s, v: v,
    "enum": _check_choice,
    "literal": _check_choice,
    "list": _as_list,
    "union": _as_union,
}

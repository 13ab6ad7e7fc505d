"""Typing a flag's value the way MaxText 0.2.5 does.

A value goes through three steps (measured on the real package, see the reference table):
YAML 1.1 scalar (PyYAML's safe rules plus `1e-5` style floats, no timestamps), then pyconfig's
normalisation (any string equal to 'none' in any case becomes None, ...), then pydantic's lax
validation for the field's type. The last step uses pydantic itself, so every corner of lax
coercion (`'T'` is True, `1.0` is 1, `1.5` is refused) is MaxText's by construction.
"""

from __future__ import annotations

import enum
import re
from functools import lru_cache
from typing import Annotated, Any, Literal, Optional, Union

import yaml

from .schema.model import KeySchema


class ValueError_(Exception):
    """A value MaxText would refuse; the message is one line."""


class CliLoader(yaml.SafeLoader):
    """SafeLoader without timestamps, and with floats written without a dot (1e-5, 2E3)."""


CliLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
CliLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)

_NONE_WHEN_EMPTY = re.compile(r"hf_.*|tokenizer_path")
_EMPTY_WHEN_NONE = re.compile(r"run_name|dump_hlo.*_module_name")


def parse_cli_value(raw: str) -> Any:
    """The Python value OmegaConf makes of a command-line value (before the field's type)."""
    try:
        return yaml.load(raw, Loader=CliLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ValueError_(f"not a valid YAML value ({problem})") from None


def normalise(key: str, value: Any) -> Any:
    """pyconfig's clean-up between YAML and pydantic."""
    if isinstance(value, str) and value.lower() == "none":
        value = None
    if value == "" and _NONE_WHEN_EMPTY.fullmatch(key):
        value = None
    if value is None and _EMPTY_WHEN_NONE.fullmatch(key):
        value = ""
    return value


def type_value(schema: KeySchema, raw: str) -> Any:
    """The value MaxText gives `key=raw`, or ValueError_ with MaxText's reason."""
    value = normalise(schema.name, parse_cli_value(raw))
    return coerce(schema, value)


def coerce(schema: KeySchema, value: Any) -> Any:
    from pydantic import ValidationError

    try:
        result = _adapter(_signature(schema)).validate_python(value)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        raise ValueError_(_describe(schema, value, first)) from None
    return result.value if isinstance(result, enum.Enum) else result


def _describe(schema: KeySchema, value: Any, error: dict[str, Any]) -> str:
    if schema.choices is not None and error["type"] in ("enum", "literal_error"):
        if len(schema.choices) <= 8:
            return f"{value!r} is not one of {', '.join(repr(c) for c in schema.choices)}"
        import difflib

        close = difflib.get_close_matches(str(value), [str(c) for c in schema.choices], n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        return f"{value!r} is not one of the {len(schema.choices)} choices{hint}"
    return f"{value!r}: {error['msg'].replace('Input', 'value')}"


def _signature(schema: KeySchema) -> tuple:
    return (
        schema.kind,
        schema.nullable,
        tuple(schema.choices) if schema.choices is not None else None,
        schema.int_enum,
        schema.item,
        tuple(schema.members or ()),
        schema.ge,
        schema.gt,
        schema.le,
        schema.lt,
    )


_BASE = {"bool": bool, "int": int, "float": float, "str": str, "dict": dict, "any": Any}


@lru_cache(maxsize=None)
def _adapter(signature: tuple):
    from pydantic import Field, TypeAdapter

    kind, nullable, choices, int_enum, item, members, ge, gt, le, lt = signature
    if kind == "enum":
        base = enum.Enum("Choice", {f"m{i}": c for i, c in enumerate(choices)}, type=int if int_enum else str)
    elif kind == "literal":
        base = Literal[choices]  # type: ignore[valid-type]
    elif kind == "list":
        base = list[_BASE[item or "any"]]
    elif kind == "union":
        base = Union[tuple(_BASE[m] for m in members)]  # type: ignore[misc]
    else:
        base = _BASE[kind]
    bounds = {name: _bound(bound, kind) for name, bound in (("ge", ge), ("gt", gt), ("le", le), ("lt", lt)) if bound is not None}
    if bounds:
        base = Annotated[base, Field(**bounds)]
    if nullable:
        base = Optional[base]
    return TypeAdapter(base)


def _bound(bound: float, kind: str) -> float | int:
    return int(bound) if kind == "int" and float(bound).is_integer() else bound

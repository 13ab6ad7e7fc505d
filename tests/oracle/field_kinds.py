"""Describe a pydantic model's fields in the terms of flaglint's KeySchema, from the live classes.

Self-contained (standard library and pydantic only): the oracle test sends this file's source to
the Python 3.12 interpreter that has the real MaxText, and the synthetic-module tests import it.
"""

from __future__ import annotations

import enum
import tempfile
import types
import typing
from typing import Any

from pydantic import BaseModel

TEMPDIR_PLACEHOLDER = "<tempdir>"
_SCALARS = {bool: "bool", int: "int", float: "float", str: "str"}
_BOUNDS = ("ge", "gt", "le", "lt")


def describe_fields(model: type[BaseModel], prefix: str = "") -> dict[str, dict[str, Any]]:
    """name -> kind, nullable, choices, enum, int_enum, item, members, bounds and default; the
    fields of a nested model also appear as `field.nested`."""
    out: dict[str, dict[str, Any]] = {}
    for name, info in model.model_fields.items():
        described = _describe_annotation(info.annotation)
        for constraint in info.metadata:
            _constrain(described, constraint)
        described["default"] = _plain(info.get_default(call_default_factory=True))
        out[prefix + name] = described
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            out.update(describe_fields(info.annotation, prefix=f"{prefix}{name}."))
    return out


def _describe_annotation(annotation: Any) -> dict[str, Any]:
    atoms = _atoms(annotation)
    nullable = any(atom is None for atom in atoms)
    kinds = [atom for atom in atoms if atom is not None]
    if len(kinds) == 1:
        described = kinds[0]
        described["nullable"] = nullable or described["kind"] == "any"
        return described
    lists = [atom for atom in kinds if atom["kind"] == "list"]
    return {
        "kind": "union",
        "nullable": nullable or any(atom["kind"] == "any" for atom in kinds),
        "members": [atom["kind"] for atom in kinds],
        "item": lists[0]["item"] if lists else None,
    }


def _atoms(annotation: Any) -> list[dict[str, Any] | None]:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is None or annotation is type(None):
        return [None]
    if origin is typing.Annotated:
        atoms = _atoms(args[0])
        for constraint in args[1:]:
            for atom in atoms:
                if atom is not None:
                    _constrain(atom, constraint)
        return atoms
    if origin in (typing.Union, types.UnionType):
        return [atom for arg in args for atom in _atoms(arg)]
    if origin is typing.Literal:
        values = list(args)
        return [None] * (None in values) + [{"kind": "literal", "choices": [v for v in values if v is not None]}]
    if annotation is list or origin is list:
        return [{"kind": "list", "item": _describe_annotation(args[0])["kind"] if args else "any"}]
    if annotation is dict or origin is dict:
        return [{"kind": "dict"}]
    if annotation is Any:
        return [{"kind": "any"}]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [{
            "kind": "enum",
            "choices": [member.value for member in annotation],
            "enum": annotation.__name__,
            "int_enum": issubclass(annotation, enum.IntEnum),
        }]  # fmt: skip
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [{"kind": "dict"}]
    if annotation in _SCALARS:
        return [{"kind": _SCALARS[annotation]}]
    raise TypeError(f"no flaglint kind for annotation {annotation!r}")


def _constrain(described: dict[str, Any], constraint: Any) -> None:
    """Add a bound; where one is already there both apply, so the stricter stands."""
    for bound in _BOUNDS:
        value = getattr(constraint, bound, None)
        if value is None:
            continue
        current = described.get(bound)
        if current is not None:
            value = max(current, value) if bound in ("ge", "gt") else min(current, value)
        described[bound] = value


def _plain(value: Any) -> Any:
    """A default as JSON would hold it: models as dicts, enum members as their values, and the
    machine's temporary directory as the placeholder the importer records."""
    if isinstance(value, BaseModel):
        return _plain(value.model_dump())
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str) and value.startswith(tempfile.gettempdir()):
        return TEMPDIR_PLACEHOLDER + value[len(tempfile.gettempdir()):]
    return value

"""The runtime view of a schema: plain records read straight from the files.

The pydantic models in model.py validate the file formats (`flaglint schema import` and the tests
use them), a key's fields as `Key` declares them; checking a flag string reads the same files into
these records, so a check never pays for importing pydantic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from flaglint.core.findings import InputError
from flaglint.core.records import FrozenRecord

KINDS = ("bool", "int", "float", "str", "enum", "literal", "list", "dict", "any", "union")
Scalar = bool | int | float | str

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any, Literal

    Kind = Literal["bool", "int", "float", "str", "enum", "literal", "list", "dict", "any", "union"]  # KINDS


class Key(FrozenRecord):
    """One MaxText config key at a pin: how its value is typed, its range and choices, and its default.

    kind: the value's type. "enum" and "literal" carry their allowed values in `choices`
    ("enum" also names its class in `enum`, and `int_enum` marks an IntEnum, which accepts
    1 and "1" but not the member name). "list" names its element kind in `item`; "union" its
    member kinds in `members`, in declaration order. A schema file holds `choices` and `members`
    as lists; this record, as tuples.
    """

    __slots__ = field_names = ("name", "kind", "nullable", "choices", "enum", "int_enum", "item", "members", "ge", "gt", "le",
                               "lt", "default", "default_at_runtime", "list_when_string", "typed_as_default", "unread_type",
                               "group", "line", "source")

    def __init__(self, name: str, kind: Kind, nullable: bool = False, choices: Sequence[Scalar] | None = None,
                 enum: str | None = None, int_enum: bool = False, item: Kind | None = None, members: Sequence[Kind] | None = None,
                 ge: float | None = None, gt: float | None = None, le: float | None = None, lt: float | None = None,
                 default: Any = None, default_at_runtime: str | None = None, list_when_string: bool = False,
                 typed_as_default: bool = False, unread_type: str | None = None, group: str = "", line: int | None = None,
                 source: str = "configs/types.py"):
        self.name = name
        self.kind = kind
        self.nullable = nullable
        self.choices = choices
        self.enum = enum
        self.int_enum = int_enum
        self.item = item
        self.members = members
        self.ge = ge
        self.gt = gt
        self.le = le
        self.lt = lt
        self.default = default
        self.default_at_runtime = default_at_runtime  # the expression of a default MaxText computes when it runs
        self.list_when_string = list_when_string  # pyconfig wraps a string value in a list (0.2.3 and later, a few list keys)
        # pyconfig before 0.2.0 types a value by its base.yml value's type (kind), not by a declared one
        self.typed_as_default = typed_as_default
        self.unread_type = unread_type  # an annotation the importer could not read (kind is then any)
        self.group = group
        self.line = line
        self.source = source


class TunixVar(FrozenRecord):
    """One Tunix launcher variable (schemas/tunix.yml): its type, and the MaxText keys it binds."""

    __slots__ = field_names = ("kind", "description", "source", "choices", "ge", "default", "flag", "fixed", "binds")

    def __init__(self, kind: str, description: str, source: str, choices: tuple | None = None, ge: int | None = None,
                 default: str | None = None, flag: str | None = None, fixed: bool = False, binds: tuple = ()):
        self.kind = kind
        self.description = description
        self.source = source
        self.choices = choices
        self.ge = ge
        self.default = default
        self.flag = flag
        self.fixed = fixed
        self.binds = binds  # (MaxText key, expression) pairs


class KeyTable(dict):
    """Key name -> Key, built from the schema file's entry (or its JSON text, as the data cache keeps
    it) on first use: most keys of a pin are never looked at by one check, and building all of them
    would cost a cold start ~15 ms."""

    def __init__(self, entries: dict[str, Any], where: str):
        super().__init__(entries)
        self.where = where

    def __getitem__(self, name: str) -> Key:
        value = super().__getitem__(name)
        if not isinstance(value, Key):
            value = key_from(json.loads(value) if isinstance(value, str) else value, self.where)
            super().__setitem__(name, value)
        return value

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default

    def values(self):  # type: ignore[override]
        return [self[name] for name in self]

    def items(self):  # type: ignore[override]
        return [(name, self[name]) for name in self]

    def copy(self) -> "KeyTable":
        return KeyTable(dict(super().items()), self.where)


_KEY_FIELDS = set(Key.field_names)
_VAR_FIELDS = set(TunixVar.field_names)


def key_from(data: dict[str, Any], where: str) -> Key:
    unknown = set(data) - _KEY_FIELDS
    if unknown or "name" not in data or "kind" not in data:
        raise InputError(f"{where}: bad key entry {data.get('name', '?')!r} ({', '.join(sorted(unknown)) or 'needs name and kind'})")
    values = dict(data)
    for listed in ("choices", "members"):
        if values.get(listed) is not None:
            values[listed] = tuple(values[listed])
    return Key(**values)


def var_from(data: dict[str, Any], where: str) -> TunixVar:
    unknown = set(data) - _VAR_FIELDS
    if unknown:
        raise InputError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    values = dict(data)
    values["choices"] = tuple(values["choices"]) if values.get("choices") else None
    values["binds"] = tuple((values.get("binds") or {}).items())
    return TunixVar(**values)

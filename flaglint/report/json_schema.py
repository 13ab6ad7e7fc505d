"""`flaglint schema export`: a pin's config files as a JSON Schema (draft 2020-12), for YAML editors.

A MaxText pin gives the keys of its config files (every key its MaxTextConfig defines, and
`base_config`), each typed as the pin types it (maxtext/value_schema.py: what MaxText accepts,
YAML 1.1 values included), with its choices, its default and where the pin defines it; a key the
pin does not define is refused, as MaxText refuses it. A Tunix pin gives its base config's
structure: the top-level keys (Tunix refuses any other), and in each section the keys the base
defines, each held to the type of the base value; a section takes keys of its own too, which Tunix
merges without a check (flaglint's FL208 names them).
"""

from __future__ import annotations

from typing import Any

from flaglint.maxtext.value_schema import DEFINITIONS, value_schema
from flaglint.pins.pins import PinSchema
from flaglint.schema.keys import Key
from flaglint.tunix.pins import VALUE_KINDS, BaseKey, TunixPin, takes_kind

DRAFT = "https://json-schema.org/draft/2020-12/schema"
TUNIX_BASE = "base_config.yaml"  # the base every Tunix release ships, and the one a command line names most


def maxtext_schema(pin: PinSchema) -> dict[str, Any]:
    """The JSON Schema of a MaxText config file at PIN."""
    properties: dict[str, Any] = {}
    for name in sorted(pin.keys, key=lambda n: (n.count("."), n)):  # a section before its own keys
        key = pin.keys[name]
        entry = {**value_schema(key), "description": _describe(key, pin)}
        default = pin.defaults.get(name, key.default)
        if default is not None or key.nullable:
            entry["default"] = default
        *sections, last = name.split(".")
        _place(properties, sections, last, entry)
    return {
        "$schema": DRAFT,
        "title": f"MaxText config ({pin.pin})",
        "description": (f"A MaxText config file at {pin.pin} (MaxText {pin.version}), its values typed as MaxText types them; "
                        "the keys of MaxTextConfig only, not those another config class adds (train_rl's RLConfig)."),
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "$defs": DEFINITIONS,
    }


def _place(properties: dict[str, Any], sections: list[str], last: str, entry: dict[str, Any]) -> None:
    """ENTRY under its sections (`dpo.algo` in `dpo`'s properties; a section takes other keys too)."""
    for section in sections:
        holder = properties.setdefault(section, {"type": "object"})
        target = holder if "properties" in holder or holder.get("type") == "object" else _object_branch(holder)
        properties = target.setdefault("properties", {})
    properties[last] = entry


def _object_branch(schema: dict[str, Any]) -> dict[str, Any]:
    """The branch of SCHEMA that takes a mapping, where a section's own keys are described."""
    for branch in schema.get("anyOf", ()):
        if branch.get("type") == "object":
            return branch
    return schema


def _describe(key: Key, pin: PinSchema) -> str:
    where = f"{key.source}:{key.line}" if key.line else key.source
    parts = [_type_text(key) + (" or null" if key.nullable else "")]
    if key.default_at_runtime:
        parts.append(f"default computed when MaxText starts: {key.default_at_runtime}")
    parts.append(f"{key.group} ({where}, MaxText {pin.version})" if key.group else f"{where}, MaxText {pin.version}")
    return "; ".join(parts)


def _type_text(key: Key) -> str:
    bounds = [f"{symbol} {getattr(key, attr):g}" for attr, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
              if getattr(key, attr) is not None]
    if key.kind in ("enum", "literal"):
        text = f"one of {', '.join(repr(c) for c in key.choices or ())}"
    elif key.kind == "list":
        text = f"list of {key.item or 'any'}"
    elif key.kind == "union":
        text = " | ".join(f"list of {key.item or 'any'}" if m == "list" else m for m in key.members or ())
    else:
        text = key.kind
    return " ".join([text, *bounds])


_JSON_TYPES = {"null": "null", "bool": "boolean", "int": "integer", "float": "number", "str": "string", "list": "array", "dict": "object"}


def tunix_schema(pin: TunixPin) -> dict[str, Any]:
    """The JSON Schema of a Tunix config file at PIN: its base config's keys, nested."""
    name = TUNIX_BASE if TUNIX_BASE in pin.bases else sorted(pin.bases)[0]
    root: dict[str, Any] = {
        "$schema": DRAFT,
        "title": f"Tunix config ({pin.name})",
        "description": f"A Tunix config at {pin.name} (google-tunix {pin.version}): the keys of its {name}, each of the base value's type.",
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    nodes = {"": root}
    for dotted, key in pin.bases[name].items():  # a section comes before its keys
        parent, _, last = dotted.rpartition(".")
        nodes[parent].setdefault("properties", {})[last] = node = _tunix_value(key, name)
        if key.type == "dict":
            nodes[dotted] = node
    return root


def _tunix_value(key: BaseKey, base: str) -> dict[str, Any]:
    if key.type == "dict":
        node: dict[str, Any] = {"type": ["object", "null"]}
    else:
        node = {"type": [_JSON_TYPES[kind] for kind in VALUE_KINDS if takes_kind(key.type, kind)]}
        node["default"] = key.default
    node["description"] = f"{key.type} ({base} line {key.line})"
    return node

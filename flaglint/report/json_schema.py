"""`flaglint schema export`: a pin's config files as a JSON Schema (draft 2020-12), for YAML editors.

A MaxText pin gives the keys of its config files (every key its MaxTextConfig defines, and
`base_config`; in a file that sets a key only another config class defines, such as train_rl's
RLConfig, that class's keys), each typed as the pin types it (maxtext/value_schema.py: what MaxText accepts,
YAML 1.1 values included), with its choices, its default and where the pin defines it; a key the
pin does not define is refused, as MaxText refuses it. A Tunix pin gives its base config's
structure: the top-level keys (Tunix refuses any other), and in each section the keys the base
defines, each held to the type of the base value as flaglint holds it (FL207, FL209: null, or an
int for a float, or a string that Tunix reads back as one of those); a section takes keys of its
own too, which Tunix merges without a check (flaglint's FL208 names them).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from flaglint.core.omegaconf_yaml import cli_loader
from flaglint.maxtext.value_schema import DEFINITIONS, full_match, value_schema
from flaglint.pins.pins import PinSchema
from flaglint.schema.keys import Key
from flaglint.tunix.pins import VALUE_KINDS, BaseKey, TunixPin, takes_kind

DRAFT = "https://json-schema.org/draft/2020-12/schema"
TUNIX_BASE = "base_config.yaml"  # the base every Tunix release ships, and the one a command line names most


def maxtext_schema(pin: PinSchema) -> dict[str, Any]:
    """The JSON Schema of a MaxText config file at PIN."""
    described = {name: (pin.keys[name], None) for name in pin.keys}
    for class_name, other in pin.config_classes.items():
        for name in other.keys:
            described.setdefault(name, (other.keys[name], class_name))
    properties: dict[str, Any] = {}
    for name in sorted(described, key=lambda n: (n.count("."), n)):  # a section before its own keys
        key, class_name = described[name]
        entry = {**value_schema(key), "description": _describe(key, pin, class_name)}
        default = key.default if class_name else pin.defaults.get(name, key.default)
        if (default is not None or key.nullable) and _strict_json(default):
            entry["default"] = default
        *sections, last = name.split(".")
        _place(properties, sections, last, entry)
    schema = {
        "$schema": DRAFT,
        "title": f"MaxText config ({pin.pin})",
        "description": (f"A MaxText config file at {pin.pin} (MaxText {pin.version}), its values typed as MaxText types them: "
                        "the keys of MaxTextConfig, or of another config class an entry point validates with "
                        f"({', '.join(sorted(pin.config_classes)) or 'none at this pin'}) in a file that sets a key only that "
                        "class defines."),
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "$defs": DEFINITIONS,
    }
    conditions = [_config_class_condition(pin, class_name) for class_name in sorted(pin.config_classes)]
    if any(conditions):
        schema["allOf"] = [condition for condition in conditions if condition]
    return schema


def _config_class_condition(pin: PinSchema, class_name: str) -> dict[str, Any] | None:
    """A file that sets a key only CLASS_NAME defines is validated with that class (train_rl's
    RLConfig): MaxTextConfig's keys that class lacks are refused there."""
    other = pin.config_classes[class_name]
    own = [name for name in sorted(other.keys) if "." not in name and name not in pin.keys]  # not one it types otherwise (num_epoch)
    lacks = [name for name in other.lacks if "." not in name]
    if not own or not lacks:
        return None
    # `not: {}` rather than `false`: a validator then places the error at the key, not at the file
    refused = {"not": {}, "description": f"MaxTextConfig's, which {class_name} does not define"}
    return {"if": {"anyOf": [{"required": [name]} for name in own]}, "then": {"properties": dict.fromkeys(lacks, refused)}}


def _strict_json(value: Any) -> bool:
    """Whether VALUE is JSON an editor reads (not `Infinity`, which no JSON parser takes)."""
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError):
        return False
    return True


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


def _describe(key: Key, pin: PinSchema, class_name: str | None = None) -> str:
    where = f"{key.source}:{key.line}" if key.line else key.source
    parts = [_type_text(key) + (" or null" if key.nullable else "")]
    if class_name:
        parts.append(f"{class_name} only, not MaxTextConfig")
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
        "description": (f"A Tunix config at {pin.name} (google-tunix {pin.version}): the keys of its {name}, each of the base "
                        "value's type, or null."),
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
        kinds = [kind for kind in VALUE_KINDS if takes_kind(key.type, kind)]
        node = {"type": [_JSON_TYPES[kind] for kind in kinds]}
        read_as = [pattern for kind, pattern in _yaml_scalar_text().items() if kind in kinds]
        if "str" not in kinds and read_as:
            node = {"anyOf": [node, {"type": "string", "pattern": "|".join(read_as)}]}
        if _strict_json(key.default):
            node["default"] = key.default
    node["description"] = f"{key.type} ({base} line {key.line})"
    return node


_YAML_KINDS = ("bool", "int", "float", "null")


@lru_cache(maxsize=1)
def _yaml_scalar_text() -> dict[str, str]:
    """Kind -> the pattern of the strings YAML, as OmegaConf reads it, makes a value of that kind
    (bool, int, float, null): Tunix writes an override file's values out as `key=value` words and
    reads each again, so a quoted `"12"` there is 12. Taken from the loader's own resolvers."""
    bodies: dict[str, list[str]] = {}
    for resolvers in cli_loader().yaml_implicit_resolvers.values():
        for tag, regexp in resolvers:
            kind = tag.rsplit(":", 1)[-1]
            body = re.sub(r"\s+", "", regexp.pattern) if regexp.flags & re.VERBOSE else regexp.pattern
            body = body.removeprefix("^").removesuffix("$")
            if kind in _YAML_KINDS and body not in bodies.setdefault(kind, []):
                bodies[kind].append(body)
    # the spaces and line breaks around a word, and a YAML comment after the value, are not the value's
    space = "[ \\t\\r\\n]"
    return {kind: full_match(f"{space}*(?:{'|'.join(found)})(?:{space}+#[^\\r\\n]*)?{space}*") for kind, found in bodies.items()}

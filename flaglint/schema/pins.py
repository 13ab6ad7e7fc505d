"""Pins: which MaxText a recipe runs, and the schema of the keys it defines.

A pin is a released version (`maxtext-0.2.5` or `0.2.5`), whose schema is generated into
`schemas/maxtext-<version>.json`, or a fork commit, described in `schemas/pins/<commit>.yml` as an
overlay on the pin it extends (keys added, keys removed, enum values added).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..data import data_dir
from ..findings import InputError
from .keys import Key, KeyTable, key_from

DEFAULT_PIN = "maxtext-0.2.5"


@dataclass
class PinSchema:
    """The keys one pin defines, their effective defaults, and the model configs it ships."""

    pin: str
    version: str  # the released MaxText version this pin's rules derive from
    keys: dict[str, Key]
    defaults: dict[str, Any]
    models: dict[str, dict[str, Any]]  # model name -> the keys its yml sets
    starts_trainer: bool = True
    does_not_start_reason: str | None = None
    chain: list[str] = field(default_factory=list)  # this pin and every pin it extends

    _typed: dict[str, Any] = field(default_factory=dict, repr=False)

    def default(self, key: str) -> Any:
        """The key's effective default: base.yml's value as pyconfig normalises and types it."""
        if key not in self._typed:
            self._typed[key] = self._type_default(key)
        return self._typed[key]

    def _type_default(self, key: str) -> Any:
        from ..values import ValueError_, coerce, normalise

        schema = self.keys[key]
        value = normalise(key, self.defaults[key]) if key in self.defaults else schema.default
        try:
            return coerce(schema, value)
        except ValueError_:
            return value


def _schemas() -> Path:
    return data_dir("schemas")


def known_pins() -> list[str]:
    released = sorted(p.stem for p in _schemas().glob("maxtext-*.json"))
    forks = sorted(p.stem for p in (_schemas() / "pins").glob("*.yml"))
    return released + forks


def canonical_pin(pin: str) -> str:
    """`0.2.5` -> `maxtext-0.2.5`; a commit prefix of at least 7 characters -> the pin it names."""
    pins = known_pins()
    for candidate in (pin, f"maxtext-{pin}"):
        if candidate in pins:
            return candidate
    if re.fullmatch(r"[0-9a-f]{7,40}", pin):
        for overlay in pins:
            commit = str(_overlay(overlay)["commit"]) if not overlay.startswith("maxtext-") else ""
            if commit.startswith(pin) or pin.startswith(overlay):
                return overlay
    raise InputError(f"unknown pin {pin!r}; known pins: {', '.join(pins)}")


@lru_cache(maxsize=None)
def _overlay(name: str) -> dict[str, Any]:
    """schemas/pins/<name>.yml (its format is model.PinOverlay)."""
    path = _schemas() / "pins" / f"{name}.yml"
    with path.open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@lru_cache(maxsize=None)
def _released(name: str) -> dict[str, Any]:
    """schemas/maxtext-<version>.json (its format is model.Schema)."""
    return json.loads((_schemas() / f"{name}.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def load_pin(pin: str = DEFAULT_PIN) -> PinSchema:
    name = canonical_pin(pin)
    if name.startswith("maxtext-"):
        schema = _released(name)
        where = f"schemas/{name}.json"
        return PinSchema(
            pin=name,
            version=schema["version"],
            keys=KeyTable(schema["keys"], where),
            defaults=dict(schema.get("base_defaults", {})),
            models={model: entry["keys"] for model, entry in schema.get("models", {}).items()},
            chain=[name],
        )
    overlay = _overlay(name)
    where = f"schemas/pins/{name}.yml"
    parent = load_pin(overlay["extends"])
    keys = parent.keys.copy()
    defaults = dict(parent.defaults)
    for key in overlay.get("keys_removed") or {}:
        keys.pop(key, None)
        defaults.pop(key, None)
    for added in overlay.get("keys_added") or []:
        keys[added["name"]] = key_from(added, where)
    for key, extra in (overlay.get("choices_added") or {}).items():
        keys[key] = replace(keys[key], choices=(*keys[key].choices, *extra))
    return PinSchema(
        pin=name,
        version=parent.version,
        keys=keys,
        defaults=defaults,
        models=parent.models,
        starts_trainer=overlay.get("starts_trainer", True),
        does_not_start_reason=overlay.get("does_not_start_reason"),
        chain=[name, *parent.chain],
    )


def pins_defining(key: str) -> list[str]:
    return [pin for pin in known_pins() if key in load_pin(pin).keys]


_GIT_PIN = re.compile(r"maxtext.*@([0-9a-fA-F]{7,40})\b")
_VERSION_PIN = re.compile(r"^\s*maxtext\s*==\s*([0-9][\w.]*)", re.M | re.I)


def pin_from_requirements(path: str) -> str:
    """The pin a requirements file names: a git URL ending in `@<commit>`, or `maxtext==X.Y.Z`."""
    from ..read import read_text_file

    text = read_text_file(path)
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        if match := _GIT_PIN.search(code):
            return match.group(1)
        if match := _VERSION_PIN.match(code):
            return f"maxtext-{match.group(1)}"
    raise InputError(f"{path}: no MaxText line (expected a git URL ending in @<commit> or maxtext==X.Y.Z)")

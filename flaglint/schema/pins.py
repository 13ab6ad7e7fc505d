"""Pins: which MaxText a recipe runs, and the schema of the keys it defines.

A pin is a released version (`maxtext-0.2.5` or `0.2.5`), whose schema is generated into
`schemas/maxtext-<version>.json`, or a fork commit, described in `schemas/pins/<commit>.yml` as an
overlay on the pin it extends (keys added, keys removed, enum values added).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..data import data_dir
from ..findings import InputError
from .model import KeySchema, ModelConfig, PinOverlay, Schema

DEFAULT_PIN = "maxtext-0.2.5"


@dataclass
class PinSchema:
    """The keys one pin defines, their effective defaults, and the model configs it ships."""

    pin: str
    version: str  # the released MaxText version this pin's rules derive from
    keys: dict[str, KeySchema]
    defaults: dict[str, Any]
    models: dict[str, ModelConfig]
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
            commit = _overlay(overlay).commit if not overlay.startswith("maxtext-") else ""
            if commit.startswith(pin) or pin.startswith(overlay):
                return overlay
    raise InputError(f"unknown pin {pin!r}; known pins: {', '.join(pins)}")


@lru_cache(maxsize=None)
def _overlay(name: str) -> PinOverlay:
    path = _schemas() / "pins" / f"{name}.yml"
    with path.open(encoding="utf-8") as handle:
        return PinOverlay.model_validate(yaml.safe_load(handle))


@lru_cache(maxsize=None)
def _released(name: str) -> Schema:
    path = _schemas() / f"{name}.json"
    return Schema.model_validate(json.loads(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=None)
def load_pin(pin: str = DEFAULT_PIN) -> PinSchema:
    name = canonical_pin(pin)
    if name.startswith("maxtext-"):
        schema = _released(name)
        return PinSchema(
            pin=name,
            version=schema.version,
            keys=dict(schema.keys),
            defaults=dict(schema.base_defaults),
            models=dict(schema.models),
            chain=[name],
        )
    overlay = _overlay(name)
    parent = load_pin(overlay.extends)
    keys = dict(parent.keys)
    defaults = dict(parent.defaults)
    for key in overlay.keys_removed:
        keys.pop(key, None)
        defaults.pop(key, None)
    for added in overlay.keys_added:
        keys[added.name] = added
    for key, extra in overlay.choices_added.items():
        keys[key] = keys[key].model_copy(update={"choices": [*keys[key].choices, *extra]})
    return PinSchema(
        pin=name,
        version=parent.version,
        keys=keys,
        defaults=defaults,
        models=parent.models,
        starts_trainer=overlay.starts_trainer,
        does_not_start_reason=overlay.does_not_start_reason,
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

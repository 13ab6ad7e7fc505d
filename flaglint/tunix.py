"""Tunix's side of a config: its recipe variables, typed, and the MaxText keys it derives from them."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import yaml

from .data import data_dir
from .expr import Unknown, evaluate, parse
from .schema.model import TunixSchema, TunixVariable


@lru_cache(maxsize=None)
def load_tunix() -> TunixSchema:
    with (data_dir("schemas") / "tunix.yml").open(encoding="utf-8") as handle:
        return TunixSchema.model_validate(yaml.safe_load(handle))


def type_tunix(name: str, var: TunixVariable, raw: str) -> Any:
    """The typed value of a Tunix variable, or ValueError with the reason (one line)."""
    if var.kind == "int":
        try:
            value = int(raw.strip(), 10)
        except ValueError:
            raise ValueError(f"{name}={raw!r} is not an integer") from None
        if var.ge is not None and value < var.ge:
            raise ValueError(f"{name}={value} must be >= {var.ge}")
        return value
    if var.kind == "enum" and raw not in (var.choices or []):
        raise ValueError(f"{name}={raw!r} is not one of {', '.join(var.choices or [])}")
    return raw


def bindings(schema: TunixSchema, values: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """MaxText key -> (value, variable) for every binding of a set Tunix variable."""
    bound: dict[str, tuple[Any, str]] = {}
    for name, var in schema.variables.items():
        if values.get(name) is None:
            continue
        for key, expression in var.binds.items():
            try:
                value = evaluate(_parsed(expression), values.get)
            except Unknown:
                continue
            if value is not None:
                bound[key] = (value, name)
    return bound


@lru_cache(maxsize=None)
def _parsed(expression: str):
    return parse(expression)

"""Tunix's side of a config: its recipe variables, typed, and the MaxText keys it derives from them."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from flaglint.core.data import data_dir
from flaglint.core.data_cache import cached, yaml_file
from flaglint.core.records import FrozenRecord
from flaglint.rules.expr import Node, Unknown, evaluate, from_json, parse, to_json
from flaglint.schema.keys import TunixVar, var_from

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


class TunixLauncher(FrozenRecord):
    """The variables the Tunix launcher reads by role (schemas/tunix.yml `launcher`)."""

    __slots__ = field_names = ("flags", "backend", "maxtext_backends", "slice", "mesh_prefix")

    def __init__(self, flags: str, backend: str, maxtext_backends: tuple[str, ...], slice: str, mesh_prefix: str):
        self.flags = flags  # the MaxText flag string (MAXTEXT_EXTRA_FLAGS)
        self.backend = backend
        self.maxtext_backends = maxtext_backends  # the backends that hand the flags to MaxText
        self.slice = slice
        self.mesh_prefix = mesh_prefix


class TunixSchema(FrozenRecord):
    """schemas/tunix.yml (its format is model.TunixSchemaFile)."""

    __slots__ = field_names = ("launcher", "variables")

    def __init__(self, launcher: TunixLauncher, variables: dict[str, TunixVar]):
        self.launcher = launcher
        self.variables = variables

    def by_flag(self, flag: str) -> str | None:
        return next((name for name, var in self.variables.items() if var.flag == flag), None)


@lru_cache(maxsize=None)
def load_tunix() -> TunixSchema:
    path = data_dir("schemas") / "tunix.yml"
    data = yaml_file(path)
    launcher = data["launcher"]
    return TunixSchema(TunixLauncher(**{**launcher, "maxtext_backends": tuple(launcher["maxtext_backends"])}),
                       {name: var_from(entry, str(path)) for name, entry in data["variables"].items()})


def launcher() -> TunixLauncher:
    return load_tunix().launcher


def type_tunix(name: str, var: TunixVar, raw: str) -> Any:
    """The typed value of a Tunix variable (None: empty, which the launcher passes as no flag at
    all), or ValueError with the reason (one line)."""
    if var.kind == "int":
        if not raw.strip():
            return None
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
        for key, expression in var.binds:
            try:
                value = evaluate(_parsed(expression), values.get)
            except Unknown:
                continue
            if value is not None:
                bound[key] = (value, name)
    return bound


def _parsed(expression: str) -> Node:
    return _binding_trees()[expression]


@lru_cache(maxsize=None)
def _binding_trees() -> dict[str, Node]:
    """The expression of each binding of schemas/tunix.yml, parsed, and kept so in the data cache:
    parsing one imports Python's ast, which a check need not."""
    return cached("tunix-bindings", [data_dir("schemas") / "tunix.yml"],
                  lambda: {expression: parse(expression) for var in load_tunix().variables.values() for _, expression in var.binds},
                  encode=lambda trees: {text: to_json(tree) for text, tree in trees.items()},
                  decode=lambda data: {text: from_json(tree) for text, tree in data.items()})

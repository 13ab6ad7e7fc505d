"""Tunix pins: which Tunix (`tunix.cli`) a recipe runs, and what flaglint knows of its configuration.

A bundled release (`tunix-0.1.7` or `0.1.7`) is generated from its git tag into
`schemas/tunix-<version>.json` (the base YAMLs' keys, the merge, the entry points' builders, the
mesh parser) and `rules/tunix/<version>/rules.yml` (its validators as rules, each with its stage);
`python -m flaglint.importer.tunix_releases` regenerates them. A pin is chosen with `--tunix-pin`,
`tunix-pin` in `[tool.flaglint]`, or a requirements file's `google-tunix==X.Y.Z`; the newest
bundled release otherwise.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from flaglint.core.data import data_dir
from flaglint.core.data_cache import cache_root, yaml_file
from flaglint.core.findings import InputError
from flaglint.core.numbers import shown_text
from flaglint.core.reading import PIN_FILE, Unreadable, read_text
from flaglint.core.requirements import pinned_version
from flaglint.rules.expr import Node, parse
from flaglint.rules.ruleset import Renumbering, Rule, cached_rule_file, renumbered_ids

PREFIX = "tunix-"
SCHEMA_FILE = "schema.json"
RULES_DIR = "rules"


PROGRAM = "argv0"  # the rule name of argv[0], the program's path (`python -m` makes it the module's file)


def value_kind(value: Any) -> str:
    """A value's type as a Tunix pin names it: null, bool, int, float, str, list, dict."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    for types, name in ((int, "int"), (float, "float"), (str, "str"), (list, "list"), (dict, "dict")):
        if isinstance(value, types):
            return name
    return type(value).__name__


VALUE_KINDS = ("null", "bool", "int", "float", "str", "list", "dict")


def takes_kind(expected: str, actual: str) -> bool:
    """Whether a value of kind ACTUAL is of the base value's kind EXPECTED, as flaglint holds
    Tunix's values to it: a null where anything is, an int where a float is, anything for a null
    (a mapping's own keys are held to it key by key)."""
    return expected in ("null", "dict") or actual in ("null", expected) or (expected, actual) == ("float", "int")


@dataclass(frozen=True)
class BaseKey:
    """A key of a base YAML: its type (`int`, `dict`, `null`, …), default (not for a mapping) and line."""

    name: str
    type: str
    line: int
    default: Any = None


def nested_defaults(keys: dict[str, BaseKey]) -> dict[str, Any]:
    """A base file's values as the YAML holds them, nested (from its dotted keys, in file order)."""
    root: dict[str, Any] = {}
    for name, key in keys.items():
        *parents, last = name.split(".")
        node = root
        for part in parents:
            node = node[part]
        node[last] = {} if key.type == "dict" else copy.deepcopy(key.default)
    return root


@dataclass(frozen=True)
class Builder:
    """A class an entry point builds from a section (`GRPOConfig(**config["grpo_config"])`)."""

    section: str
    cls: str
    module: str
    via: str  # "config": the section as merged; "training": through obtain_training_config_dict
    fields: dict  # name -> {"type", "line", "default"?, "required"?}
    added: dict  # keys the entry point sets itself (actor_optimizer) -> the section key that must be set for it, or None
    line: int
    options: dict  # (via training) key -> {"class", "fields"}: the options classes built from sub-sections
    dropped_containing: tuple[str, ...]  # (via training) keys holding these are left out

    def passed(self, key: str) -> bool:
        return not any(part in key for part in self.dropped_containing)


@dataclass(frozen=True)
class Unexpressible:
    """A raise of the release the importer could not state as a rule: where, at which stage, why,
    and the known part of its path (None: reached whatever the values)."""

    id: str
    site: str
    stage: str
    reason: str
    when: Node | None


@dataclass(frozen=True)
class TunixPin:
    name: str
    version: str
    source: str
    commit: str | None
    bases: dict[str, dict[str, BaseKey]]  # file name -> dotted key -> BaseKey
    merge: dict[str, Any]  # the facts of HyperParameters' merge (importer/tunix.py `_merge_facts`)
    entries: dict[str, tuple[Builder, ...]]  # grpo_main -> its builders
    flags: dict[str, dict[str, bool]]  # grpo_main -> its own absl flags (name -> takes a value)
    meshes: dict[str, str]  # grpo_main -> which roles' meshes it builds: "every role" or "roles with a mesh"
    filtered: dict[str, dict[str, frozenset[str]]]  # grpo_main -> a section it filters by a class's fields -> the fields
    read_keys: frozenset[str]  # keys tunix/cli reads by name
    mesh: dict[str, Any]
    rules: tuple[Rule, ...]
    unexpressible: tuple[Unexpressible, ...]
    origin: str
    maxtext_model: dict[str, Any] | None = None  # how it builds a MaxText model (importer/tunix_maxtext.py); None: it builds none
    data_steps: dict[str, dict[str, Any]] | None = None  # grpo_main -> how it holds max_steps to the data (importer `_data_steps`)
    optimizer: dict[str, Any] | None = None  # how create_optimizer looks up optax (importer `_optimizer_facts`); None: not modelled
    optimizers: dict[str, tuple[dict[str, Any], ...]] | None = None  # grpo_main -> the sections it builds an optimizer from
    mesh_roles: dict[str, dict[str, str]] | None = None  # grpo_main -> the role names same_mesh_as takes -> their sections (0.1.7)

    def base(self, name: str) -> dict[str, BaseKey] | None:
        return self.bases.get(name)


def _release_order(name: str) -> tuple:
    return tuple(int(part) if part.isdigit() else -1 for part in re.split(r"[.-]", name.removeprefix(PREFIX)))


@lru_cache(maxsize=None)
def bundled_tunix_pins() -> tuple[str, ...]:
    return tuple(sorted((p.stem for p in data_dir("schemas").glob(f"{PREFIX}*.json")), key=_release_order))


def tunix_store() -> Path:
    """Where `flaglint schema import` registers a Tunix source tree: <store>/<name>/schema.json and rules/."""
    return cache_root() / "tunix-pins"


def known_tunix_pins() -> list[str]:
    """The bundled releases, then the imports in the store."""
    bundled = bundled_tunix_pins()
    imported = sorted(p.parent.name for p in tunix_store().glob(f"*/{SCHEMA_FILE}")) if tunix_store().is_dir() else []
    return [*bundled, *(name for name in imported if name not in bundled)]


def default_tunix_pin() -> str:
    return bundled_tunix_pins()[-1]


def canonical_tunix_pin(pin: str) -> str:
    known = known_tunix_pins()
    for candidate in (pin, f"{PREFIX}{pin}"):
        if candidate in known:
            return candidate
    raise InputError(f"unknown Tunix pin {shown_text(pin, 80)!r}; known: {', '.join(known)} (releases before 0.1.0 have no tunix.cli; "
                     "`flaglint schema import PATH` adds a Tunix source tree)")


@lru_cache(maxsize=None)
def load_tunix_pin(pin: str | None = None) -> TunixPin:
    name = canonical_tunix_pin(pin or default_tunix_pin())
    if name in bundled_tunix_pins():
        data = json.loads(read_text(data_dir("schemas") / f"{name}.json", PIN_FILE))
        return pin_from_data(name, data, data_dir("rules") / "tunix" / data["version"], f"bundled (schemas/{name}.json)")
    entry = tunix_store() / name
    try:
        data = json.loads(read_text(entry / SCHEMA_FILE, PIN_FILE))
        return pin_from_data(name, data, entry / RULES_DIR, f"user store ({entry}): {data['source']}")
    except (Unreadable, ValueError, KeyError, TypeError, AttributeError) as err:  # a file written by hand, or cut short
        raise InputError(f"{entry / SCHEMA_FILE}: damaged Tunix pin ({type(err).__name__}: {err}); import it again") from None


def tunix_renumbering(pin: TunixPin) -> Renumbering:
    """The old numbers of a bundled release's checks; a pin in the store keeps the numbers its
    import gave until it is imported again."""
    return Renumbering(renumbered_ids(pin.version, "tunix") if pin.name in bundled_tunix_pins() else {}, pin.name,
                       "Tunix's checks")


def pin_from_data(name: str, data: dict[str, Any], rules_dir: Path, origin: str) -> TunixPin:
    """The pin of an import's data and its rules folder (rules.yml, unexpressible.yml)."""
    rules = rules_dir / "rules.yml"
    bases = {file: {key: BaseKey(key, entry["type"], entry["line"], entry.get("default")) for key, entry in keys.items()}
             for file, keys in data["bases"].items()}
    entries = {entry: tuple(_builder(b) for b in facts["builders"]) for entry, facts in data["entries"].items()}
    flags = {entry: dict(facts.get("flags", {})) for entry, facts in data["entries"].items()}
    meshes = {entry: facts.get("meshes", "every role") for entry, facts in data["entries"].items()}
    filtered = {entry: {section: frozenset(fields) for section, fields in facts.get("filtered", {}).items()}
                for entry, facts in data["entries"].items()}
    return TunixPin(name, data["version"], data["source"], data.get("commit"), bases, data["merge"], entries, flags,
                    meshes, filtered, frozenset(data.get("read_keys", ())), data.get("mesh", {}),
                    tuple(cached_rule_file(rules)) if rules.is_file() else (), _unexpressible(rules_dir / "unexpressible.yml"),
                    origin, data.get("maxtext_model"),
                    {entry: facts["data_steps"] for entry, facts in data["entries"].items() if "data_steps" in facts},
                    data.get("optimizer"), {entry: tuple(facts.get("optimizers", ())) for entry, facts in data["entries"].items()},
                    {entry: facts["mesh_roles"] for entry, facts in data["entries"].items() if "mesh_roles" in facts})


def _unexpressible(path: Path) -> tuple[Unexpressible, ...]:
    if not path.is_file():
        return ()
    entries = (yaml_file(path) or {}).get("unexpressible") or []
    return tuple(Unexpressible(e["id"], e["site"], e["stage"], e["reason"], parse(e["when"]) if e.get("when") else None)
                 for e in entries)


def _builder(data: dict[str, Any]) -> Builder:
    return Builder(data["section"], data["class"], data["module"], data["via"], data["fields"], {a["key"]: a["when_set"] for a in data.get("added", ())},
                   data["line"], data.get("options", {}), tuple(data.get("dropped_containing", ())))


def tunix_base_names(pin: str | None) -> frozenset[str]:
    """The names of the pin's base YAMLs (base_config.yaml, …)."""
    return frozenset(load_tunix_pin(pin).bases)


def tunix_pin_from_requirements(text: str, path: str) -> str | None:
    """The Tunix pin a requirements file names (`google-tunix==X.Y.Z`), None when it names none; a
    release that is not bundled is an error."""
    pinned = pinned_version(text, "google-tunix")
    if pinned is None:
        return None
    number, version = pinned
    try:
        return canonical_tunix_pin(version)
    except InputError:
        raise InputError(f"{path}:{number}: google-tunix=={shown_text(version, 60)} is not a bundled Tunix pin "
                         f"({', '.join(bundled_tunix_pins())})") from None

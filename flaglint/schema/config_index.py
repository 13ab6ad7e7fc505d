"""An index of a MaxText release's `configs/**/*.yml`: each file's values as pyconfig's YAML loader
reads them, the line of each top-level key, and its `base_config`.

The index is generated data (`schemas/configs/maxtext-<version>.json`), so a chain that names one
of MaxText's own configs (`base_config: "base.yml"`, `inference/inference_jetstream.yml`) resolves
without the release installed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from flaglint.core.data import data_dir
from flaglint.core.findings import InputError
from flaglint.importer.sources import PackageFiles, open_package

CONFIGS = "configs"
INDEX_VERSION = 1


@dataclass(frozen=True)
class ConfigFile:
    """One YAML config: its values, the line of each top-level key, and the parent it names."""

    path: str  # relative to the configs directory (pin configs) or as given (a user's file)
    values: dict[str, Any]
    lines: dict[str, int]
    base_config: str | None

    def to_json(self) -> dict[str, Any]:
        return {"values": self.values, "lines": self.lines, "base_config": self.base_config}


@dataclass(frozen=True)
class EntryPoint:
    """A module that hands its argv to pyconfig: the config it starts from without a .yml argument,
    and the config class it validates with (MaxTextConfig unless it says otherwise)."""

    config: str
    config_class: str = "MaxTextConfig"


@dataclass(frozen=True)
class ConfigIndex:
    version: str
    files: dict[str, ConfigFile]  # relative path under configs/ -> file
    entry_points: dict[str, EntryPoint] = field(default_factory=dict)  # module -> entry point

    def get(self, relpath: str) -> ConfigFile | None:
        return self.files.get(relpath.removeprefix("./"))


def build_index(files: PackageFiles, version: str) -> ConfigIndex:
    """Read every configs/**/*.yml of a package (never imported) into an index."""
    from flaglint.render.yaml_chain import parse_config

    indexed = {}
    for relpath in files.files_under(CONFIGS, ".yml"):
        name = relpath[len(CONFIGS) + 1:]
        indexed[name] = parse_config(files.read(relpath), name)
    return ConfigIndex(version, indexed, entry_points(files))


PYCONFIG = f"{CONFIGS}/pyconfig.py"
MAPPING = "_CONFIG_FILE_MAPPING"  # pyconfig's module -> default config (0.2.3 and later)
_INITIALIZERS = ("initialize", "initialize_pydantic")


def entry_points(files: PackageFiles) -> dict[str, EntryPoint]:
    """The modules whose code calls pyconfig.initialize(argv…) (or initialize_pydantic), with the
    default config pyconfig's mapping gives them (base.yml otherwise), read with ast."""
    import ast

    def parsed(relpath: str) -> ast.Module | None:
        try:
            return ast.parse(files.read(relpath))
        except SyntaxError:  # newer syntax than this Python reads (a 3.12 f-string): not known
            return None

    defaults: dict[str, str] = {}
    pyconfig = parsed(PYCONFIG) if files.exists(PYCONFIG) else None
    if pyconfig is not None:
        for node in pyconfig.body:
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0] if isinstance(node, ast.Assign) else None
            if isinstance(target, ast.Name) and target.id == MAPPING and isinstance(node.value, ast.Dict):
                defaults = {k.value: v.value for k, v in zip(node.value.keys, node.value.values)
                            if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
    found: dict[str, EntryPoint] = {}
    for relpath in files.files_under("", ".py"):
        if "/tests/" in f"/{relpath}" or relpath.endswith("_test.py"):
            continue
        text = files.read(relpath)
        tree = parsed(relpath) if "__main__" in text and "pyconfig" in text else None  # run as a program
        if tree is None:
            continue
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _INITIALIZERS
                    and isinstance(call.func.value, ast.Name) and call.func.value.id == "pyconfig" and call.args
                    and "argv" in ast.unparse(call.args[0])):
                continue
            module = "maxtext." + relpath.removesuffix(".py").replace("/", ".")
            config_class = next((ast.unparse(k.value).rsplit(".", 1)[-1] for k in call.keywords if k.arg == "config_class"), "MaxTextConfig")
            found[module] = EntryPoint(defaults.get(module, "base.yml"), config_class)
    for module, config in defaults.items():
        found.setdefault(module, EntryPoint(config))
    return dict(sorted(found.items()))


def write_index(index: ConfigIndex, out: str | Path) -> None:
    payload = {"version": index.version, "format": INDEX_VERSION,
               "entry_points": {module: {"config": e.config, "config_class": e.config_class} for module, e in index.entry_points.items()},
               "files": {name: entry.to_json() for name, entry in sorted(index.files.items())}}
    Path(out).write_text(json.dumps(payload, indent=1, sort_keys=False, allow_nan=True) + "\n", encoding="utf-8")


def index_path(version: str | Path) -> Path:
    """A release's bundled index; a Path is a pin store entry's own."""
    return version if isinstance(version, Path) else data_dir("schemas") / "configs" / f"maxtext-{version}.json"


@lru_cache(maxsize=None)
def load_index(version: str | Path) -> ConfigIndex | None:
    """The bundled index of a release (or the index file of a pin store entry), or None when none is there."""
    path = index_path(version)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return ConfigIndex(data["version"], {
        name: ConfigFile(name, entry["values"], entry["lines"], entry["base_config"]) for name, entry in data["files"].items()
    }, {module: EntryPoint(**entry) for module, entry in data.get("entry_points", {}).items()})


def import_index(package: str | Path, out: str | Path, version: str | None = None) -> ConfigIndex:
    """Index a source tree or wheel and write it. `version`: when the package does not say
    (0.2.0 and 0.2.3 carry no `__version__` that can be read without importing them)."""
    from flaglint.importer.importer import _version as package_version

    with open_package(package) as files:
        index = build_index(files, version or package_version(files))
    if not index.files:
        raise InputError(f"{package}: no {CONFIGS}/**/*.yml to index")
    write_index(index, out)
    return index


if __name__ == "__main__":  # python -m flaglint.schema.config_index WHEEL_OR_TREE OUT.json [VERSION]
    import sys

    built = import_index(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    print(f"indexed {len(built.files)} config files of maxtext {built.version} into {sys.argv[2]}")

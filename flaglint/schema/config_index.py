"""An index of a MaxText release's `configs/**/*.yml`: each file's values as pyconfig's YAML loader
reads them, the line of each top-level key, and its `base_config`.

The index is generated data (`schemas/configs/maxtext-<version>.json`), so a chain that names one
of MaxText's own configs (`base_config: "base.yml"`, `inference/inference_jetstream.yml`) resolves
without the release installed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..data import data_dir
from ..findings import InputError
from .sources import PackageFiles, open_package

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
class ConfigIndex:
    version: str
    files: dict[str, ConfigFile]  # relative path under configs/ -> file

    def get(self, relpath: str) -> ConfigFile | None:
        return self.files.get(relpath.removeprefix("./"))


def build_index(files: PackageFiles, version: str) -> ConfigIndex:
    """Read every configs/**/*.yml of a package (never imported) into an index."""
    from ..render.yaml_chain import parse_config

    indexed = {}
    for relpath in files.files_under(CONFIGS, ".yml"):
        name = relpath[len(CONFIGS) + 1:]
        indexed[name] = parse_config(files.read(relpath), name)
    return ConfigIndex(version, indexed)


def write_index(index: ConfigIndex, out: str | Path) -> None:
    payload = {"version": index.version, "format": INDEX_VERSION,
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
    })


def import_index(package: str | Path, out: str | Path, version: str | None = None) -> ConfigIndex:
    """Index a source tree or wheel and write it. `version`: when the package does not say
    (0.2.0 and 0.2.3 carry no `__version__` that can be read without importing them)."""
    from .importer import _version as package_version

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

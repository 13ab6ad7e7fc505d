"""An index of a MaxText release's `configs/**/*.yml`: each file's values as pyconfig's YAML loader
reads them, the line of each top-level key, and its `base_config`; and the modules that hand their
argv to pyconfig.

The index is generated data (`schemas/configs/maxtext-<version>.json`, or a pin store entry's
configs.json; importer/configs.py builds it), so a chain that names one of MaxText's own configs
(`base_config: "base.yml"`, `inference/inference_jetstream.yml`) resolves without the release
installed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from flaglint.core.findings import InputError
from flaglint.core.reading import PIN_FILE, read_text
from flaglint.schema.index_files import CONFIG_SUFFIX, index_path


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
    # How pyconfig finds the config file: argv[1] when its name ends in this; None: argv[1]
    # whatever its name (0.2.0).
    config_suffix: str | None = CONFIG_SUFFIX

    def get(self, relpath: str) -> ConfigFile | None:
        return self.files.get(relpath.removeprefix("./"))

    def is_config_argument(self, word: str) -> bool:
        """Whether pyconfig takes WORD, its argv[1], as the config file (else as a key=value)."""
        return word.endswith(self.config_suffix) if self.config_suffix is not None else "=" not in word


@lru_cache(maxsize=None)
def load_index(version: str | Path) -> ConfigIndex | None:
    """The bundled index of a release (or the index file of a pin store entry), or None when none is there."""
    path = index_path(version)
    if not path.is_file():
        return None
    try:
        data = json.loads(read_text(path, PIN_FILE))
        return ConfigIndex(data["version"], {
            name: ConfigFile(name, entry["values"], entry["lines"], entry["base_config"]) for name, entry in data["files"].items()
        }, {module: EntryPoint(**entry) for module, entry in data.get("entry_points", {}).items()},
            data.get("config_suffix", CONFIG_SUFFIX))
    except (ValueError, KeyError, TypeError, AttributeError) as err:  # an index written by hand, or cut short
        raise InputError(f"{path}: damaged index of configs ({type(err).__name__}: {err}); import the pin again") from None

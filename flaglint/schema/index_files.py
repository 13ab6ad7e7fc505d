"""Where a MaxText release's index of configs lives, and the name ending its pyconfig wants of a
config file: what a flag string's check needs of the index, without the index (config_index.py)."""

from __future__ import annotations

from pathlib import Path

from flaglint.core.data import data_dir

CONFIG_SUFFIX = ".yml"  # 0.2.3 and later take argv[1] as the config file only when its name ends so


def index_path(version: str | Path) -> Path:
    """A release's bundled index; a Path is a pin store entry's own."""
    return version if isinstance(version, Path) else data_dir("schemas") / "configs" / f"maxtext-{version}.json"

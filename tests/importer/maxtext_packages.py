"""Small MaxText packages written for the importer's tests, laid out as a release is: maxtext/ with
version.py (9.9.9), configs/types.py, configs/base.yml, and any other files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_package(where: Path, types: str, base: str, files: Mapping[str, str] = {}) -> Path:
    """WHERE, now holding maxtext/ with TYPES as configs/types.py and BASE as configs/base.yml;
    `files`: more files by their path under maxtext/."""
    root = where / "maxtext"
    (root / "configs").mkdir(parents=True)
    (root / "version.py").write_text('__version__ = "9.9.9"\n')
    (root / "configs" / "types.py").write_text(types)
    (root / "configs" / "base.yml").write_text(base)
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text)
    return where

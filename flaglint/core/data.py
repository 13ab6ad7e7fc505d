"""Where the shipped data lives: `rules/` and `schemas/` at the repository root, or inside the wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # flaglint/


def data_dir(name: str) -> Path:
    """`rules` or `schemas`: inside the installed wheel, else beside the package in a checkout."""
    bundled = _PACKAGE / "_data" / name
    return bundled if bundled.is_dir() else _PACKAGE.parent / name

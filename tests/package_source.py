"""flaglint's own modules, read and parsed once for the tests that judge the code itself
(test_layout.py, cli/test_registry.py): each parse of the whole package costs most of a second."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "flaglint"


@cache
def package_modules() -> tuple[tuple[Path, str, ast.Module], ...]:
    """(path, text, tree) of every module of the package, in the order of their paths. The trees are
    shared: a test walks them and changes none."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found.append((path, text, ast.parse(text)))
    return tuple(found)

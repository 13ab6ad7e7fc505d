"""The layout rules no linter states: a function-level import says why it is not at the top, and no
module imports another module's private name. (ruff and lint-imports, run by .ci/run, keep the rest:
import order, private attributes, the stages' layers, no cycles.)"""

from __future__ import annotations

import ast
import re

from package_source import PACKAGE, package_modules

WHY = re.compile(r"#\s*noqa:\s*PLC0415\b[\s,:;.—-]*(?P<why>.*)$")


def _modules():
    for path, text, tree in package_modules():
        yield path.relative_to(PACKAGE.parent), text, tree


def _function_level_imports(tree: ast.Module):
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    yield node


def test_every_function_level_import_says_why():
    unexplained = []
    for path, text, tree in _modules():
        lines = text.splitlines()
        for node in set(_function_level_imports(tree)):
            found = WHY.search(lines[node.lineno - 1]) or WHY.search(lines[node.end_lineno - 1])
            if found is None or len(found["why"].strip()) < 3:
                unexplained.append(f"{path}:{node.lineno}")
    assert sorted(unexplained) == [], "function-level imports without `# noqa: PLC0415 <why>`: " + ", ".join(unexplained)


def test_no_module_imports_a_private_name_of_another():
    private = []
    for path, _, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("flaglint"):
                private += [f"{path}:{node.lineno} {node.module}.{a.name}" for a in node.names
                            if a.name.startswith("_") and not a.name.startswith("__")]
    assert private == []

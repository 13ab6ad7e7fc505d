"""What Tunix's `create_optimizer` looks up in optax, read from an optax source tree (an installed
package or an unpacked wheel; read with `ast`, never imported): the names `optax` and
`optax.schedules` export, and for each that is a function, its parameters in order, each required
or not as `inspect.signature` gives it (a parameter without a default, `*args` and `**kwargs`
included: Tunix's `_extract_kwargs` asks the config for every one of those).

    python -m flaglint.importer.optax /path/to/site-packages -o schemas/optax.json
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path
from typing import Any

from flaglint.core.findings import InputError
from flaglint.core.reading import SOURCE_FILE, read_text

PACKAGE = "optax"
NAMESPACES = {"optimizers": "optax", "schedules": "optax.schedules"}
_DEPTH = 6  # re-exports followed through at most this many modules


class _Tree:
    def __init__(self, root: Path):
        self.root = root
        self.parsed: dict[str, ast.Module | None] = {}

    def module(self, dotted: str) -> ast.Module | None:
        if dotted not in self.parsed:
            self.parsed[dotted] = None
            for relpath in (dotted.replace(".", "/") + ".py", dotted.replace(".", "/") + "/__init__.py"):
                path = self.root / relpath
                if path.is_file():
                    self.parsed[dotted] = ast.parse(read_text(path, SOURCE_FILE, within=self.root), filename=relpath)
                    break
        return self.parsed[dotted]


def _parameters(function: ast.FunctionDef) -> list[list[Any]]:
    """[name, required] for each parameter, in inspect.signature's order."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [[a.arg, d is None] for a, d in zip(positional, defaults)]
    if args.vararg is not None:
        out.append([args.vararg.arg, True])
    out += [[a.arg, d is None] for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg is not None:
        out.append([args.kwarg.arg, True])
    return out


def _resolve(tree: _Tree, dotted: str, name: str, depth: int = 0) -> list[list[Any]] | None:
    """The parameters of `dotted.name` where it is a function of the tree; None otherwise."""
    module = tree.module(dotted)
    if module is None or depth > _DEPTH:
        return None
    found = None
    for stmt in module.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            found = _parameters(stmt)
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    found = _resolve(tree, stmt.module, alias.name, depth + 1)
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            found = _assigned(tree, dotted, module, stmt.value, depth)
    return found


def _assigned(tree: _Tree, dotted: str, module: ast.Module, value: ast.expr, depth: int) -> list[list[Any]] | None:
    """`name = other` or `name = submodule.attr`: the parameters of what it names."""
    if isinstance(value, ast.Name):
        return _resolve(tree, dotted, value.id, depth + 1)
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        for stmt in module.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for alias in stmt.names:
                    if (alias.asname or alias.name) == value.value.id:
                        return _resolve(tree, f"{stmt.module}.{alias.name}", value.attr, depth + 1)
    return None


def _exported(module: ast.Module) -> list[str]:
    """The public names a module binds at its top level (what `getattr(module, name)` finds)."""
    names = set()
    for stmt in module.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.split(".")[0] for alias in stmt.names)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
    return sorted(n for n in names if not n.startswith("_"))


def import_optax(root: str | Path) -> dict[str, Any]:
    """The facts of the optax package under ROOT (the folder holding `optax/`)."""
    tree = _Tree(Path(root))
    top = tree.module(PACKAGE)
    if top is None:
        raise InputError(f"{root}: no optax package (optax/__init__.py) under it")
    version = next((stmt.value.value for stmt in top.body if isinstance(stmt, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__version__" for t in stmt.targets)
                    and isinstance(stmt.value, ast.Constant)), None)
    facts: dict[str, Any] = {"version": version}
    for kind, dotted in NAMESPACES.items():
        module = tree.module(dotted)
        if module is None:
            raise InputError(f"{root}: no module {dotted}")
        facts[kind] = {name: _resolve(tree, dotted, name) for name in _exported(module)}
    return facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the folder that holds optax/ (site-packages, or an unpacked wheel)")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    facts = import_optax(args.root)
    args.output.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"optax {facts['version']}: {len(facts['optimizers'])} names, {len(facts['schedules'])} schedules")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The config keys a raise site of MaxText's validators depends on, read from the source text.

A site the rule language cannot state is still reported when a config sets what it reads, so its
keys are collected without walking it symbolically: the tests of the blocks around the raise (ifs,
loops, `with` items, match subjects), the raise itself, and, through the names they read, every
value assigned to those locals and to the fields the validators overwrite (`self.mesh_axes = …`
read from the custom mesh file; `self.context_parallel_size = ici_… * dcn_…`). A field counts as
a key of the schema; `getattr(self, f"dcn_{axis}_parallelism")` reads every key it can name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

_SELF_NAMES = ("self", "config")
# pyconfig's dict of merged keys before 0.2.0 (`raw_keys["key"]`; `keys` in its helpers)
_RAW_DICT_NAMES = ("raw_keys", "keys")
_DIVISIONS = (ast.Div, ast.FloorDiv, ast.Mod)
_Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module


class KeyReads:
    """The keys read at the raise sites of some modules (their trees, parsed once)."""

    def __init__(self, trees: dict[str, ast.Module], keys: Iterable[str]):
        self.trees = trees
        self.keys = frozenset(keys)
        self.parents: dict[ast.AST, ast.AST] = {}
        self.field_values: dict[str, list[ast.AST]] = {}  # key or attribute of self -> the values assigned to it
        for tree in trees.values():
            for parent in ast.walk(tree):
                for child in ast.iter_child_nodes(parent):
                    self.parents[child] = parent
        for tree in trees.values():
            for node in ast.walk(tree):
                for target, value in _assignments(node):
                    attribute = _self_attribute(target)
                    if attribute is not None:
                        self.field_values.setdefault(attribute, []).append(value)

    def at(self, file: str, line: int) -> frozenset[str]:
        """The keys the raise, assert, division or call that raises (an enum's, a dtype's) at
        FILE:LINE depends on (empty where none is there)."""
        tree = self.trees.get(file)
        if tree is None:
            return frozenset()
        site = next((n for n in ast.walk(tree) if isinstance(n, (ast.Raise, ast.Assert)) and n.lineno == line), None)
        if site is None:  # a division by a key
            site = next((n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, _DIVISIONS) and n.lineno == line), None)
        if site is None:
            site = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line), None)
        if site is None:
            return frozenset()
        found: set[str] = set()
        seen: set[int] = set()
        for expr in self._deciding(site):
            self._read(expr, found, seen)
        return frozenset(found)

    def _deciding(self, site: ast.AST) -> Iterator[ast.AST]:
        """The site itself, then the tests of each block it is in, up to the module."""
        yield site
        child, node = site, self.parents.get(site)
        while node is not None:
            if isinstance(node, (ast.If, ast.While)) and child is not node.test:
                yield node.test
            elif isinstance(node, (ast.For, ast.AsyncFor)) and child is not node.iter:
                yield node.iter
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                yield from (item.context_expr for item in node.items)
            elif isinstance(node, ast.Match):
                yield node.subject
            elif isinstance(node, ast.IfExp) and child is not node.test:
                yield node.test
            child, node = node, self.parents.get(node)

    def _read(self, expr: ast.AST, found: set[str], seen: set[int]) -> None:
        if id(expr) in seen:
            return
        seen.add(id(expr))
        for node in ast.walk(expr):
            if isinstance(node, (ast.Attribute, ast.Subscript)):
                field = self._field(node)
                if field is not None:
                    found.add(field)
                for value in self.field_values.get(field or _self_attribute(node) or "", ()):
                    self._read(value, found, seen)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id != _RAW_DICT_NAMES[0]:
                # the raw dict itself is not followed: its keys are read by their subscripts
                values = list(self._local_values(node))
                for value in values or self._arguments(node):
                    self._read(value, found, seen)
            elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("getattr", "hasattr") and len(node.args) >= 2:
                if isinstance(node.args[0], ast.Name) and node.args[0].id in _SELF_NAMES:
                    found.update(self._named_by(node.args[1]))

    def _field(self, node: ast.expr) -> str | None:
        """The key `self.a.b` (or `config.a.b`) reads: the longest chain that is a key."""
        chain = _self_attribute(node)
        parts = chain.split(".") if chain else []
        for end in range(len(parts), 0, -1):
            name = ".".join(parts[:end])
            if name in self.keys:
                return name
        return None

    def _named_by(self, name: ast.expr) -> set[str]:
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return {name.value} & self.keys
        if isinstance(name, ast.JoinedStr):
            holes = [p for p in name.values if not isinstance(p, ast.Constant)]
            if len(holes) == 1:
                at = name.values.index(holes[0])
                prefix = "".join(str(p.value) for p in name.values[:at])
                suffix = "".join(str(p.value) for p in name.values[at + 1:])
                return {k for k in self.keys if k.startswith(prefix) and k.endswith(suffix) and len(k) > len(prefix) + len(suffix)}
        return set()

    def _arguments(self, name: ast.Name) -> Iterator[ast.AST]:
        """A parameter that its function never assigns: what the calls of the function pass it
        (`validate_attention_type(raw_keys["attention_type"])`)."""
        scope = self._scope(name)
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        params = [a.arg for a in scope.args.args]
        if name.id not in params or name.id in _RAW_DICT_NAMES:
            return
        at = params.index(name.id)
        for tree in self.trees.values():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == scope.name:
                    if at < len(node.args):
                        yield node.args[at]
                    yield from (k.value for k in node.keywords if k.arg == name.id)

    def _local_values(self, name: ast.Name) -> Iterator[ast.AST]:
        """What the scopes around NAME assign to it: its own function's first, then the enclosing ones'."""
        scope = self._scope(name)
        while scope is not None:
            values = list(_assigned_in(scope, name.id))
            if values:
                yield from values
                return
            scope = self._scope(scope)

    def _scope(self, node: ast.AST) -> _Scope | None:
        parent = self.parents.get(node)
        while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
            parent = self.parents.get(parent)
        return parent


def _self_attribute(node: ast.expr) -> str | None:
    """`a.b` for `self.a.b` (or `config.a.b`), `a` for `raw_keys["a"]`: a key or an attribute the
    validators set."""
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in _RAW_DICT_NAMES
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
        return node.slice.value
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not (parts and isinstance(node, ast.Name) and node.id in _SELF_NAMES):
        return None
    return ".".join(reversed(parts))


def _assignments(node: ast.AST) -> Iterator[tuple[ast.expr, ast.AST]]:
    """(target, value) of each binding NODE makes; a loop's or a comprehension's target is bound to
    what it iterates over, a `with` target to its context, `x.update(v)`/`x.append(v)` adds v to x."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _unpacked(target, node.value)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
        yield from _unpacked(node.target, node.value)
    elif isinstance(node, ast.NamedExpr):
        yield node.target, node.value
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        yield from _unpacked(node.target, node.iter)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            if item.optional_vars is not None:
                yield from _unpacked(item.optional_vars, item.context_expr)
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
          and node.func.attr in ("update", "append", "extend", "insert") and node.args):
        for arg in node.args:
            yield node.func.value, arg
    elif isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr" and len(node.args) == 3:
        target = node.args[1]
        if isinstance(target, ast.Constant) and isinstance(target.value, str) and isinstance(node.args[0], ast.Name):
            yield ast.Attribute(node.args[0], target.value, ast.Store()), node.args[2]


def _unpacked(target: ast.expr, value: ast.AST) -> Iterator[tuple[ast.expr, ast.AST]]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _unpacked(element, value)
    elif isinstance(target, ast.Starred):
        yield from _unpacked(target.value, value)
    elif isinstance(target, ast.Subscript):
        if _self_attribute(target) is not None:
            yield target, value  # raw_keys["k"] = v: the key k holds v
        yield from _unpacked(target.value, value)  # d[k] = v: d holds v
    else:
        yield target, value


def _assigned_in(scope: _Scope, name: str) -> Iterator[ast.AST]:
    """The values SCOPE assigns to NAME, its nested functions' own locals left out."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        for target, value in _assignments(node):
            if isinstance(target, ast.Name) and target.id == name:
                yield value
        stack.extend(ast.iter_child_nodes(node))

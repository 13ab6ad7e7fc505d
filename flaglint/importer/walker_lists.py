"""How the validator walker reads a list the config holds, element by element.

A mixin of `Walker` (validator_walker.py). A list key's items are not known when MaxText's source
is read, but they are when a config is checked: a comprehension over one becomes an `Each` (the
element's value over a name of its own), and what the validator computes of it (any, all, sum,
prod, len, a membership test) a generator over the key, `any(r > 0 for r in compress_ratios)`,
which the rules evaluate on the config's list, one term per element. A loop over such a list walks
its body once with the element named; each raise reached in it holds where it holds for some
element, so its condition is wrapped in `any(... for element in list)`.
"""

from __future__ import annotations

import ast
from typing import Any

from flaglint.importer.source_text import clean_source
from flaglint.importer.symbolic import (
    Each,
    Unexpressible,
    conj,
    each_node,
    free_names,
    key_of,
)
from flaglint.importer.walker_state import Frame, State
from flaglint.maxtext.tpu import LIVE_SLICES, NUM_DEVICES


class ListWalker:
    """List values, for `Walker`: uses its `keys`, how it walks (`ev`, `cond`, `assign`,
    `exec_block`, `expr`, `truth`, `compare`), `binders` (the loops over list values being walked)
    and `elements` (the names their elements are given)."""

    def listed(self, value: Any) -> bool:
        """Whether VALUE is a list the config holds: a list key, or a comprehension over one."""
        if isinstance(value, Each):
            return True
        key = key_of(value) if isinstance(value, ast.expr) else None
        return key is not None and key in self.keys and self.keys[key].kind == "list"

    def element_name(self, target: ast.expr) -> str | None:
        """The name the rules give the element a loop or comprehension binds to TARGET: its own,
        unless a key or a value the rules name is called so."""
        if not isinstance(target, ast.Name):
            return None
        name = target.id
        while name in self.keys or name in (NUM_DEVICES, LIVE_SLICES):
            name += "_item"
        self.elements.add(name)
        return name

    def element_of(self, source: Any, target: ast.expr) -> tuple[str, ast.expr, Any, ast.expr | None] | None:
        """What a loop over SOURCE (listed) binds to TARGET: the element's name, the list the rules
        iterate, the element's value and the guard under which it is one (None: always)."""
        if isinstance(source, Each):
            # the element of a comprehension over a list is its value for the list's element
            return source.element, source.source, source.value, source.guard
        element = self.element_name(target)
        if element is None:
            return None
        return element, source, ast.Name(element, ast.Load()), None

    def each_comprehension(self, node: ast.expr, gen: ast.comprehension, iterable: Any, st: State, frame: Frame) -> Any:
        """`[elt for x in L if c]` over a list the config holds: an Each."""
        bound = self.element_of(iterable, gen.target)
        if bound is None:
            return Unexpressible(f"list value: comprehension over {clean_source(gen.iter)} into {clean_source(gen.target)}")
        element, source, item, guard = bound
        inner = st.fork()
        self.assign(gen.target, item, inner, frame, name_it=False)
        conds = [guard] if guard is not None else []
        self.binders.append((element, source))
        try:
            for test in gen.ifs:
                cond = self.cond(test, inner, frame)
                if isinstance(cond, Unexpressible):
                    return cond
                conds.append(cond)
            value = self.ev(node.elt, inner, frame)
        finally:
            self.binders.pop()
        guard = conj(conds) if conds else None
        if isinstance(guard, ast.Constant):
            guard = None if guard.value else guard
        return Each(element, source, value, guard)

    def walk_each_loop(self, stmt: ast.For, iterable: Any, st: State, frame: Frame) -> bool:
        """`for x in L:` over a list the config holds: the body once from ST, with x the element,
        for its sites; False where it cannot be walked so (a return or yield in it: the loop's way
        out is not stated)."""
        if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in ast.walk(ast.Module(stmt.body, []))):
            return False
        bound = self.element_of(iterable, stmt.target)
        if bound is None:
            return False
        element, source, item, guard = bound
        body = st.fork(guard)
        self.assign(stmt.target, item, body, frame, name_it=False)
        self.binders.append((element, source))
        frame.breaks.append([])
        try:
            self.exec_block(stmt.body, body, frame)
        finally:
            frame.breaks.pop()
            self.binders.pop()
        return True

    def over_each(self, name: str, each: Each) -> Any:
        """any, all, sum, prod or len of a list built from one the config holds."""
        if name == "len":
            if each.guard is None:
                return ast.Call(ast.Name("len", ast.Load()), [each.source], [])
            return each_node("sum", each.element, each.source, ast.Constant(1), each.guard)
        if name not in ("any", "all", "sum", "prod"):
            return Unexpressible(f"{name}() over a list value")
        body = self.truth(each.value) if name in ("any", "all") else self.expr(each.value)
        if isinstance(body, Unexpressible):
            return body
        return each_node(name, each.element, each.source, body, each.guard)

    def member_of_each(self, op: ast.cmpop, left: Any, each: Each) -> Any:
        """`x in [f(e) for e in L]`: some element's value is x."""
        found = self.truth(self.compare(ast.Eq(), left, each.value))
        if isinstance(found, Unexpressible):
            return Unexpressible("membership in a list value")
        test = each_node("any", each.element, each.source, found, each.guard)
        return test if isinstance(op, ast.In) else ast.UnaryOp(ast.Not(), test)

    def bound_by_loops(self, cond: Any) -> Any:
        """COND, reached inside loops over list values, as it holds for some element of each."""
        for element, source in reversed(self.binders):
            cond = _for_some(element, source, cond)
        return cond

    def truth_of_each(self, each: Each) -> ast.expr:
        if each.guard is None:
            return ast.Compare(ast.Call(ast.Name("len", ast.Load()), [each.source], []), [ast.Gt()], [ast.Constant(0)])
        return each_node("any", each.element, each.source, each.guard)


def _for_some(element: str, source: ast.expr, cond: Any) -> Any:
    if isinstance(cond, Unexpressible):
        given = None if cond.given is None else _for_some(element, source, cond.given)
        return Unexpressible(cond.reason, given=given)
    parts = list(cond.values) if isinstance(cond, ast.BoolOp) and isinstance(cond.op, ast.And) else [cond]
    inner = [p for p in parts if element in free_names(p)]
    if not inner:
        return cond
    outer = [p for p in parts if element not in free_names(p)]
    return conj(outer + [each_node("any", element, source, conj(inner))])

"""How the validator walker executes statements: assignments, ifs, loops, match, try, raise, assert.

A mixin of `Walker` (validator_walker.py). It forks the path `State` at each branch and joins the
branches again, merging what each assigned into `GuardedChoice` values, unrolls loops over known
items (a loop over a list the config holds is walked once, by `ListWalker`), and records a `Site` for each raise and assert with the path that reaches it. Expressions
are evaluated by `ExpressionWalker`, calls by `CallWalker`.
"""

from __future__ import annotations

import ast
from typing import Any

from flaglint.importer.source_text import (
    clean_source,
    exception_name,
    raise_message,
    raises_in,
)
from flaglint.importer.symbolic import (
    SELF,
    TRUE,
    BoolVal,
    Const,
    DictVal,
    GuardedChoice,
    Ref,
    Tup,
    Unexpressible,
    conj,
    disj,
    exclusive_options,
    free_names,
    items_of,
    key_node,
    make_choice,
    neg,
    same,
    shape_id,
)
from flaglint.importer.walker_expressions import container_depth
from flaglint.importer.walker_state import Frame, State

_MISSING = object()


class StatementWalker:
    """Statements, for `Walker`: uses its `keys`, `catching`, `crash_guards` and `candidates`."""

    def exec_block(self, stmts: list[ast.stmt], st: State, frame: Frame) -> State:
        for stmt in stmts:
            if st.dead:
                return st
            st = self.exec_stmt(stmt, st, frame)
        return st

    def exec_stmt(self, stmt: ast.stmt, st: State, frame: Frame) -> State:
        if isinstance(stmt, ast.Expr):
            if not isinstance(stmt.value, ast.Constant):
                self.ev(stmt.value, st, frame)
            return st
        if isinstance(stmt, ast.Assign):
            value = self.ev(stmt.value, st, frame)
            for target in stmt.targets:
                self.assign(target, value, st, frame)
            return st
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, self.ev(stmt.value, st, frame), st, frame)
            return st
        if isinstance(stmt, ast.AugAssign):
            value = self.binop(stmt.op, self.ev(stmt.target, st, frame), self.ev(stmt.value, st, frame), stmt, st, frame)
            self.assign(stmt.target, value, st, frame)
            return st
        if isinstance(stmt, ast.If):
            test = self.cond(stmt.test, st, frame)
            if isinstance(test, Unexpressible) and isinstance(stmt.test, ast.BoolOp):
                return self.exec_split_if(stmt, st, frame)
            return self.exec_if(test, stmt.body, stmt.orelse, st, frame)
        if isinstance(stmt, ast.Raise):
            self.exec_raise(stmt, st, frame)
            st.dead = "raise"
            return st
        if isinstance(stmt, ast.Assert):
            test = self.cond(stmt.test, st, frame)
            cond = test if isinstance(test, Unexpressible) else neg(test)
            message = self.render(stmt.msg, st, frame) if stmt.msg is not None else ""
            self.record(stmt, frame, "assert", "AssertionError", message, self.path_and(st, cond), stmt.msg)
            return st
        if isinstance(stmt, ast.Return):
            value = self.ev(stmt.value, st, frame) if stmt.value is not None else Const(None)
            frame.returns.append((st, value))
            st.dead = "return"
            return st
        if isinstance(stmt, ast.FunctionDef):
            st.locals[stmt.name] = Ref("func", stmt.name, (stmt, frame.file))
            return st
        if isinstance(stmt, ast.For):
            return self.exec_for(stmt, st, frame)
        if isinstance(stmt, ast.Try):
            self.catching.append(set().union(*(_handler_names(h) for h in stmt.handlers)))
            try:
                st = self.exec_block(stmt.body, st, frame)
            finally:
                self.catching.pop()
            if st.dead == "raise" and stmt.handlers:
                st.dead = None  # a raise its handlers catch ends the try body, not the validator
            for handler in stmt.handlers:
                reason = _try_reason(stmt.body)
                for raise_node in raises_in(handler.body):
                    self.site_at(raise_node, frame, "raise", exception_name(raise_node), self.render(
                        raise_message(raise_node), st, frame)).conditions.append(Unexpressible(reason))
            return self.exec_block(stmt.finalbody, st, frame)
        if isinstance(stmt, ast.Match):
            return self.exec_match(stmt, st, frame)
        if isinstance(stmt, ast.Break):
            if frame.breaks:
                frame.breaks[-1].append(st)
            st.dead = "break"
            return st
        if isinstance(stmt, (ast.Pass, ast.Continue, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
            return st
        if isinstance(stmt, ast.With):
            for item in stmt.items:
                value = self.ev(item.context_expr, st, frame)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value, st, frame, name_it=False)
            return self.exec_block(stmt.body, st, frame)
        for raise_node in raises_in([stmt]):
            self.site_at(raise_node, frame, "raise").conditions.append(Unexpressible(f"statement {type(stmt).__name__}"))
        return st

    def exec_raise(self, stmt: ast.Raise, st: State, frame: Frame) -> None:
        if stmt.exc is None:
            return
        message = self.render(raise_message(stmt), st, frame)
        self.record(stmt, frame, "raise", exception_name(stmt), message, self.path_and(st, TRUE), raise_message(stmt))

    def path_and(self, st: State, cond: Any) -> Any:
        """The condition of reaching a site at ST where COND holds; where part of it is not
        expressible, that part's reason, with the rest as what is `given`."""
        parts = list(st.path) + list(self.crash_guards) + [cond]
        bad = next((p for p in parts if isinstance(p, Unexpressible)), None)
        if bad is None:
            return conj(parts)
        return Unexpressible(bad.reason, given=conj([p for p in parts if not isinstance(p, Unexpressible)]))

    def exec_split_if(self, stmt: ast.If, st: State, frame: Frame) -> State:
        """`if a or b: X else: Y` as `if a: X elif b: X else: Y` (`and`: `if a: (if b: X else: Y)
        else: Y`), as Python evaluates it: where only b cannot be stated, the way through a is still
        a condition the rules can state."""
        first, *rest = stmt.test.values
        second = rest[0] if len(rest) == 1 else ast.BoolOp(stmt.test.op, rest)
        if isinstance(stmt.test.op, ast.Or):
            return self.exec_if(self.cond(first, st, frame), stmt.body, [ast.If(second, stmt.body, stmt.orelse)], st, frame)
        return self.exec_if(self.cond(first, st, frame), [ast.If(second, stmt.body, stmt.orelse)], stmt.orelse, st, frame)

    def exec_if(self, test: Any, body: list, orelse: list, st: State, frame: Frame) -> State:
        if isinstance(test, ast.Constant):
            return self.exec_block(body if test.value else orelse, st, frame)
        if isinstance(test, Unexpressible):
            test_then, test_else = test, test
        else:
            test_then, test_else = test, neg(test)
        s1 = self.exec_block(body, st.fork(test_then), frame)
        s2 = self.exec_block(orelse, st.fork(test_else), frame)
        return self.join(st, test_then, s1, s2)

    def join(self, base: State, test: Any, s1: State, s2: State) -> State:
        """The state after `if test: <s1> else: <s2>`, both started from BASE."""
        depth = len(base.path) + 1
        if s1.dead == "raise" and s2.dead == "raise":
            return s1
        if s1.dead == "raise":
            return State(s2.fields, s2.locals, base.path + s2.path[depth:], s2.dead)
        if s2.dead == "raise":
            return State(s1.fields, s1.locals, base.path + s1.path[depth:], s1.dead)
        if s1.dead and s2.dead:
            return s1
        if s1.dead:
            return s2
        if s2.dead:
            return s1
        extra = []
        e1, e2 = s1.path[depth:], s2.path[depth:]
        if e1 or e2:
            unknown = next((p for p in [test, *e1, *e2] if isinstance(p, Unexpressible)), None)
            if unknown is not None:
                extra = [unknown]
            else:
                extra = [disj([conj([test] + e1), conj([neg(test)] + e2)])]
        guard = test if not isinstance(test, Unexpressible) else test
        return State(
            self._merge_dict(guard, s1.fields, s2.fields, fields=True),
            self._merge_dict(guard, s1.locals, s2.locals),
            base.path + extra,
        )

    def _merge_dict(self, guard: Any, a: dict, b: dict, fields: bool = False) -> dict:
        out = self._merged(guard, a, b, fields)
        if fields:
            for k, v in out.items():
                if isinstance(v, GuardedChoice):
                    self._candidate(f"effective_{k.replace('.', '_')}", v, prefer=True)
        return out

    def _merged(self, guard: Any, a: dict, b: dict, fields: bool) -> dict:
        out = {}
        for k in set(a) | set(b):
            # a field nobody assigned still holds the user's value
            unset = key_node(k) if fields else _MISSING
            va, vb = a.get(k, unset), b.get(k, unset)
            if va is vb or (va is not _MISSING and vb is not _MISSING and same(va, vb)):
                out[k] = va
            elif va is _MISSING or vb is _MISSING:
                out[k] = va if vb is _MISSING else vb
            elif isinstance(guard, Unexpressible):
                out[k] = guard
            else:
                out[k] = make_choice([(guard, va), (None, vb)])
        return out

    def merge_exits(self, base: State, exits: list[State], with_locals: bool = False) -> State:
        """One state for several ways out of a call or loop that all started at BASE (a loop's
        exits share its frame, so WITH_LOCALS merges its variables too)."""
        live = [s for s in exits if s.dead != "raise"]
        if not live:
            out = base.fork()
            out.dead = "raise"
            return out
        depth = len(base.path)
        extras = [conj(s.path[depth:]) if not any(isinstance(p, Unexpressible) for p in s.path[depth:]) else None for s in live]
        def merged(attr: str) -> dict:
            out = dict(getattr(live[-1], attr))
            for k in set().union(*(getattr(s, attr) for s in live)):
                unset = key_node(k) if attr == "fields" else _MISSING
                values = [getattr(s, attr).get(k, getattr(base, attr).get(k, unset)) for s in live]
                if any(v is _MISSING for v in values):
                    continue
                if all(same(v, values[0]) for v in values):
                    out[k] = values[0]
                elif any(e is None for e in extras):
                    out[k] = Unexpressible("value set under an unknown condition")
                else:
                    out[k] = make_choice([(e, v) for e, v in zip(extras[:-1], values[:-1])] + [(None, values[-1])])
            return out

        return State(merged("fields"), merged("locals") if with_locals else dict(base.locals), list(base.path))

    def exec_for(self, stmt: ast.For, st: State, frame: Frame) -> State:
        iterable = self.ev(stmt.iter, st, frame)
        if isinstance(iterable, GuardedChoice) and all(isinstance(v, (Const, Tup)) or self.listed(v) for _, v in iterable.options):
            exits = []
            for guard, value in exclusive_options(iterable):
                branch = st.fork(guard)
                if items_of(value) is not None:
                    branch = self._unroll(stmt, branch, frame, items_of(value))
                elif self.walk_each_loop(stmt, value, branch, frame):
                    _forget_assigned(stmt, branch, f"value set in a loop over {clean_source(stmt.iter)}")
                else:
                    return self._unknown_loop(stmt, st, frame, f"list value: loop over {clean_source(stmt.iter)}")
                exits.append(branch)
            return self.merge_exits(st, exits, with_locals=True) if exits else st
        items = items_of(iterable)
        if items is None and self.listed(iterable) and self.walk_each_loop(stmt, iterable, st, frame):
            return _forget_assigned(stmt, st, f"value set in a loop over {clean_source(stmt.iter)}")
        if items is None:
            if isinstance(iterable, GuardedChoice) and all(isinstance(v, Unexpressible) for _, v in iterable.options):
                iterable = iterable.options[-1][1]  # what it is otherwise (0.1.0: the model file's keys)
            reason = iterable.reason if isinstance(iterable, Unexpressible) else f"list value: loop over {clean_source(stmt.iter)}"
            return self._unknown_loop(stmt, st, frame, reason)
        return self._unroll(stmt, st, frame, items)

    def _unknown_loop(self, stmt: ast.For, st: State, frame: Frame, reason: str) -> State:
        """A loop over items the rules cannot state: its body for its sites, each reached for the
        REASON; what it assigns is unknown after."""
        body_state = st.fork()
        self.assign(stmt.target, Unexpressible(reason), body_state, frame)
        self.exec_block(stmt.body, body_state, frame)
        return _forget_assigned(stmt, st, reason)

    def _unroll(self, stmt: ast.For, st: State, frame: Frame, items: list) -> State:
        base = st
        frame.breaks.append([])
        for guard, item in items:
            if st.dead:
                break
            if guard is None:
                self.assign(stmt.target, item, st, frame, name_it=False)
                st = self.exec_block(stmt.body, st, frame)
            else:
                inner = st.fork(guard)
                self.assign(stmt.target, item, inner, frame, name_it=False)
                inner = self.exec_block(stmt.body, inner, frame)
                skipped = st.fork(neg(guard))
                st = self.join(st, guard, inner, skipped)
        broken = frame.breaks.pop()
        if st.dead == "break":
            st.dead = None
            exits = broken
        else:
            exits = broken + [st]
        if len(exits) == 1:
            out = exits[0]
            out.dead = None if out.dead == "break" else out.dead
            return out
        for s in exits:
            s.dead = None if s.dead == "break" else s.dead
        return self.merge_exits(base, exits, with_locals=True)

    def exec_match(self, stmt: ast.Match, st: State, frame: Frame) -> State:
        subject = self.ev(stmt.subject, st, frame)
        earlier: list[ast.expr] = []
        exits = []
        for case in stmt.cases:
            test = self.pattern(case.pattern, subject, st, frame)
            if isinstance(test, Unexpressible):
                guard: Any = test
            else:
                guard = conj([neg(e) for e in earlier] + [test])
            branch = self.exec_block(case.body, st.fork(guard), frame)
            exits.append(branch)
            if not isinstance(test, Unexpressible):
                earlier.append(test)
        return self.merge_exits(st, exits + [st.fork(conj([neg(e) for e in earlier]))], with_locals=True)

    def pattern(self, pat: ast.pattern, subject: Any, st: State, frame: Frame) -> Any:
        if isinstance(pat, ast.MatchAs) and pat.pattern is None:
            return TRUE
        if isinstance(pat, ast.MatchValue):
            return self.truth(self.compare(ast.Eq(), subject, self.ev(pat.value, st, frame)))
        if isinstance(pat, ast.MatchSingleton):
            return self.truth(self.compare(ast.Is(), subject, Const(pat.value)))
        if isinstance(pat, ast.MatchOr):
            parts = [self.pattern(p, subject, st, frame) for p in pat.patterns]
            return next((p for p in parts if isinstance(p, Unexpressible)), None) or disj(parts)
        if isinstance(pat, ast.MatchSequence):
            items = items_of(subject)
            if items is None or len(items) != len(pat.patterns) or any(g is not None for g, _ in items):
                return Unexpressible("match on an unknown sequence")
            parts = [self.pattern(p, v, st, frame) for p, (_, v) in zip(pat.patterns, items)]
            return next((p for p in parts if isinstance(p, Unexpressible)), None) or conj(parts)
        return Unexpressible(f"match pattern {type(pat).__name__}")

    def assign(self, target: ast.expr, value: Any, st: State, frame: Frame, name_it: bool = True) -> None:
        if isinstance(target, ast.Name):
            if name_it:
                self._candidate(target.id, value)
            st.locals[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = items_of(value)
            if items is None or len(items) != len(target.elts) or any(g is not None for g, _ in items):
                for elt in target.elts:
                    self.assign(elt, Unexpressible(f"unpacking {ast.unparse(target)}"), st, frame)
            else:
                for elt, (_, item) in zip(target.elts, items):
                    self.assign(elt, item, st, frame, name_it)
        elif isinstance(target, ast.Attribute):
            key = self._self_key(target)
            if key is not None:
                self._candidate(f"effective_{key.replace('.', '_')}", value, prefer=True)
                st.fields[key] = value
        elif isinstance(target, ast.Subscript):
            container = self.ev(target.value, st, frame)
            index = self.ev(target.slice, st, frame)
            if container is SELF and isinstance(index, Const) and isinstance(index.value, str):
                # pyconfig's raw key dict before 0.2.0: a value it computes into a key
                self._candidate(f"effective_{index.value}", value, prefer=True)
                st.fields[index.value] = value
            elif isinstance(container, DictVal) and isinstance(index, Const):
                guard = conj(st.path[container_depth(container):]) if st.path else None
                container.entries.append((index.value, value, guard))

    def _self_key(self, target: ast.Attribute) -> str | None:
        parts = []
        node: ast.expr = target
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in ("self", "config"):
            key = ".".join(reversed(parts))
            return key if key in self.keys else None
        return None

    def _candidate(self, name: str, value: Any, prefer: bool = False) -> None:
        """Remember a computed value under the name MaxText gives it; a field it overwrites wins."""
        if isinstance(value, (GuardedChoice, BoolVal)):
            value = self.expr(value)
        if not isinstance(value, ast.expr) or isinstance(value, (ast.Name, ast.Constant, ast.Attribute)):
            return
        if free_names(value) & self.elements:
            return  # a list element's value is named only inside its generator
        dump = shape_id(value)
        if dump not in self.candidates or (prefer and not self.candidates[dump].startswith("effective_")):
            self.candidates[dump] = name
            self.candidate_nodes[dump] = value


def _forget_assigned(stmt: ast.For, st: State, reason: str) -> State:
    """ST after a loop whose iterations the walk did not follow: what its body assigns is not known."""
    for name in _assigned_names(stmt.body):
        st.locals[name] = Unexpressible(reason)
    return st


def _assigned_names(stmts: list[ast.stmt]) -> set[str]:
    return {
        t.id for stmt in stmts for n in ast.walk(stmt) if isinstance(n, ast.Assign)
        for t in n.targets if isinstance(t, ast.Name)
    }


def _handler_names(handler: ast.ExceptHandler) -> set[str]:
    if handler.type is None:
        return {"*"}
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {ast.unparse(n).split(".")[-1] for n in names}


def _try_reason(body: list[ast.stmt]) -> str:
    source = "\n".join(ast.unparse(s) for s in body)
    if ".parse(" in source:
        return "jinja parse (chat_template)"
    if "environ" in source:
        return "environment variable"
    return "exception raised at run time"

"""Fixes of a small search without the solver: the same fixes smt.FixProblem finds, found by trying
every way to change one key, then two, ... over the same keys and values (domains.py).

Z3 costs more to load than the rest of a cold check together, while most fixes change one or two
booleans or choices. Where every rule the search reads is a case split over finite values (keys
compared, tested for None or membership, combined with and/or/not), each candidate is judged by
reading the rules exactly as the encoding reads them; the winners are chosen in the order
FixProblem._best and _nearest choose them. Anything else (a number any value may fill, a mesh
axis, arithmetic on a changed key, more candidates than ENUMERATED_LIMIT, no fix at all) is not
small: the search is Z3's. tests/solve/test_enumeration.py holds the two to the same answers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from itertools import combinations, product

from flaglint.maxtext.mesh import MESH_AXIS
from flaglint.maxtext.tpu import RULE_FUNCTIONS
from flaglint.resolve.resolver import Config
from flaglint.rules.expr import CMP_FUNCS, Node, Unknown, evaluate, values_equal
from flaglint.rules.ruleset import Rule
from flaglint.solve.domains import (
    UNDEFINED,
    KeyDomains,
    applied,
    contains,
    numeric,
    same_value,
)
from flaglint.solve.solutions import Solution

# Candidates (each a way to change some of the keys) one search may judge; a count, so the same
# input is small or not on every machine. A fix of two booleans among a dozen keys is a few hundred.
ENUMERATED_LIMIT = 4096
# The integers the encoding takes as numbers (smt._SEARCHED_INTS): past them it gives up on a rule.
_SEARCHED_INTS = 2**64


class NotSmall(Exception):
    """The search is the solver's."""


def small_fixes(config: Config, rules: list[Rule], broken: list[Rule], max_fixes: int) -> list[Solution] | None:
    """The fixes FixProblem(config, rules, broken).solve(max_fixes) gives, or None where the search
    is not small."""
    try:
        return _Enumeration(config, rules, broken).solve(max_fixes)
    except NotSmall:
        return None


TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

    # A translated value: concrete ("c"), one of a finite key's values or a function of one ("f"), or a
    # truth the encoding holds as a Z3 Boolean ("b"): a boolean key, a comparison, and/or/not.
    _Value = tuple[str, Any]


class _Enumeration(KeyDomains):
    def __init__(self, config: Config, rules: list[Rule], broken: list[Rule]):
        super().__init__(config, rules, broken)
        self.judged = 0

    def solve(self, max_fixes: int) -> list[Solution]:
        self.names = sorted(self.cone)
        solutions = self._solve_names(max_fixes)
        if not solutions or len(solutions[0].values) > 1:
            self.names = sorted(self._widen(self.cone) - self.fixed)
            wider = self._solve_names(max_fixes, fewer_than=len(solutions[0].values) if solutions else None)
            if wider and (not solutions or len(wider[0].values) < len(solutions[0].values)):
                solutions = wider
        if not solutions:
            raise NotSmall  # the solver names the rules in conflict
        return solutions

    # --- the space -------------------------------------------------------------------
    def _encode(self) -> None:
        self.terms: dict[str, list[Any]] = {}
        self.kinds: dict[str, str] = {}
        for name in self.varied():
            kind = self.variable_kind(name)
            if kind == "number" or re.fullmatch(MESH_AXIS, name):
                raise NotSmall
            current = self.config.lookup(name)
            self.terms[name] = [current, not current] if kind == "bool" else self.finite_values(name)
            self.kinds[name] = kind
        self.tracked = [rule for rule in self.rules if rule.id in self.broken or set(rule.names) & self.terms.keys()]
        self.concrete: dict[Node, Any] = {}
        self.preferred = {name: self._prefer_default(name) for name in self.terms}

    def _prefer_default(self, name: str) -> int | None:
        """The index of the key's default among its values, where a fix prefers it."""
        default = self._default(name)
        if self.kinds[name] == "bool":
            if default is None:
                return None
            if not isinstance(default, bool):
                raise NotSmall
        matches = [i for i, v in enumerate(self.terms[name]) if same_value(v, default)]
        return matches[0] if matches else None

    def _candidates(self, changes: int) -> Iterator[tuple[int, ...]]:
        """Every assignment (an index into each key's values, 0 its current one) of CHANGES changes."""
        names = list(self.terms)
        for changed in combinations(range(len(names)), changes):
            for picked in product(*(range(1, len(self.terms[names[i]])) for i in changed)):
                self.judged += 1
                if self.judged > ENUMERATED_LIMIT:
                    raise NotSmall
                indices = [0] * len(names)
                for i, index in zip(changed, picked):
                    indices[i] = index
                yield tuple(indices)

    def _holds(self, indices: tuple[int, ...]) -> bool:
        self.at = {name: self.terms[name][i] for name, i in zip(self.terms, indices)}
        return all([self._constraint(rule) for rule in self.tracked])  # every rule read, as the encoding reads every one

    # --- choosing, as FixProblem does ----------------------------------------------------
    def _solve_names(self, max_fixes: int, fewer_than: int | None = None) -> list[Solution]:
        self._encode()
        names = list(self.terms)
        if self._holds((0,) * len(names)):
            raise NotSmall  # the encoding reads the broken rules otherwise than the check
        found: list[tuple[int, ...]] = []
        for changes in range(1, len(names) + 1 if fewer_than is None else min(fewer_than, len(names) + 1)):
            found = [c for c in self._candidates(changes) if self._holds(c)]
            if found:
                break
        solutions: list[Solution] = []
        left = found
        while len(solutions) < max_fixes and (best := self._best(left, names)) is not None:
            model, changed = best
            model = self._nearest(found, model, changed, names)
            solutions.append(Solution(tuple((n, self.config.lookup(n), self.terms[n][model[names.index(n)]]) for n in changed)))
            blocked = [names.index(n) for n in changed]
            left = [c for c in left if any(c[i] == 0 for i in blocked)]
        return sorted(solutions, key=lambda p: [(n, str(v)) for n, _, v in p.values])

    def _cost(self, candidate: tuple[int, ...], names: list[str]) -> int:
        """Values away from their defaults (two each), booleans left on (one each)."""
        cost = 0
        for name, index in zip(names, candidate):
            preferred = self.preferred[name]
            cost += 2 * (preferred is not None and index != preferred)
            cost += self.kinds[name] == "bool" and self.terms[name][index] is True
        return cost

    def _best(self, candidates: list[tuple[int, ...]], names: list[str]) -> tuple[tuple[int, ...], list[str]] | None:
        """FixProblem._best over the candidates (each of the fewest changes): the least cost, then
        each key kept that can be, in name order, then each changed key at its default that can be."""
        if not candidates:
            return None
        least = min(self._cost(c, names) for c in candidates)
        candidates = [c for c in candidates if self._cost(c, names) == least]
        order = sorted(range(len(names)), key=names.__getitem__)
        candidates = _granted(candidates, [lambda c, i=i: c[i] == 0 for i in order])
        changed = [n for n, index in zip(names, candidates[0]) if index != 0]
        defaults = [lambda c, i=names.index(n): c[i] == self.preferred[names[i]] for n in sorted(changed) if self.preferred[n] is not None]
        candidates = _granted(candidates, defaults)
        return (candidates[0], changed) if changed else None

    def _nearest(self, found: list[tuple[int, ...]], model: tuple[int, ...], changed: list[str], names: list[str]) -> tuple[int, ...]:
        """FixProblem._nearest: the same keys changed, each choice the first the rules allow, in name order."""
        free = [names.index(n) for n in changed if self.kinds[n] == "finite" and model[names.index(n)] != self.preferred[n]]
        if not free:
            return model
        pinned = [i for i in range(len(names)) if i not in free]
        same = [c for c in found if all(c[i] == model[i] for i in pinned) and all(c[i] != 0 for i in free)]
        return min(same, key=lambda c: [c[i] for i in free])

    # --- the rules, read as smt.FixProblem translates them --------------------------------
    def _constraint(self, rule: Rule) -> bool:
        require = self._boolean(rule.require)
        return require if rule.when is None else (not self._boolean(rule.when)) or require

    def _boolean(self, node: Node) -> bool:
        return _truth(self._translate(node))

    def _translate(self, node: Node) -> _Value:
        op = node.op
        if op == "const":
            return "c", node.value
        if not node.free & self.terms.keys():
            if node not in self.concrete:
                try:
                    self.concrete[node] = evaluate(node, self.config.lookup, RULE_FUNCTIONS)
                except Unknown:
                    self.concrete[node] = UNDEFINED
                except Exception as err:  # noqa: BLE001 - the encoding meets it too: the solver's search reports it
                    raise NotSmall from err
            return "c", self.concrete[node]
        if op == "var":
            return ("b" if self.kinds[node.value] == "bool" else "f"), self.at[node.value]
        if op == "not":
            return "b", not self._boolean(node.args[0])
        if op in ("and", "or", "implies"):
            truths = [self._boolean(a) for a in node.args]
            if op == "implies":
                return "b", not truths[0] or truths[1]
            return "b", all(truths) if op == "and" else any(truths)
        if op == "if":
            condition = self._boolean(node.args[0])
            then, other = (self._translate(a) for a in node.args[1:])
            if not all(kind == "b" or kind == "c" and isinstance(value, bool) for kind, value in (then, other)):
                raise NotSmall  # a numeric conditional
            return "b", _truth(then) if condition else _truth(other)
        if op in ("isnone", "notnone"):
            kind, value = self._translate(node.args[0])
            none = kind != "b" and value is None
            return "b", none if op == "isnone" else not none
        if op in ("in", "notin"):
            return "b", self._member(node) == (op == "in")
        if op == "cmp":
            left, right = (self._translate(a) for a in node.args)
            return "b", _compare(node.value, left, right)
        if op == "call":
            args = [self._translate(a) for a in node.args]
            symbolic = [kind for kind, _ in args if kind != "c"]
            if node.value == "count" or symbolic not in ([], ["f"]):
                raise NotSmall
            return ("f" if symbolic else "c"), applied(node.value, [value for _, value in args])
        raise NotSmall  # arithmetic or a generator over a changed key

    def _member(self, node: Node) -> bool:
        (item_kind, item), (container_kind, container) = (self._translate(a) for a in node.args)
        if container_kind == "f" and item_kind == "c":
            return container is not UNDEFINED and isinstance(container, (tuple, list, str)) and contains(container, item)
        if container_kind != "c" or not isinstance(container, (tuple, list, str)) or item_kind == "b":
            raise NotSmall
        return not (item_kind == "f" and item is UNDEFINED) and contains(container, item)


def _granted(candidates: list[tuple[int, ...]], wishes: list) -> list[tuple[int, ...]]:
    """Each wish in turn held where some candidate left holds it (FixProblem._granted)."""
    for wish in wishes:
        held = [c for c in candidates if wish(c)]
        if held:
            candidates = held
    return candidates


def _truth(value: _Value) -> bool:
    kind, v = value
    return v is not UNDEFINED and bool(v) if kind == "f" else bool(v)


def _compare(op: str, left: _Value, right: _Value) -> bool:
    fn = CMP_FUNCS[op]
    (lk, lv), (rk, rv) = left, right
    if lk == "f" and rk == "b":
        return _compare(op, ("c", lv), right)
    if rk == "f" and lk != "f":
        return _compare({"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op), right, left)
    if "b" not in (lk, rk):
        if lv is UNDEFINED or rv is UNDEFINED:
            return False
        if op in ("==", "!="):
            return values_equal(lv, rv) == (op == "==")
        return numeric(lv) and numeric(rv) and fn(lv, rv)
    # a Z3 Boolean against a value or another: as the encoding compares them
    for kind, value in (left, right):
        if kind == "c" and not numeric(value):
            return op == "!="
    if op in ("==", "!=") and all(kind == "b" or isinstance(value, bool) for kind, value in (left, right)):
        return fn(bool(lv), bool(rv))
    return fn(_number(left), _number(right))


def _number(value: _Value) -> Any:
    kind, v = value
    if kind == "b" or isinstance(v, bool):
        return int(v)
    if isinstance(v, int) and abs(v) >= _SEARCHED_INTS or isinstance(v, float) and not math.isfinite(v):
        raise NotSmall
    return v

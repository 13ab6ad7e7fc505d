"""The Z3 side of solving (rules.py): rules as constraints, and MaxSMT over "each key keeps its value".

Booleans, integers and reals are Z3 variables. Everything else (enums, strings, Tunix choices,
values that are None now) ranges over a finite domain: its current value, its choices, and the
literals the rules compare it with; any function of it is then a case split over that domain.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3

from flaglint.core.numbers import decimal_int, shown_value
from flaglint.maxtext.mesh import (
    DCN,
    FILL,
    MESH_AXIS,
    NETWORKS,
    axis_exponent,
    effective_slices,
)
from flaglint.maxtext.tpu import RULE_FUNCTIONS
from flaglint.resolve.resolver import Config
from flaglint.rules.expr import (
    ARITH_FUNCS,
    CMP_FUNCS,
    Node,
    Unknown,
    const,
    evaluate,
    substitute,
    values_equal,
)
from flaglint.rules.ruleset import Rule
from flaglint.solve.domains import (
    UNDEFINED,
    KeyDomains,
    applied,
    contains,
    numeric,
    same_value,
)
from flaglint.solve.solutions import Solution, Unsatisfiable
from flaglint.tunix.variables import load_tunix

# The work one fix search may do, in Z3's resource units (its `rlimit`), counted the same on every
# machine however busy, so that the same input gets the same fixes: past it the search stops (a
# note says so) rather than stall a pre-commit hook. The hardest searches measured (z3-solver
# 5.4.1, its "rlimit count" statistic) take 12.3 million units (a two-slice mesh of three axes),
# 10 million (test_rules' minimality keys), 4 million (linting examples/recipes/base.sh) and
# 1 million (a twelve-axis mesh), about 3.5 million a second of CPU; this is five times the hardest.
FIX_WORK_LIMIT = 60_000_000
# The pairs of values of two keys whose arithmetic is worked out pair by pair (each a case of one
# term): past it the product is left to the solver.
CASE_PAIRS = 256


class SolverWork:
    """What a search in a context of its own may still spend of its work limit. The context counts
    the work of every check made in it, so the limit bounds the search as a whole; and as no other
    search builds terms in it, the work (and which model Z3 finds) is the same whatever ran before
    in the process: in a test, in a batch, as a command."""

    def __init__(self, ctx: z3.Context, limit: int):
        self.limit = limit
        # Any solver's statistics give the context's count; this one is kept for reading it.
        self._meter = z3.Solver(ctx=ctx)
        self.start = self._count()

    def _count(self) -> int:
        return self._meter.statistics().get_key_value("rlimit count")

    def spent(self) -> int:
        return self._count() - self.start

    def left(self) -> int:
        return self.limit - self.spent()

    def check(self, solver: z3.Solver | z3.Optimize, *assumptions: Any) -> z3.CheckSatResult:
        """The solver's check within what is left: unknown once the limit is spent."""
        left = self.left()
        if left <= 0:
            return z3.unknown
        solver.set("rlimit", left)
        return solver.check(*assumptions)


class _OutOfWork(Exception):
    """The fix search spent its work limit, or Z3 gave no answer."""


class Unsupported(Exception):
    """A rule the encoding cannot express; its keys are then held at their values."""


@dataclass
class Finite:
    """A key that takes one of a few values: an index into `values` (values[0] is the current one)."""

    index: z3.ArithRef
    values: list[Any]
    # Terms built once per variable: a rule set reads the same key in dozens of places, and
    # building Z3 terms from Python is most of the time a fix takes.
    _is: dict[int, Any] = field(default_factory=dict, repr=False)
    _number: Any = field(default=None, repr=False)

    def is_(self, i: int) -> Any:
        if i not in self._is:
            self._is[i] = _equals(self.index, i)
        return self._is[i]

    def mapped(self, values: list[Any]) -> Finite:
        """A function of this key: `values[i]` where the key takes its i-th value (the terms are shared)."""
        return Finite(self.index, values, self._is)

    def number(self, num: Callable[[Any], Any]) -> Any:
        """The value as one numeric term (every value a number), each made by `num`."""
        if self._number is None:
            result = num(self.values[-1])
            integer = result.is_int()
            for i, v in reversed(list(enumerate(self.values[:-1]))):
                term = num(v)
                # of one sort, the term z3.If makes, made without its coercion of the two (a
                # value of a launch_query table has one case per combination of inputs)
                if term.is_int() == integer:
                    result = _if_same_sort(self.is_(i), term, result)
                else:
                    result = z3.If(self.is_(i), term, result)
                    integer = result.is_int()
            self._number = result
        return self._number


class FixProblem(KeyDomains):
    """Fixes for the broken rules of one config: Z3 constraints over the keys and values of
    KeyDomains (domains.py)."""

    work_limit = FIX_WORK_LIMIT

    def __init__(self, config: Config, rules: list[Rule], broken: list[Rule], ctx: z3.Context | None = None):
        """`ctx`: the Z3 context of the terms; by default one of the problem's own (SolverWork)."""
        super().__init__(config, rules, broken)
        self.ctx = ctx or z3.Context()
        self._numbers: dict[tuple[type, Any], Any] = {}

    @classmethod
    def over(cls, config: Config, terms: dict[str, Any], ctx: z3.Context) -> "FixProblem":
        """A translator of rules whose `terms` (name -> Z3 term or Finite, made in `ctx`) vary, every
        other name at its value in `config` (launch_query asks it whether a rule can break)."""
        problem = cls(config, [], [], ctx)
        problem.terms, problem._translated = terms, {}
        return problem

    # --- variables -------------------------------------------------------------------
    def _make_var(self, name: str) -> tuple[Any, list]:
        """The term for `name`, and hard constraints on its range."""
        kind = self.variable_kind(name)
        if kind == "bool":
            return z3.Bool(name, self.ctx), []
        if kind == "number":
            tunix = load_tunix().variables[name]
            var = z3.Int(name, self.ctx) if tunix.kind == "int" else z3.Real(name, self.ctx)
            known = [v for v in (self.config.lookup(name), *self._literals_of(name)) if numeric(v)]
            limits = [var >= self.num(min(known))]
            if tunix.ge is not None:
                limits.append(var >= self.num(tunix.ge))
            return var, limits
        values = self.finite_values(name)
        index = z3.Int(f"{name}#", self.ctx)
        return Finite(index, values), [index >= 0, index < len(values)]

    # --- translation -----------------------------------------------------------------
    def _term(self, name: str) -> Any:
        if name in self.terms:
            return self.terms[name]
        return self.config.lookup(name)

    def translate(self, node: Node) -> Any:
        # Derived values are inlined into every rule that reads them: translate each subtree once
        # per encoding (context_parallel_size alone is a dozen nested conditionals).
        if node not in self._translated:
            self._translated[node] = self._translate(node)
        return self._translated[node]

    def _translate(self, node: Node) -> Any:
        op = node.op
        if op == "const":
            return node.value
        if not node.free & self.terms.keys():
            try:
                return evaluate(node, self.config.lookup, RULE_FUNCTIONS)
            except Unknown:
                return UNDEFINED
        if op == "var":
            return self._term(node.value)
        if op == "not":
            return z3.Not(self.boolean(node.args[0]))
        if op in ("and", "or"):
            parts = [self.boolean(a) for a in node.args]
            return z3.And(*parts) if op == "and" else z3.Or(*parts)
        if op == "implies":
            return z3.Implies(self.boolean(node.args[0]), self.boolean(node.args[1]))
        if op == "if":
            condition = self.boolean(node.args[0])
            if z3.is_true(condition) or z3.is_false(condition):  # known here: the other branch is never taken
                return self.translate(node.args[1 if z3.is_true(condition) else 2])
            then, other = (self.translate(a) for a in node.args[1:])
            if all(isinstance(t, (bool, z3.BoolRef)) for t in (then, other)):
                return z3.If(condition, self.boolean_term(then), self.boolean_term(other))
            try:
                return z3.If(condition, self.number(then), self.number(other))
            except Unsupported:
                return _finite_if(condition, then, other)
        if op in ("isnone", "notnone"):
            term = self.translate(node.args[0])
            result = self._case(term, lambda v: v is None)
            return result if op == "isnone" else z3.Not(result)
        if op in ("in", "notin"):
            item, container = (self.translate(a) for a in node.args)
            if isinstance(container, Finite) and not isinstance(item, (Finite, z3.ExprRef)):
                # 'tpu' in hardware: a case split over the container's values.
                result = self._case(container, lambda v: isinstance(v, (tuple, list, str)) and contains(v, item))
                return result if op == "in" else z3.Not(result)
            if not isinstance(container, (tuple, list, str)):
                raise Unsupported("`in` over a variable")
            if isinstance(item, Finite) or not isinstance(item, z3.ExprRef):
                result = self._case(item, lambda v: contains(container, v))
            else:
                result = z3.Or(*[item == self.num(c) for c in container if numeric(c)] or [z3.BoolVal(False, self.ctx)])
            return result if op == "in" else z3.Not(result)
        if op == "cmp":
            left, right = (self.translate(a) for a in node.args)
            return self.compare(node.value, left, right)
        if op == "neg":
            return -self.number(self.translate(node.args[0]))
        if op == "arith":
            sides = [self.translate(a) for a in node.args]
            if (cased := self._cased(node.value, *sides)) is not None:
                return cased
            left, right = (self.number(side) for side in sides)
            if node.value == "/":
                return z3.ToReal(left) / z3.ToReal(right) if _is_int(left) and _is_int(right) else left / right
            if node.value in ("//", "%"):
                return _floored(node.value, left, right)
            return ARITH_FUNCS[node.value](left, right)
        if op == "call":
            return self.call(node)
        if op == "each":
            return self.each(node)
        raise Unsupported(op)

    def _cased(self, op: str, left: Any, right: Any) -> Any:
        """Arithmetic on a key of a few values and a number, or on two of them, worked out on each
        of its values as Python does (`//` and `%` round toward minus infinity, `/` gives a float):
        a key of those values again where it reads one key, else a term over their value pairs
        (at most CASE_PAIRS); None where it is not of that shape, or a value is no number or a
        divisor is 0 (the translation decides there)."""
        finite = [side for side in (left, right) if isinstance(side, Finite)]
        if not finite or not all(isinstance(side, Finite) or numeric(side) for side in (left, right)):
            return None
        values = [side.values if isinstance(side, Finite) else None for side in (left, right)]
        if not all(numeric(v) for found in values if found for v in found):
            return None
        function = ARITH_FUNCS[op]

        def worked(a: Any, b: Any) -> Any:
            try:
                return function(a, b)
            except (ZeroDivisionError, OverflowError):  # a value Python refuses: the translation decides there
                return None

        if len(finite) == 1 or left.index.eq(right.index):
            pairs = zip(*(found or [side] * len(finite[0].values) for found, side in zip(values, (left, right))))
            results = [worked(a, b) for a, b in pairs]
            return None if None in results else finite[0].mapped(results)
        by_value = [{}, {}]
        for side, found in zip((left, right), by_value):
            for i, value in enumerate(side.values):
                found.setdefault(value, []).append(side.is_(i))
        if len(by_value[0]) * len(by_value[1]) > CASE_PAIRS:
            return None
        cases = [(z3.And(_or(a_is, self.ctx), _or(b_is, self.ctx)), worked(a, b))
                 for a, a_is in by_value[0].items() for b, b_is in by_value[1].items()]
        if any(result is None for _, result in cases):
            return None
        term = self.num(cases[-1][1])
        for condition, result in reversed(cases[:-1]):
            term = z3.If(condition, self.num(result), term)
        return term

    def call(self, node: Node) -> Any:
        args = [self.translate(a) for a in node.args]
        name = node.value
        if name == "count":
            return z3.Sum(*[z3.If(self.boolean_term(a), 1, 0) for a in args])
        symbolic = [a for a in args if isinstance(a, (Finite, z3.ExprRef))]
        if not symbolic:
            return applied(name, args)
        finite = [a for a in symbolic if isinstance(a, Finite)]
        if len(symbolic) == 1 and finite:
            (var,) = finite
            values = [applied(name, [v if a is var else a for a in args]) for v in var.values]
            return var.mapped(values)
        if name in ("min", "max", "abs"):
            numbers = [self.number(a) for a in args]
            if name == "abs":
                return z3.If(numbers[0] >= 0, numbers[0], -numbers[0])
            result = numbers[0]
            for n in numbers[1:]:
                result = z3.If(n < result, n, result) if name == "min" else z3.If(n > result, n, result)
            return result
        raise Unsupported(f"{name}() over a symbolic value")

    def each(self, node: Node) -> Any:
        """`any(X for x in LIST)` (all, sum, prod): X once per element of each list LIST may be (a
        list key a fix may change takes its current value or another candidate: one case each)."""
        function = node.value[0]
        container = self.translate(node.args[0])
        if not isinstance(container, Finite):
            return self._each_over(node, container)
        cases = [self._each_over(node, v) if isinstance(v, (list, tuple)) else None for v in container.values]
        if function in ("any", "all"):
            # a value that is no list (None) is no case of the generator
            hits = [z3.And(container.is_(i), self.boolean_term(c)) for i, c in enumerate(cases) if c is not None]
            return z3.Or(*hits) if hits else z3.BoolVal(False, self.ctx)
        listed = [(i, self.number(c)) for i, c in enumerate(cases) if c is not None]
        if not listed:
            raise Unsupported(f"{function}() over a value that is no list")
        result = listed[-1][1]
        for i, term in reversed(listed[:-1]):
            result = z3.If(container.is_(i), term, result)
        return result

    def _each_over(self, node: Node, items: Any) -> Any:
        function, element = node.value
        if not isinstance(items, (list, tuple)):
            raise Unsupported(f"{function}() over a value that is no list")
        terms = [self.translate(substitute(node.args[1], {element: const(_hashable(item))})) for item in items]
        if function in ("any", "all"):
            truths = [self.boolean_term(t) for t in terms]
            if not truths:
                return z3.BoolVal(function == "all", self.ctx)
            return z3.Or(*truths) if function == "any" else z3.And(*truths)
        numbers = [self.number(t) for t in terms]
        if function == "sum":
            return z3.Sum(*numbers) if numbers else self.num(0)
        product = self.num(1)
        for number in numbers:
            product = product * number
        return product

    def compare(self, op: str, left: Any, right: Any) -> Any:
        fn = CMP_FUNCS[op]

        def concrete(a: Any, b: Any) -> bool:
            if a is UNDEFINED or b is UNDEFINED:
                return False
            if op in ("==", "!="):
                return values_equal(a, b) == (op == "==")
            if not (numeric(a) and numeric(b)):
                return False
            return fn(a, b)

        if isinstance(left, Finite) and isinstance(right, Finite):
            if left.index.eq(right.index):
                return _any(left, [concrete(a, b) for a, b in zip(left.values, right.values)])
            return z3.Or(
                *[z3.And(left.is_(i), right.is_(j)) for i, a in enumerate(left.values) for j, b in enumerate(right.values) if concrete(a, b)]
                or [z3.BoolVal(False, self.ctx)]
            )
        if isinstance(left, Finite):
            if isinstance(right, z3.ExprRef):
                return z3.Or(*[z3.And(left.is_(i), self.compare(op, v, right)) for i, v in enumerate(left.values)] or [z3.BoolVal(False, self.ctx)])
            return _any(left, [concrete(v, right) for v in left.values])
        if isinstance(right, Finite):
            flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
            return self.compare(flipped, right, left)
        symbolic = isinstance(left, z3.ExprRef) or isinstance(right, z3.ExprRef)
        if not symbolic:
            return z3.BoolVal(concrete(left, right), self.ctx)
        for side in (left, right):
            if not isinstance(side, z3.ExprRef) and not numeric(side):
                return z3.BoolVal(op == "!=", self.ctx)
        if z3.is_bool(left) and z3.is_bool(right) or (z3.is_bool(left) and isinstance(right, bool)) or (isinstance(left, bool) and z3.is_bool(right)):
            if op in ("==", "!="):
                return fn(self.boolean_term(left), self.boolean_term(right))
        return fn(self.number(left), self.number(right))

    def _case(self, term: Any, test) -> Any:
        if isinstance(term, Finite):
            return _any(term, [v is not UNDEFINED and bool(test(v)) for v in term.values])
        if isinstance(term, z3.ExprRef):
            return z3.BoolVal(bool(test(_SYMBOLIC_NUMBER)), self.ctx)
        return z3.BoolVal(bool(test(term)), self.ctx)

    def boolean(self, node: Node) -> Any:
        return self.boolean_term(self.translate(node))

    def boolean_term(self, term: Any) -> Any:
        if isinstance(term, Finite):
            return _any(term, [v is not UNDEFINED and bool(v) for v in term.values])
        if isinstance(term, z3.BoolRef):
            return term
        if isinstance(term, z3.ArithRef):
            return term != 0
        return z3.BoolVal(bool(term), self.ctx)

    def number(self, term: Any) -> Any:
        if isinstance(term, Finite):
            if not all(numeric(v) for v in term.values):
                raise Unsupported("arithmetic on a non-numeric value")
            return term.number(self.num)
        if isinstance(term, z3.BoolRef):
            return z3.If(term, 1, 0)
        if isinstance(term, z3.ArithRef):
            return term
        if not numeric(term):
            raise Unsupported(f"arithmetic on {term!r}")
        return self.num(term)

    def num(self, value: Any) -> Any:
        """A Python number as a Z3 one, made once per problem (a rule set names the same few often)."""
        key = (type(value), value)
        if key not in self._numbers:
            self._numbers[key] = _num(value, self.ctx)
        return self._numbers[key]

    def constraint(self, rule: Rule) -> Any:
        require = self.boolean(rule.require)
        return z3.Implies(self.boolean(rule.when), require) if rule.when is not None else require

    # --- solving ---------------------------------------------------------------------
    def _encode(self) -> tuple[dict[str, Any], list[Any]]:
        """Rules as constraints.

        A rule the encoding cannot express is left out (every fix is re-checked on the concrete
        config afterwards, so a fix that breaks it is dropped there); only a broken rule that cannot
        be expressed holds its keys at their values.
        """
        while True:
            self.terms: dict[str, Any] = {}
            self._translated: dict[Node, Any] = {}
            hard: list[Any] = []
            for name in self.names:
                if name not in self.frozen and not self._holdable(name):
                    term, limits = self._make_var(name)
                    self.terms[name] = term
                    hard.extend(limits)
            tracked: dict[str, Any] = {}
            failed: set[str] = set()
            for rule in self.rules:
                if rule.id in self.broken or set(rule.names) & set(self.terms):
                    try:
                        tracked[rule.id] = self.constraint(rule)
                    except (Unsupported, Unknown, z3.Z3Exception):
                        if rule.id in self.broken:
                            failed |= set(rule.names) & set(self.terms)
            if not failed:
                return tracked, hard + self._mesh_kept()
            self.frozen |= failed

    def _mesh_kept(self) -> list[Any]:
        """A fix may move devices between the ici (or dcn) mesh axes, but the mesh keeps spanning as
        many: a rule about expert parallelism is not fixed by asking for 1,024 more chips. A filled
        (-1) axis stays filled. An axis whose size is not a power of two (3) is outside that sum:
        it may become a power of two, as a TPU mesh axis usually is. The dcn axes never span more
        slices than the run has (a fix cannot change that count: the keys that give it are held),
        so on one slice a dcn axis of 2 becomes 1 rather than moving to an axis MaxText's slice
        check does not count. With a known device count the mesh rules (rules/mesh.yml) say how
        many devices each network spans instead."""
        hard = []
        for network, known in NETWORKS:
            if known in self.config.devices:
                continue
            exponents, total = [], 0
            for name, term in self.terms.items():
                if not (name.startswith(network) and re.fullmatch(MESH_AXIS, name) and isinstance(term, Finite)):
                    continue
                current = axis_exponent(term.values[0])
                if current is None:
                    if term.values[0] == FILL:
                        hard.append(self._keep(name))
                    continue
                total += current
                exponents.append(z3.Sum(*[z3.If(term.is_(i), axis_exponent(v) or 0, 0) for i, v in enumerate(term.values)]))
            if network == DCN and (most := axis_exponent(effective_slices(self.config.lookup, self.config.knows))) is not None:
                total = min(total, most)
            if exponents:
                hard.append(z3.Sum(*exponents) == total)
        return hard

    def _keep(self, name: str) -> Any:
        term = self.terms[name]
        if isinstance(term, Finite):
            return term.is_(0)
        current = self.config.lookup(name)
        return term == (z3.BoolVal(current, self.ctx) if isinstance(current, bool) else self.num(current))

    def _prefer_default(self, name: str) -> Any | None:
        term = self.terms[name]
        default = self._default(name)
        if isinstance(term, Finite):
            matches = [i for i, v in enumerate(term.values) if same_value(v, default)]
            return term.is_(matches[0]) if matches else None
        if default is None or (isinstance(term, z3.ArithRef) and not numeric(default)):
            return None
        return term == (z3.BoolVal(default, self.ctx) if isinstance(default, bool) else self.num(default))

    def _value(self, model: z3.ModelRef, name: str) -> Any:
        term = self.terms[name]
        if isinstance(term, Finite):
            return term.values[model.eval(term.index, model_completion=True).as_long()]
        result = model.eval(term, model_completion=True)
        if z3.is_bool(result):
            return z3.is_true(result)
        if z3.is_int_value(result):
            text = result.as_string()
            return -decimal_int(text[1:]) if text.startswith("-") else decimal_int(text)
        fraction = result.as_fraction()
        return float(fraction.numerator) / float(fraction.denominator)

    def solve(self, max_fixes: int) -> list[Solution]:
        self.work = SolverWork(self.ctx, self.work_limit)
        self.names = sorted(self.cone)
        solutions = self._solve_names(max_fixes)
        if (not solutions or len(solutions[0].values) > 1) and self.work.left() > 0:
            self.names = sorted(self._widen(self.cone) - self.fixed)
            # Only a fix of fewer keys would be taken, and saying so up front prunes the search.
            wider = self._solve_names(max_fixes, fewer_than=len(solutions[0].values) if solutions else None)
            if wider and (not solutions or len(wider[0].values) < len(solutions[0].values)):
                solutions = wider
        if not solutions and self.work.left() > 0:
            self._explain_unsat(*self._encode())
        return solutions

    def _solve_names(self, max_fixes: int, fewer_than: int | None = None) -> list[Solution]:
        """Up to `max_fixes` fixes of the fewest keys over self.names, each the best (_best) of
        those not found yet; what was found stands when the work limit is spent."""
        tracked, hard = self._encode()
        names = list(self.terms)
        solver = z3.Solver(ctx=self.ctx)
        solver.add(*hard, *tracked.values())
        if fewer_than is not None and names:
            # Only a fix of fewer keys would be taken, and saying so up front prunes the search.
            solver.add(z3.AtMost(*[z3.Not(self._keep(n)) for n in names], fewer_than - 1))
        solutions: list[Solution] = []
        best: int | None = None
        try:
            while len(solutions) < max_fixes and (found := self._best(solver, names, best)) is not None:
                model, changed = found
                best = len(changed)
                model = self._nearest(model, changed, hard, tracked)
                solutions.append(Solution(tuple((n, self.config.lookup(n), self._value(model, n)) for n in changed)))
                solver.add(z3.Or(*[self._keep(n) for n in changed]))
        except _OutOfWork:
            pass
        return sorted(solutions, key=lambda p: [(n, str(v)) for n, _, v in p.values])

    def _best(self, solver: z3.Solver, names: list[str], most: int | None) -> tuple[z3.ModelRef, list[str]] | None:
        """The best fix of at most `most` changed keys, or None. Best is, in this order: the fewest
        changed keys; values at their defaults (each worth two), then features turned off (one);
        the first key by name kept that can be kept, then the next; among the changed keys, the
        first by name at its default that can be. Each step is a plain satisfiability check with
        the step before held: Z3's weighted MaxSMT over the same objective takes seconds on a mesh
        of a dozen axes, where these checks take milliseconds. The result is one set of keys and
        values whatever the process solved before."""
        changes = [(z3.Not(self._keep(n)), 1) for n in names]
        costs = [(z3.Not(preferred), 2) for n in names if (preferred := self._prefer_default(n)) is not None]
        costs += [(self.terms[n], 1) for n in names if isinstance(self.terms[n], z3.BoolRef)]
        solver.push()
        try:
            if most is not None:
                solver.add(z3.PbLe(changes, most))
            model = self._model(solver)
            if model is None:
                return None
            # No fix has fewer keys than `most`, the size of the first one: only their number was cut.
            for weighted in (changes, costs) if most is None else (costs,):
                model = self._lowest(solver, model, weighted)
            model = self._granted(solver, model, [self._keep(n) for n in sorted(names)])
            changed = [n for n in names if not _true(model, self._keep(n))]
            defaults = [preferred for n in sorted(changed) if (preferred := self._prefer_default(n)) is not None]
            return (self._granted(solver, model, defaults), changed) if changed else None
        finally:
            solver.pop()

    def _model(self, solver: z3.Solver, *extra: Any) -> z3.ModelRef | None:
        """A model of the solver's constraints and `extra`, None when there is none."""
        solver.push()
        try:
            solver.add(*extra)
            result = self.work.check(solver)
            if result == z3.unknown:
                raise _OutOfWork
            return solver.model() if result == z3.sat else None
        finally:
            solver.pop()

    def _lowest(self, solver: z3.Solver, model: z3.ModelRef, weighted: list[tuple[Any, int]]) -> z3.ModelRef:
        """A model of the least sum of the weights of the true terms; that sum is then held."""
        if not weighted:
            return model
        cost = sum(w for term, w in weighted if _true(model, term))
        while cost > 0 and (better := self._model(solver, z3.PbLe(weighted, cost - 1))) is not None:
            model, cost = better, sum(w for term, w in weighted if _true(better, term))
        solver.add(z3.PbLe(weighted, cost))
        return model

    def _granted(self, solver: z3.Solver, model: z3.ModelRef, wishes: list[Any]) -> z3.ModelRef:
        """Each wish in turn held if it can be with those before; each is then held or refused."""
        for wish in wishes:
            if not _true(model, wish):
                granted = self._model(solver, wish)
                if granted is None:
                    solver.add(z3.Not(wish))
                    continue
                model = granted
            solver.add(wish)
        return model

    def _nearest(self, model: z3.ModelRef, changed: list[str], hard: list[Any], tracked: dict[str, Any]) -> z3.ModelRef:
        """The same keys changed, each number as near its current value as the rules allow (the
        smaller on a tie), each choice the first the rules allow, in name order. Any model would do
        for the rules, but which one Z3 returns depends on every term made before in the process:
        a fix must not change with that."""
        free = [n for n in changed if not _is_default(model, self._prefer_default(n)) and
                (isinstance(self.terms[n], Finite) or numeric(self.config.lookup(n)) and isinstance(self.terms[n], z3.ArithRef))]
        if not free:
            return model
        refine = z3.Optimize(ctx=self.ctx)
        refine.add(*hard, *tracked.values())
        for name, term in self.terms.items():
            if name not in changed:
                refine.add(self._keep(name))
            elif name in free:
                refine.add(z3.Not(self._keep(name)))
            else:  # a boolean turned over, or a value at its default: as the first solve chose it
                current = term.index if isinstance(term, Finite) else term
                refine.add(current == model.eval(current, model_completion=True))
        for name in free:
            term = self.terms[name]
            if isinstance(term, Finite):
                refine.minimize(term.index)
                continue
            current = self.num(self.config.lookup(name))
            refine.minimize(z3.If(term >= current, term - current, current - term))
            refine.minimize(term)
        return refine.model() if self.work.check(refine) == z3.sat else model

    def _explain_unsat(self, tracked: dict[str, Any], hard: list[Any]) -> None:
        solver = z3.Solver(ctx=self.ctx)
        solver.add(*hard)
        for rule_id, constraint in tracked.items():
            solver.assert_and_track(constraint, z3.Bool(f"rule {rule_id}", self.ctx))
        if self.work.check(solver) == z3.unsat:
            core = sorted(str(c).removeprefix("rule ") for c in solver.unsat_core())
            named = {n for rule in self.rules if rule.id in core for n in rule.names}
            fixed = {n: self.config.lookup(n) for n in sorted(self.fixed & named) if self.config.lookup(n) is not None}
            raise Unsatisfiable(core, fixed)


_SYMBOLIC_NUMBER = 0  # a Z3 number is never None and never a string


def _is_default(model: z3.ModelRef, preferred: Any | None) -> bool:
    return preferred is not None and _true(model, preferred)


def _true(model: z3.ModelRef, term: Any) -> bool:
    return z3.is_true(model.eval(term, model_completion=True))


def _finite_if(condition: Any, then: Any, other: Any) -> Finite:
    """A conditional over values that are not numbers (the mesh axis a sharding names): a case
    split over both branches' values, indexed by the branch taken."""
    values: list[Any] = []

    def position(value: Any) -> int:
        found = next((i for i, seen in enumerate(values) if same_value(seen, value)), None)
        if found is None:
            values.append(value)
            found = len(values) - 1
        return found

    def mapped(term: Any) -> Any:
        if isinstance(term, Finite):
            positions = [position(v) for v in term.values]
            result = z3.IntVal(positions[-1], condition.ctx)
            for i in reversed(range(len(positions) - 1)):
                result = z3.If(term.is_(i), positions[i], result)
            return result
        if isinstance(term, z3.ExprRef):
            raise Unsupported("a conditional between a value and a solver term")
        return z3.IntVal(position(term), condition.ctx)

    return Finite(z3.If(condition, mapped(then), mapped(other)), values)


def _hashable(value: Any) -> Any:
    """An element of a list value as a rule constant (a list in it as a tuple)."""
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


# Z3's work limit counts steps, not digits: a search over integers of thousands of digits runs far
# past the time the limit stands for, and no setting of MaxText's needs more than 64 bits.
_SEARCHED_INTS = 2**64


def _num(value: Any, ctx: z3.Context) -> Any:
    if isinstance(value, bool):
        return z3.IntVal(int(value), ctx)
    if isinstance(value, int):
        if abs(value) >= _SEARCHED_INTS:
            raise Unsupported(f"the value {shown_value(value)}, past the 64-bit integers a fix is searched among")
        return z3.IntVal(value, ctx)
    if not math.isfinite(value):
        raise Unsupported(f"the value {value!r}, which no real number is")
    return z3.RealVal(repr(float(value)) if abs(value) < 1e15 else int(value), ctx)


def _floored(op: str, left: Any, right: Any) -> Any:
    """Python's `//` or `%`: the quotient rounded toward minus infinity (Z3's integer division
    rounds so the remainder is never negative, which differs for a negative divisor), over the
    integers where both are integers, else over the reals (`7.5 // 2` is 3.0)."""
    if _is_int(left) and _is_int(right):
        quotient = z3.If(right >= 0, left / right, (-left) / (-right))
    else:
        left, right = (z3.ToReal(t) if _is_int(t) else t for t in (left, right))
        quotient = z3.ToReal(z3.ToInt(left / right))
    return quotient if op == "//" else left - right * quotient


def _is_int(term: Any) -> bool:
    return isinstance(term, z3.ArithRef) and term.is_int()


def _any(term: Finite, truths: list[bool]) -> Any:
    hits = [term.is_(i) for i, truth in enumerate(truths) if truth]
    return _or(hits, term.index.ctx) if hits else z3.BoolVal(False, term.index.ctx)


def _equals(term: Any, number: int) -> Any:
    """`term == number`: of an integer term, the same term made without z3's coercion of the
    number (a launch_query table's case term is compared with each of hundreds of cases)."""
    ctx = term.ctx_ref()
    sort = z3.Z3_get_sort(ctx, term.as_ast())
    if z3.Z3_get_sort_kind(ctx, sort) != z3.Z3_INT_SORT:
        return term == number
    return z3.BoolRef(z3.Z3_mk_eq(ctx, term.as_ast(), z3.Z3_mk_int(ctx, number, sort)), term.ctx)


def _if_same_sort(condition: Any, then: Any, other: Any) -> Any:
    """z3.If(condition, then, other) of two numeric terms of one sort."""
    return z3.ArithRef(z3.Z3_mk_ite(condition.ctx_ref(), condition.as_ast(), then.as_ast(), other.as_ast()), condition.ctx)


def _or(terms: list[Any], ctx: z3.Context) -> Any:
    """z3.Or(*terms) of Boolean terms of `ctx`, the same term made without z3.Or's sort check of
    each (a case split over a group's combinations in launch_query has hundreds)."""
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), len(terms), (z3.Ast * len(terms))(*[t.as_ast() for t in terms])), ctx)

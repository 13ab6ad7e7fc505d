"""Arithmetic in a rule is Python's, as MaxText computes it: `//` and `%` round toward minus
infinity over integers and floats alike (MXB527C's `num_devices * per_device_batch_size // 1` is
a float), whether the solver decides it or it is worked out on each value of a key of a few."""

import operator

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource
from flaglint.rules.expr import parse
from flaglint.solve.smt import Finite, FixProblem

OPERATORS = {"//": operator.floordiv, "%": operator.mod, "+": operator.add, "*": operator.mul, "/": operator.truediv}
numbers = st.one_of(st.integers(-50, 50), st.sampled_from([-7.5, -2.25, -1.0, 0.5, 1.0, 3.75, 12.5]))


def _problem() -> FixProblem:
    checker = Checker("bbd0f6f10")
    return FixProblem.over(checker.config(FlagSource("steps=10"))[0], {}, z3.Context())


def _value(problem: FixProblem, term, model_of=()) -> float:
    solver = z3.Solver(ctx=problem.ctx)
    solver.add(*model_of)
    assert solver.check() == z3.sat
    found = solver.model().eval(problem.number(term), model_completion=True)
    return float(found.as_fraction()) if z3.is_rational_value(found) else found.as_long()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["//", "%"]), numbers, numbers.filter(lambda b: b != 0))
def test_the_solver_rounds_as_python_does(op, a, b):
    problem = _problem()
    left = z3.Int("a", problem.ctx) if isinstance(a, int) else z3.Real("a", problem.ctx)
    right = z3.Int("b", problem.ctx) if isinstance(b, int) else z3.Real("b", problem.ctx)
    problem.terms.update({"a": left, "b": right})
    term = problem.translate(parse(f"a {op} b"))
    assert _value(problem, term, [left == problem.num(a), right == problem.num(b)]) == OPERATORS[op](a, b)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(OPERATORS)), st.lists(numbers, min_size=1, max_size=4),
       st.lists(numbers.filter(lambda b: b != 0), min_size=1, max_size=4), st.data())
def test_arithmetic_on_keys_of_a_few_values_is_pythons_on_each_pair(op, lefts, rights, data):
    problem = _problem()
    left, right = (Finite(z3.Int(name, problem.ctx), values) for name, values in (("a", lefts), ("b", rights)))
    problem.terms.update({"a": left, "b": right})
    term = problem.translate(parse(f"a {op} b"))
    i, j = data.draw(st.integers(0, len(lefts) - 1)), data.draw(st.integers(0, len(rights) - 1))
    assert _value(problem, term, [left.index == i, right.index == j]) == OPERATORS[op](lefts[i], rights[j])

"""A case split's terms are the ones z3's own constructors make: a value over a key's cases as one
If chain (made in one call where the two sides have one sort), where the cases hold as one Or
(made in one call however many there are). The solver then sees the same terms, so its answers and
a fix's or a witness's values stay the same."""

import pytest
import z3

from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource
from flaglint.solve.smt import Finite, FixProblem


def _problem() -> FixProblem:
    checker = Checker("bbd0f6f10")
    return FixProblem.over(checker.config(FlagSource("steps=10"))[0], {}, z3.Context())


@pytest.mark.parametrize("values", [[1, 2, 3, 4], [0.5, 1.5, 2.5], [1, 2.5, 3], [1.5, 2, 3], [True, 2, False]])
def test_a_number_over_cases_is_the_if_chain_z3_makes(values):
    problem = _problem()
    case = Finite(z3.Int("case", problem.ctx), values)
    expected = problem.num(values[-1])
    for i, value in reversed(list(enumerate(values[:-1]))):
        expected = z3.If(case.index == i, problem.num(value), expected)
    assert problem.number(case).eq(expected)


@pytest.mark.parametrize("truths", [[True], [False, True, True], [True] * 200, [False, False]])
def test_where_cases_hold_is_the_or_z3_makes(truths):
    problem = _problem()
    case = Finite(z3.Int("case", problem.ctx), truths)
    hits = [case.index == i for i, truth in enumerate(truths) if truth]
    expected = z3.Or(*hits) if hits else z3.BoolVal(False, problem.ctx)
    assert problem.boolean_term(case).eq(expected)

"""Fixes of mesh configs: the staged search (FixProblem._best) against Z3's weighted MaxSMT over the
same objective, the search it replaced, run here as the reference within a work limit of its own."""

import pytest
import z3
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource
from flaglint.solve.rules import applicable, violated
from flaglint.solve.smt import FixProblem
from flaglint.solve.solutions import Solution

AXES = ("diloco", "data", "pipeline", "fsdp", "fsdp_transpose", "context", "context_usp_ulysses",
        "context_autoregressive", "tensor", "tensor_sequence", "expert", "autoregressive")
CHECKER = Checker("maxtext-0.2.5")
# MaxSMT takes minutes on some meshes (the reason it was replaced): an example it cannot solve
# within this much work (Z3's rlimit units, as FIX_WORK_LIMIT's) is left out. The examples it
# solves take up to 14.6 million.
MAXSMT_WORK_LIMIT = 16_000_000


class WorkLimitReached(Exception):
    """MaxSMT spent MAXSMT_WORK_LIMIT before it found the fixes asked for."""


class MaxSMT(FixProblem):
    """One Optimize: keeping a key is worth more than all defaults and features together, a default
    two, a feature off one, and keeping the key of rank r 1/2**(r+2), so that the optimum is one set
    of keys."""

    work_limit = MAXSMT_WORK_LIMIT

    def _solve_names(self, max_fixes, fewer_than=None):
        tracked, hard = self._encode()
        names = list(self.terms)
        optimizer = z3.Optimize(ctx=self.ctx)
        optimizer.add(*hard, *tracked.values())
        if fewer_than is not None and names:
            optimizer.add(z3.AtMost(*[z3.Not(self._keep(n)) for n in names], fewer_than - 1))
        weight = 4 * (len(names) + 1)
        for rank, name in enumerate(sorted(names)):
            optimizer.add_soft(self._keep(name), weight)
            optimizer.add_soft(self._keep(name), f"1/{2 ** (rank + 2)}")
            if (preferred := self._prefer_default(name)) is not None:
                optimizer.add_soft(preferred, 2)
            if isinstance(self.terms[name], z3.BoolRef):
                optimizer.add_soft(z3.Not(self.terms[name]), 1)
        proposals, best = [], None
        while len(proposals) < max_fixes and (outcome := self.work.check(optimizer)) == z3.sat:
            model = optimizer.model()
            changed = [n for n in names if not z3.is_true(model.eval(self._keep(n), model_completion=True))]
            if not changed or (best is not None and len(changed) > best):
                break
            best = len(changed)
            model = self._nearest(model, changed, hard, tracked)
            proposals.append(Solution(tuple((n, self.config.lookup(n), self._value(model, n)) for n in changed)))
            optimizer.add(z3.Or(*[self._keep(n) for n in changed]))
        if len(proposals) < max_fixes and outcome == z3.unknown:
            raise WorkLimitReached
        return sorted(proposals, key=lambda p: [(n, str(v)) for n, _, v in p.values])


def _problem(flags):
    config, _ = CHECKER.config(FlagSource(flags))
    rules = applicable(CHECKER.ruleset, config)
    return config, rules, violated(rules, config)


def _fixes(cls, config, rules, broken, count):
    proposals = cls(config, rules, broken).solve(count)
    return [tuple((n, v) for n, _, v in p.values) for p in proposals]


def _defaults(config, fix):
    return sum(value == config.pin.default(name) for name, value in fix)


@st.composite
def meshes(draw):
    topology = draw(st.sampled_from(["v5p-8", "v6e-64", "tpu7x-256", "v5p-128"]))
    slices = draw(st.sampled_from([1, 1, 2]))
    axes = draw(st.lists(st.sampled_from(AXES), min_size=1, max_size=3, unique=True))
    sizes = draw(st.lists(st.sampled_from([1, 2, 4, 8, 16]), min_size=len(axes), max_size=len(axes)))
    if draw(st.booleans()):
        sizes[0] = -1
    flags = [f"compile_topology={topology}", f"compile_topology_num_slices={slices}"]
    flags += [f"ici_{axis}_parallelism={size}" for axis, size in zip(axes, sizes)]
    if slices > 1:
        flags.append(f"dcn_{draw(st.sampled_from(AXES))}_parallelism={draw(st.sampled_from([1, 4, -1]))}")
    return " ".join(flags)


@pytest.mark.slow
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(meshes(), st.sampled_from([1, 3]))
def test_staged_search_finds_the_fixes_of_maxsmt(flags, count):
    """With one fix asked for, the key names' tie-break decides which."""
    problem = _problem(flags)
    if not problem[2]:
        return
    staged = _fixes(FixProblem, *problem, count)
    try:
        reference = _fixes(MaxSMT, *problem, count)
    except WorkLimitReached:
        reject()
    # The same keys, in the same order; where two changed keys can trade a value for a default
    # (context 2 and tensor 1, or context 1 and tensor 2), MaxSMT takes either: as many defaults.
    assert [[n for n, _ in fix] for fix in staged] == [[n for n, _ in fix] for fix in reference], flags
    assert [_defaults(problem[0], fix) for fix in staged] == [_defaults(problem[0], fix) for fix in reference], flags
    # The same fixes again, after the reference built its terms in this process.
    assert _fixes(FixProblem, *problem, count) == staged


# A 12-axis ICI mesh of 8,192 devices on a 4,096-device slice, ici_fsdp_parallelism filling (-1):
# any one two-way axis (or a four-way one) set to 1 halves it; ties go to the later key names.
TWELVE_AXES = ("compile_topology=tpu7x-4096 compile_topology_num_slices=1 ici_fsdp_parallelism=-1 ici_diloco_parallelism=2 "
               "ici_data_parallelism=4 ici_pipeline_parallelism=2 ici_fsdp_transpose_parallelism=2 ici_context_parallelism=2 "
               "ici_context_autoregressive_parallelism=2 ici_tensor_parallelism=4 ici_tensor_sequence_parallelism=2 "
               "ici_expert_parallelism=4 ici_autoregressive_parallelism=2")


def test_a_mesh_of_twelve_axes_gets_the_three_last_one_key_fixes():
    result = CHECKER.check(FlagSource(TWELVE_AXES))
    assert "FL141" in {f.rule for f in result.findings}
    assert [[(c.key, c.to) for c in fix.changes] for fix in result.fixes] == [
        [("ici_pipeline_parallelism", 1)], [("ici_tensor_parallelism", 1)], [("ici_tensor_sequence_parallelism", 1)]]
    assert not [n for n in result.notes if "solver" in n]

"""The same fixing checks give the same bytes on an idle machine and on a busy one, in this process
and as fresh commands: what bounds the solver is a count of its work (solve/smt.py FIX_WORK_LIMIT,
lint's launch_query.QUERY_WORK_LIMIT and PLACES), never a clock, and each search counts in a Z3
context of its own."""

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest
import z3
from commandline import REPO, run_flaglint, run_flaglint_process
from test_fix_mesh import CHECKER, TWELVE_AXES

from flaglint.read.flags import FlagSource
from flaglint.solve.rules import applicable, violated
from flaglint.solve.smt import FixProblem

pytestmark = pytest.mark.process

FIXTURES = REPO / "tests" / "fixtures"
GUARDS = FIXTURES / "recipes" / "guards"
# (working directory, arguments): mesh fixes of twelve axes; a rule no fix can meet (FL119: the
# search ends in the conflict's explanation); a two-key conflict with its fix; the same conflict
# on one branch of a recipe (its witness and fix); and in a JobSet manifest; then recipes whose
# inputs are too many to enumerate (past path-cap: the solver's query, its witnesses and fix): a
# mesh of fourteen inputs, and a rule broken at three places (a query for each).
FIXING_CHECKS = [
    (REPO, ("check", "--pin", "maxtext-0.2.5", TWELVE_AXES)),
    (FIXTURES / "FL119", ("check", "-f", "bad.flags")),
    (FIXTURES / "FL101", ("check", "--env", "TRAINER_MESH_EXPERT=2", "-f", "bad.flags")),
    (FIXTURES / "FL101", ("lint", "--env", "TRAINER_MESH_EXPERT=2", "bad.sh")),
    (FIXTURES / "FL101", ("gate", "bad-jobset.yaml")),
    (GUARDS, ("lint", "fourteen_mesh_inputs.sh")),
    (GUARDS, ("lint", "--pin", "bbd0f6f10", "--path-cap", "1", "three_places.sh")),
]
BUSY_LOOPS = 2


@contextmanager
def _busy(count: int):
    """`count` processes that keep a CPU each busy for as long as the block runs."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def _in_process(cwd, args):
    done = run_flaglint(*args, cwd=cwd)
    return done.returncode, done.stdout


def _as_command(cwd, args):
    done = run_flaglint_process(*args, cwd=cwd)
    return done.returncode, done.stdout


@pytest.mark.slow
def test_fixing_checks_give_the_same_bytes_idle_and_busy_in_process_and_as_commands():
    reference = [_in_process(cwd, args) for cwd, args in FIXING_CHECKS]
    assert [code for code, _ in reference] == [1] * len(FIXING_CHECKS)
    assert [out.count("fix (") for _, out in reference] == [3, 0, 1, 1, 1, 1, 1]
    assert reference[-1][1].count("error FL101") == 3
    # The commands run side by side, and beside the in-process runs: the load is theirs too.
    with _busy(BUSY_LOOPS), ThreadPoolExecutor(len(FIXING_CHECKS)) as pool:
        commands = [pool.submit(_as_command, cwd, args) for cwd, args in FIXING_CHECKS]
        busy = [_in_process(cwd, args) for cwd, args in FIXING_CHECKS]
        fresh = [command.result() for command in commands]
    assert busy == reference
    assert fresh == reference


def _search(flags: str) -> tuple[list, int]:
    """The fixes of a flag string, and the solver work they took."""
    config, _ = CHECKER.config(FlagSource(flags))
    rules = applicable(CHECKER.ruleset, config)
    problem = FixProblem(config, rules, violated(rules, config))
    return problem.solve(3), problem.work.spent()


def test_a_search_does_the_same_work_whatever_ran_before_it_in_the_process():
    first = _search(TWELVE_AXES)
    _search("compile_topology=v5p-8 compile_topology_num_slices=1 ici_tensor_parallelism=8 ici_expert_parallelism=2")
    solver = z3.Solver()  # Z3's default context, which others in the process use
    solver.add(z3.Int("x") * z3.Int("y") == 12, z3.Int("x") > 1)
    assert solver.check() == z3.sat
    assert _search(TWELVE_AXES) == first
    assert first[1] > 0

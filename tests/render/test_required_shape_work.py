"""The work of an XPK submit script that checks N required variables by name
(script_shapes.required_variables_launcher): the count's test reads the array's elements, and the
launch's witness costs solver queries, in proportion to N; the unions of cubes its paths leave are
simplified to the same assignments."""

from __future__ import annotations

import itertools

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.render import evaluate
from flaglint.render.bash import arrays, conditions
from flaglint.render.bash.guards import simplified
from flaglint.render.bash.path_conditions import PathConditions
from tests.render.script_shapes import required_variables_launcher

UNIVERSE = {"A": [None, "", "x"], "B": [None, "y"], "C": [None, "", "z"]}


def _launch_witness(tmp_path, monkeypatch, required: int, excluded: bool = False) -> tuple[dict, int]:
    """The witness of the paths that submit the workload, and the solver queries it took;
    `excluded`: where the paths that launch nothing are left out of the witnesses' space, as lint
    leaves out the paths a finding is not judged on."""
    script = tmp_path / f"xpk_submit_{required}.sh"
    script.write_text(required_variables_launcher(required))
    evaluated = evaluate(script)
    paths = [p for o in evaluated.outcomes for p in o.paths]
    launched = [p for o in evaluated.outcomes if o.rendering.launched for p in o.paths]
    quiet = [p for o in evaluated.outcomes if not o.rendering.launched for p in o.paths]
    conditions = PathConditions(evaluated.inputs, paths, quiet if excluded else ())
    checks = []
    real_check, real_call = z3.Solver.check, z3.Z3_solver_check_assumptions

    def check(solver, *assumptions):
        checks.append(1)
        return real_check(solver, *assumptions)

    def call(*arguments):  # (z3's own call, as PathConditions makes it)
        checks.append(1)
        return real_call(*arguments)

    monkeypatch.setattr(z3.Solver, "check", check)
    monkeypatch.setattr(z3, "Z3_solver_check_assumptions", call)
    _, matters = conditions.witness(launched)
    monkeypatch.setattr(z3.Solver, "check", real_check)
    monkeypatch.setattr(z3, "Z3_solver_check_assumptions", real_call)
    return matters, len(checks)


def test_the_launch_witness_names_every_required_variable_at_queries_in_proportion(tmp_path, monkeypatch):
    few, few_queries = _launch_witness(tmp_path, monkeypatch, 16)
    many, many_queries = _launch_witness(tmp_path, monkeypatch, 64)
    # the workload is submitted only where every required variable is set: each one matters
    assert {f"REQ_{i:02d}" for i in range(64)} <= set(many)
    assert all(None not in many[f"REQ_{i:02d}"] and "" not in many[f"REQ_{i:02d}"] for i in range(64))
    assert {f"REQ_{i:02d}" for i in range(16)} <= set(few)
    # four times the variables, about four times the queries (each query asks about one input)
    assert few_queries and many_queries <= 4.5 * few_queries


def test_the_launch_witness_beside_paths_left_out_costs_queries_in_proportion(tmp_path, monkeypatch):
    # the paths that stop at the check left out of the space (their conditions, n cubes of up to n
    # inputs, in every query's solver): still one query an input
    _, few_queries = _launch_witness(tmp_path, monkeypatch, 16, excluded=True)
    _, many_queries = _launch_witness(tmp_path, monkeypatch, 64, excluded=True)
    assert few_queries and many_queries <= 4.5 * few_queries


def _elements_read(tmp_path, monkeypatch, required: int) -> int:
    """How many times evaluating the script reads whether an element of the array is there."""
    script = tmp_path / f"xpk_submit_{required}.sh"
    script.write_text(required_variables_launcher(required))
    reads = []
    real = arrays.presence

    def counted(element, taken):
        reads.append(1)
        return real(element, taken)

    for module in (arrays, conditions):  # the array's reader, and the test's own
        monkeypatch.setattr(module, "presence", counted)
    evaluate(script)
    for module in (arrays, conditions):
        monkeypatch.setattr(module, "presence", real)
    return len(reads)


def test_the_count_test_reads_elements_in_proportion_to_the_variables(tmp_path, monkeypatch):
    # `[ "${#absent[@]}" -gt 0 ]` forks once per variable, and each fork's states read the count
    # again: reading the whole array each time was N reads per fork, N**2 in all (16 times the
    # reads for four times the variables)
    few = _elements_read(tmp_path, monkeypatch, 16)
    many = _elements_read(tmp_path, monkeypatch, 64)
    assert few and many <= 5 * few


def _cube(draw_items) -> frozenset:
    return frozenset((name, frozenset(values)) for name, values in draw_items.items())


cubes = st.lists(st.fixed_dictionaries({}, optional={
    name: st.sets(st.sampled_from(values), min_size=1) for name, values in UNIVERSE.items()}).map(_cube), max_size=6)


def _assignments(union) -> set[tuple]:
    return {values for values in itertools.product(*UNIVERSE.values())
            if any(all(dict(zip(UNIVERSE, values))[name] in allowed for name, allowed in cube) for cube in union)}


@settings(max_examples=300, deadline=None)
@given(cubes)
def test_simplified_cubes_hold_the_same_assignments_in_no_more_cubes(union):
    found = simplified(union, UNIVERSE)
    assert _assignments(found) == _assignments(union)
    assert len(found) <= len(set(union))

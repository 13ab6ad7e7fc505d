"""The work of an XPK submit script that checks N required variables by name
(script_shapes.required_variables_launcher): the launch's witness costs solver queries in
proportion to N, and the unions of cubes its paths leave are simplified to the same assignments."""

from __future__ import annotations

import itertools

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.render import evaluate
from flaglint.render.bash.guards import simplified
from flaglint.render.bash.path_conditions import PathConditions
from tests.render.script_shapes import required_variables_launcher

UNIVERSE = {"A": [None, "", "x"], "B": [None, "y"], "C": [None, "", "z"]}


def _launch_witness(tmp_path, monkeypatch, required: int) -> tuple[dict, int]:
    """The witness of the paths that submit the workload, and the solver queries it took."""
    script = tmp_path / f"xpk_submit_{required}.sh"
    script.write_text(required_variables_launcher(required))
    evaluated = evaluate(script)
    paths = [p for o in evaluated.outcomes for p in o.paths]
    launched = [p for o in evaluated.outcomes if o.rendering.launched for p in o.paths]
    conditions = PathConditions(evaluated.inputs, paths)
    checks = []
    real = z3.Solver.check

    def counted(solver, *assumptions):
        checks.append(1)
        return real(solver, *assumptions)

    monkeypatch.setattr(z3.Solver, "check", counted)
    _, matters = conditions.witness(launched)
    monkeypatch.setattr(z3.Solver, "check", real)
    return matters, len(checks)


def test_the_launch_witness_names_every_required_variable_at_queries_in_proportion(tmp_path, monkeypatch):
    few, few_queries = _launch_witness(tmp_path, monkeypatch, 16)
    many, many_queries = _launch_witness(tmp_path, monkeypatch, 64)
    # the workload is submitted only where every required variable is set: each one matters
    assert {f"REQ_{i:02d}" for i in range(64)} <= set(many)
    assert all(None not in many[f"REQ_{i:02d}"] and "" not in many[f"REQ_{i:02d}"] for i in range(64))
    assert {f"REQ_{i:02d}" for i in range(16)} <= set(few)
    # four times the variables, about four times the queries (each query asks about one input)
    assert many_queries <= 4.5 * few_queries


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

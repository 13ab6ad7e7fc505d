"""The witness search's queries are bounded by Z3's work count: a query left unanswered keeps the
input it asked about, so a witness found with no work to spare is larger but still implies the paths."""

from __future__ import annotations

import z3

from flaglint.render import evaluate
from flaglint.render.bash import path_conditions
from flaglint.render.bash.path_conditions import PathConditions

# Two outcomes (exit 3 and exit 0) both launch with SIZE=256: DEBUG splits the paths but never matters.
SCRIPT = """\
if [[ "$SIZE" != 256 ]]; then exit 1; fi
export FLAGS="moe_chunk_pipeline=false moe_roe_packed_routing_gather=true"
if [[ "$DEBUG" == 1 ]]; then exit 3; fi
"""


def _witness(script):
    evaluated = evaluate(script)
    paths = [p for o in evaluated.outcomes for p in o.paths]
    launched = [p for p in paths if p.domains.get("SIZE") == ["256"]]
    conditions = PathConditions(evaluated.inputs, paths)
    return conditions, launched, conditions.witness(launched)[1]


def _implies(conditions: PathConditions, paths, matters) -> bool:
    solver = z3.Solver()
    solver.add(conditions.bounds, z3.Not(conditions.any_of(paths)))
    solver.add([conditions.member(name, values) for name, values in matters.items()])
    return solver.check() == z3.unsat


def test_a_witness_found_with_little_work_to_spare_still_implies_its_paths(tmp_path, monkeypatch):
    script = tmp_path / "recipe.sh"
    script.write_text(SCRIPT)
    conditions, launched, smallest = _witness(script)
    assert len(launched) == 2 and smallest == {"SIZE": ["256"]}
    for work in (1, 50, 1000):  # Z3 answers some queries before it counts any work
        monkeypatch.setattr(path_conditions, "WITNESS_QUERY_WORK", work)
        conditions, launched, kept = _witness(script)
        assert set(smallest) <= set(kept) and _implies(conditions, launched, kept), work

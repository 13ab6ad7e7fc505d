"""A path's condition is kept as factors over disjoint inputs (render/bash/guards.py): tests that
each read inputs of their own cost the renderer their number, not the 2**n cubes of one union.

The shape is a launcher's checks of what must be set, one after another, each on either of two
variables (`[[ -z "${IMAGE}" && -z "${IMAGE_TAG}" ]] && exit 1`): the path that gets past all n of
them holds where, for each check, one of its two variables is set."""

from __future__ import annotations

import itertools

from union_counts import cubes_unioned

from flaglint.render import evaluate
from flaglint.render.bash.types import OTHER

LAUNCH = "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml steps=10\n"


def _checks(tmp_path, count: int):
    body = "".join(f'if [[ -z "${{A_{i}:-}}" && -z "${{B_{i}:-}}" ]]; then echo "A_{i} or B_{i}"; exit 1; fi\n'
                   for i in range(count))
    script = tmp_path / f"checks{count}.sh"
    script.write_text("#!/bin/bash\n" + body + LAUNCH)
    return script


def _cubes_settled(tmp_path, monkeypatch, count: int) -> int:
    """How many cubes the renderer simplifies while it explores the script."""
    return cubes_unioned(monkeypatch, lambda: evaluate(_checks(tmp_path, count)))[0]


def test_independent_checks_cost_their_number_not_their_combinations(tmp_path, monkeypatch):
    few, many = _cubes_settled(tmp_path, monkeypatch, 6), _cubes_settled(tmp_path, monkeypatch, 12)
    # twice the checks, about twice the cubes (one union of 2**n cubes: 64 times as many at least)
    assert many <= 2.5 * few


def test_the_path_past_the_checks_holds_exactly_where_each_check_has_a_variable_set(tmp_path):
    count = 4
    exploration = evaluate(_checks(tmp_path, count))
    launching = [p for o in exploration.outcomes if o.rendering.launched for p in o.paths]
    assert len(launching) == 1
    names = [f"{letter}_{i}" for i in range(count) for letter in "AB"]
    for values in itertools.product((None, "", OTHER), repeat=len(names)):
        env = dict(zip(names, values))
        admitted = launching[0].admits(env)
        assert admitted == all(env[f"A_{i}"] or env[f"B_{i}"] for i in range(count)), env

"""flaglint's Tunix checks against each bundled Tunix release (tests/tunix_env.py builds the oracle):
on drawn command lines (tests/oracle/tunix_differential.py), both must say the same of what Tunix
refuses at start-up and after downloads in at least 99% of the cases, and every case where they
part must fit a class whose cause is explained (EXPLAINED there).
`python bench/tunix_agreement_bench.py` prints the same table for more cases."""

from __future__ import annotations

import pytest
from tunix_env import RELEASES, tunix_python, unavailable

from oracle.tunix_differential import (
    EXPLAINED,
    classify,
    draw_cases,
    flaglint_verdicts,
    tunix_verdicts,
)

pytestmark = pytest.mark.oracle

CASES = 300  # per release: about 20 s of Tunix


@pytest.fixture(scope="module", params=RELEASES)
def judged(request):
    version = request.param
    if tunix_python(version) is None:
        pytest.skip(unavailable(version))
    cases = draw_cases(version, CASES)
    return version, cases, flaglint_verdicts(version, cases), tunix_verdicts(version, cases)


def test_flaglint_and_tunix_agree_on_what_stops_the_run(judged):
    version, cases, ours, theirs = judged
    apart = [(c, o, t) for c, o, t in zip(cases, ours, theirs) if o.stage != t.stage]
    stages = {stage: sum(t.stage == stage for t in theirs) for stage in ("start-up", "after downloads", None)}
    print(f"\ntunix {version}: agreement {1 - len(apart) / len(cases):.2%} of {len(cases)} ({stages})")
    assert len(cases) == CASES and all(stages.values()), "the draw must hold cases of every outcome"
    assert len(apart) <= 0.01 * len(cases), [(c.mutation, o, t) for c, o, t in apart]


def test_every_case_tunix_takes_flaglint_takes(judged):
    """Specificity 1.000: flaglint gives no error where the release runs."""
    _, cases, ours, theirs = judged
    assert [(c.mutation, c.argv[-2:], o) for c, o, t in zip(cases, ours, theirs) if t.stage is None and o.stage is not None] == []


def test_every_disagreement_has_an_explained_class(judged):
    _, cases, ours, theirs = judged
    unexplained = [(c.mutation, c.argv[-2:], c.env, o, t) for c, o, t in zip(cases, ours, theirs)
                   if o.stage != t.stage and classify(c, o, t) not in EXPLAINED]
    assert unexplained == []


# The kinds of perturbation the agreement is judged on that a release refuses after start-up (the
# misses measured before: max_steps against the data, meshes against the devices, the sections
# handed to a constructor, a replaced section, 0.1.7's smaller checks, the micro batch sizes).
AFTER_START_UP = ("max_steps beyond num_batches", "max_steps beyond the data", "mesh on the devices", "mesh lengths",
                  "checkpointing options key", "num_generations type", "learning rate type", "optimizer name",
                  "replaced section without opt_type", "empty tokenizer path", "same_mesh_as beside a mesh",
                  "allocation policy", "micro batch divides", "rollout micro batch")


@pytest.mark.parametrize("version", RELEASES)
def test_every_kind_of_perturbation_is_drawn_at_every_release(version):
    drawn = {part for case in draw_cases(version, CASES) for part in case.mutation.split(" + ")}
    assert set(AFTER_START_UP) <= drawn, sorted(set(AFTER_START_UP) - drawn)

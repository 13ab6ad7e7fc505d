"""Every input kind, made from a drawn seed (tests/hostile_inputs.py; bench/fuzz_campaign.py runs
thousands of the same seeds): each run ends in exit 0, 1 or 2, never an internal error, and exit 2
is one line."""

from __future__ import annotations

import pytest
from commandline import run_flaglint
from hostile_inputs import MAKERS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flaglint.pins import pins, store


def ends_well(ran) -> None:
    assert ran.returncode in (0, 1, 2), (ran.args, ran.returncode, ran.stderr)
    assert "internal error" not in ran.stderr and "Traceback" not in ran.stderr, (ran.args, ran.stderr)
    if ran.returncode == 2:
        assert len(ran.stderr.strip().splitlines()) == 1, (ran.args, ran.stderr)


def run_case(case, folder) -> None:
    for cached in (pins.load_pin, store.project_store):  # a store made by one case is not another's
        cached.cache_clear()
    try:
        ends_well(run_flaglint(*case.args, stdin=case.stdin, env=case.env, cwd=folder))
    finally:
        for cached in (pins.load_pin, store.project_store):
            cached.cache_clear()


@pytest.mark.parametrize("kind", sorted(MAKERS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_every_input_kind_ends_well(tmp_path_factory, kind, seed):
    import random

    folder = tmp_path_factory.mktemp("case")
    run_case(MAKERS[kind](random.Random(seed), folder), folder)

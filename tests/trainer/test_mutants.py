"""Each mutant of the trainer core (mutants.py) makes a fast trainer test fail."""

from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("jax")

from mutants import MUTANTS, UNMUTATED, run_mutant  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def killers():
    """Mutant name -> the test that failed with it (None: every test passed), two at a time, once
    the same tests have passed on an unchanged copy (else a broken copy would kill every mutant)."""
    run_mutant(UNMUTATED)
    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(run_mutant, MUTANTS))


@pytest.mark.parametrize("name", MUTANTS)
def test_mutant_is_killed(name, killers):
    assert killers[name] is not None, f"every fast trainer test passes with the mutant {name!r}"

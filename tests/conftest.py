import gc
import os

import pytest
from commandline import REPO, run_flaglint
from hypothesis import settings

# JAX keeps what it compiles under .cache/jax (set before any test imports jax; processes the tests
# start inherit it): a second run, and each trainer mutant's run, loads the programs instead.
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(REPO / ".cache" / "jax"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")

# Hypothesis profiles. `dev`, the default: at most DEV_EXAMPLES examples a test, the same ones
# every run. `ci` (HYPOTHESIS_PROFILE=ci, as .ci/run sets it): the count each test asks for (100
# where it names none), the same ones every run (a landing is not a draw), and no example database
# written into the checkout. `fresh`: the same counts drawn afresh each run, to look for new failures.
DEV_EXAMPLES = 10
settings.register_profile("dev", max_examples=DEV_EXAMPLES, derandomize=True, deadline=None)
settings.register_profile("ci", deadline=None, database=None, print_blob=True, derandomize=True)
settings.register_profile("fresh", deadline=None, database=None, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.load_profile(PROFILE)


def pytest_addoption(parser):
    parser.addoption("--update-snapshots", action="store_true",
                     help="rewrite the expected outputs of tests/fixtures (test_fixtures.py) from this run")


def pytest_collection_modifyitems(items):
    """Under `dev`, a test's own `@settings(max_examples=N)` is capped at DEV_EXAMPLES too: N is the
    count CI runs. Hypothesis reads a test's settings from this attribute (it has no public cap)."""
    if PROFILE != "dev":
        return
    for item in items:
        test = getattr(item, "obj", None)
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)
        if chosen is not None and chosen.max_examples > DEV_EXAMPLES:
            test._hypothesis_internal_use_settings = settings(chosen, max_examples=DEV_EXAMPLES, derandomize=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With FLAGLINT_ORACLE_REQUIRED set (.ci/run sets it where python3.12 runs), a test against
    the real MaxText that skips fails instead: CI may not pass without having compared."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("FLAGLINT_ORACLE_REQUIRED") and item.get_closest_marker("oracle"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, but this machine has python3.12 (FLAGLINT_ORACLE_REQUIRED): {reason}"


def pytest_unconfigure(config):
    """The session's objects go into the collector's frozen generation once the summary is printed:
    its last full pass at the interpreter's exit would scan them all (the suite's process then sat
    silent for seconds, all of them CPU) and free nothing the exit itself does not."""
    gc.freeze()


@pytest.fixture
def flaglint_cli():
    return run_flaglint

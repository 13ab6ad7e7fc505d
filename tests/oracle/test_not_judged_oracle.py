"""The refusals flaglint once passed without a word, against each release's own pyconfig: MaxText
refuses every one, and flaglint gives a rule's error or FL016 (not judged), never "no findings".
0.2.2 (not bundled) is imported from its wheel into a scratch pin store first."""

from __future__ import annotations

import pytest
from maxtext_env import maxtext_wheel, oracle_python, unavailable

from flaglint.frontends.check.confirm import verdicts
from flaglint.frontends.checker import Checker
from flaglint.pins import pins, store
from flaglint.pins.register import register
from flaglint.read.flags import FlagSource

pytestmark = pytest.mark.oracle

CUSTOM_MESH = [
    "context_parallel_strategy=ring ici_context_parallelism=2",
    "ici_context_parallelism=2 context_parallel_reorder_strategy=striped",
    "context_sharding=tensor",
]
DILOCO = "num_slices=3 dcn_diloco_parallelism=-1 dcn_fsdp_parallelism=2"
CASES = {
    "0.2.2": [*CUSTOM_MESH, DILOCO],
    "0.2.3": [*CUSTOM_MESH, "ici_sequence_parallelism=3", DILOCO, "compress_ratios=[2]"],
    "0.2.4": [DILOCO, "compress_ratios=[2]"],
    "0.2.5": [DILOCO, "compress_ratios=[2]"],
}


@pytest.fixture
def imported(tmp_path_factory, monkeypatch):
    """The pin of a release: bundled, or its wheel imported into a scratch user store."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
    pins.load_pin.cache_clear()
    store.project_store.cache_clear()

    def pin_of(version: str) -> str:
        if f"maxtext-{version}" in pins.bundled_pins():
            return f"maxtext-{version}"
        wheel = maxtext_wheel(version)
        if wheel is None:
            pytest.skip(unavailable("wheel", version))
        return register(wheel).name

    yield pin_of
    pins.load_pin.cache_clear()


@pytest.mark.parametrize("version", sorted(CASES))
def test_maxtext_refuses_each_and_flaglint_says_so(version, imported):
    python = oracle_python(version)
    if python is None:
        pytest.skip(unavailable("oracle", version))
    flags = CASES[version]
    checker = Checker(imported(version))
    for text, verdict in zip(flags, verdicts(python, [f.split() for f in flags])):
        assert not verdict.ok, (version, text, "MaxText accepts it")
        findings = checker.check(FlagSource(text), fix=False).findings
        judged = [f.rule for f in findings if f.severity == "error"]
        not_judged = [f.rule for f in findings if f.rule == "FL016"]
        assert judged or not_judged, (version, text, verdict.describe())

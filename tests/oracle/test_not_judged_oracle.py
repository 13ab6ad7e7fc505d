"""The refusals flaglint once passed without a word, against each release's own pyconfig: MaxText
refuses every one, and flaglint gives a rule's error or FL016 (not judged), never "no findings".
0.2.2 (not bundled) is imported from its wheel into a scratch pin store first."""

from __future__ import annotations

import pytest
from maxtext_env import oracle_python, unavailable

from flaglint.frontends.check.confirm import verdicts
from flaglint.frontends.checker import Checker
from flaglint.pins import pins, store
from flaglint.read.flags import FlagSource
from oracle.differential import release_pin

pytestmark = pytest.mark.oracle

CUSTOM_MESH = [
    "context_parallel_strategy=ring ici_context_parallelism=2",
    "ici_context_parallelism=2 context_parallel_reorder_strategy=striped",
    "context_sharding=tensor",
]
DILOCO = "num_slices=3 dcn_diloco_parallelism=-1 dcn_fsdp_parallelism=2"
RATIO = "compress_ratios=[2]"
# Each refusal, and whether a rule states the check MaxText raised (an error whose message starts as
# MaxText's does), else at least FL016 (not judged). The list values are read element by element:
# the loop over compress_ratios, the comprehension over mesh_axes (base.yml's or the user's).
CASES = {
    # pyconfig splits constant_bound_config at ',' and wants 0 or 6 pieces
    "0.1.0": [("constant_bound_config=1,2,3", True), ("constant_bound_config=1,2,3,4,5,6,7", True)],
    "0.2.2": [(flags, False) for flags in CUSTOM_MESH] + [(DILOCO, True)],
    "0.2.3": [(flags, False) for flags in CUSTOM_MESH] + [("ici_sequence_parallelism=3", False), (DILOCO, True), (RATIO, True),
                                                          ("compress_ratios=[0,8,3]", True)],
    "0.2.4": [(DILOCO, True), (RATIO, True)],
    "0.2.5": [(DILOCO, True), (RATIO, True),
              ("mesh_axes=[data,fsdp,diloco] num_slices=4 dcn_diloco_parallelism=-1 dcn_data_parallelism=3", True),
              ("attention_type=compressed compress_ratios=[0,4] ici_context_parallelism=2 dq_reduction_steps=0", True)],
}


@pytest.fixture
def imported(tmp_path_factory, monkeypatch):
    """The pin of a release: bundled, or its wheel imported into a scratch user store."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
    pins.load_pin.cache_clear()
    store.project_store.cache_clear()

    def pin_of(version: str) -> str:
        pin = release_pin(version)
        if pin is None:
            pytest.skip(unavailable("wheel", version))
        return pin

    yield pin_of
    pins.load_pin.cache_clear()


@pytest.mark.parametrize("version", sorted(CASES))
def test_maxtext_refuses_each_and_flaglint_says_so(version, imported):
    python = oracle_python(version)
    if python is None:
        pytest.skip(unavailable("oracle", version))
    checker = Checker(imported(version))
    cases = CASES[version]
    for (text, stated), verdict in zip(cases, verdicts(python, [flags.split() for flags, _ in cases])):
        assert not verdict.ok, (version, text, "MaxText accepts it")
        findings = checker.check(FlagSource(text), fix=False).findings
        judged = [f for f in findings if f.severity == "error"]
        not_judged = [f.rule for f in findings if f.rule == "FL016"]
        assert judged or not_judged, (version, text, verdict.describe())
        if stated:
            # MaxText's words, before the values the finding adds and the first value the message names
            starts = [f.message.rsplit(" (", 1)[0].split("{")[0].split("=")[0] for f in judged if f.rule.startswith("MX")]
            assert any(start in str(verdict.message) for start in starts), (version, text, verdict.describe(), starts)
            assert not not_judged, (version, text)

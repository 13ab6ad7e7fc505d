"""`lint` on guards that read two inputs together (tests/fixtures/recipes/guards): every
combination is checked on one merged evaluation, only a combination that launches is reported,
and its witness names exactly the inputs that decide it."""

from pathlib import Path

import pytest

from flaglint.check import Checker
from flaglint.lint import check_script
from flaglint.render.bash.symbolic import evaluate

GUARDS = Path(__file__).resolve().parent.parent / "fixtures" / "recipes" / "guards"
FORK_PIN = "e526ea02"  # its validate_moe_chunks refuses the chunk pipeline with one chunk (FL102)


def _errors(check):
    return [f for f in check.result.findings if f.severity == "error"]


def test_the_one_conflicting_combination_of_two_inputs_is_reported_with_exactly_those_inputs():
    check = check_script(GUARDS / "two_inputs_conflict.sh", Checker(FORK_PIN))
    (finding,) = _errors(check)
    assert finding.rule == "FL102" and finding.location.line == 9
    assert finding.witness["env"] == {"MOE_OVERLAP": "true", "SEQUENCE": "short"}
    assert finding.witness["branches"] == [8]
    assert check.result.fixes


def test_a_guard_that_refuses_that_combination_with_exit_1_leaves_no_finding():
    check = check_script(GUARDS / "two_inputs_refused.sh", Checker(FORK_PIN))
    assert check.result.findings == [] and check.result.fixes == []


@pytest.fixture(scope="module")
def forty_switches() -> str:
    return (GUARDS / "forty_two_input_switches.sh").read_text()


def test_forty_switches_each_guarded_over_two_inputs_merge_into_one_path(forty_switches, tmp_path):
    script = tmp_path / "forty.sh"
    script.write_text(forty_switches)
    merged = evaluate(script)
    assert len(merged.outcomes) == 1 and merged.paths_explored == 1
    assert {n for n in merged.inputs if n.startswith(("SWITCH_", "TRAIN_"))} == {f"{p}_{i}" for p in ("SWITCH", "TRAIN") for i in range(40)}
    check = check_script(script, Checker())
    assert check.result.findings == []


def test_a_conflict_under_one_of_forty_two_input_guards_names_only_its_two_inputs(forty_switches, tmp_path):
    script = tmp_path / "forty.sh"
    conflict = ('if [[ "${SWITCH_7:-false}" == "true" && "${TRAIN_7:-yes}" == "yes" ]]; then\n'
                '  MAXTEXT_EXTRA_FLAGS+=" moe_chunk_pipeline=true num_moe_token_chunks=1"\nfi\n')
    script.write_text(forty_switches.replace("\nkubectl apply", f"\n{conflict}kubectl apply"))
    check = check_script(script, Checker(FORK_PIN))
    (finding,) = _errors(check)
    assert finding.rule == "FL102"
    assert finding.witness["env"] == {"SWITCH_7": "true", "TRAIN_7": "yes"}

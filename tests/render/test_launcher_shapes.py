"""The shapes real recipe families and launchers write, at sizes past what a path per combination
could follow: the same keys appended again behind many switches (flat, nested, `case`) before a
MaxText command line that splits the flags unquoted, and a distributed launcher (an options loop, a
flags function whose output is captured, an `||` guard, a --command string of many optional parts).
Each is judged (no FL011), its real errors found where the script writes them, and its evaluation
stays one path per outcome, not one per combination of its switches (counts, never time)."""

from __future__ import annotations

import pytest
from script_shapes import (
    REPEATED_SHAPES,
    k8s_launcher,
    manifest_launcher,
    repeated_appends,
    required_variables_launcher,
)

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate

SWITCHES = 64


@pytest.mark.parametrize("shape", REPEATED_SHAPES)
def test_the_same_keys_appended_behind_many_switches_are_judged_and_the_conflict_found(tmp_path, shape):
    script = tmp_path / f"{shape}.sh"
    script.write_text(repeated_appends(SWITCHES, shape))
    lines = script.read_text().splitlines()
    findings = check_script(script, Checker("bbd0f6f10")).result.findings
    assert "FL011" not in {f.rule for f in findings}
    errors = {(f.rule, lines[f.location.line - 1][f.location.column - 1:].split('"')[0]) for f in findings if f.severity == "error"}
    # use_dpo=true (switch 3) with packing=true (switch 63): both DPO rules, at the packing token
    assert errors == {("MXXYHDE", "packing=true"), ("MXG84NB", "packing=true")}
    # each key set again is said once where it is overridden, with the switches that do it
    overridden = [f for f in findings if f.rule == "FL003"]
    assert len(overridden) >= SWITCHES - 8 and all(f.witness["env"] for f in overridden)
    exploration = evaluate(script)
    assert len(exploration.outcomes) == 1 and len(exploration.outcomes[0].paths) == 1


def _errors(script) -> set[tuple[str, str]]:
    """Each error lint reports on the script: its rule and the key (or the word) where it points."""
    lines = script.read_text().splitlines()
    findings = check_script(script, Checker("bbd0f6f10")).result.findings
    return {(f.rule, lines[f.location.line - 1][f.location.column - 1:].split("=")[0]) for f in findings if f.severity == "error"}


def test_a_distributed_launcher_of_two_hundred_optional_parts_is_judged(tmp_path):
    script = tmp_path / "k8s_launcher.sh"
    script.write_text(k8s_launcher(200))
    found = _errors(script)
    assert "FL011" not in {rule for rule, _ in found}
    assert ("FL004", "stepz") in found
    # its outcomes: the arguments' commands (start, stop, a dry run), not the optional parts' 2**200
    assert len(evaluate(script).outcomes) <= 16


@pytest.mark.parametrize("workloads", [2, 8])
def test_each_workload_of_a_manifest_launcher_is_judged_by_its_own_inputs(tmp_path, workloads):
    # paths that differ in a function's one-arm `local` join where it returns, so each workload's
    # words are guarded by its own inputs, not by every workload's before the last one returns
    # (past the cap of combinations: FL011)
    script = tmp_path / "k8s_launcher.sh"
    script.write_text(manifest_launcher(workloads))
    assert _errors(script) == {("FL004", "stepz")}


def test_an_xpk_submit_script_that_checks_its_variables_by_name_is_judged(tmp_path):
    # the helper's array of absent names, grown behind each of the six variables, is read whole
    # (`${absent[*]}`, `${#absent[@]}`); the workload's MaxText command line is reached and judged
    script = tmp_path / "xpk_submit.sh"
    script.write_text(required_variables_launcher(6))
    assert _errors(script) == {("FL004", "stepz")}
    # the paths: the helper stops (some variable absent) or submits, for each argument; none per
    # combination of the variables' values
    assert evaluate(script).paths_explored <= 8

"""`lint` on guards that read two inputs together (tests/fixtures/recipes/guards): every
combination is checked on one merged evaluation, only a combination that launches is reported,
and its witness names exactly the inputs that decide it."""

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate

GUARDS = Path(__file__).resolve().parent.parent.parent / "fixtures" / "recipes" / "guards"
FORK_PIN = "e526ea02"  # its validate_moe_chunks refuses the chunk pipeline with one chunk (FL102)


def _errors(check):
    return [f for f in check.result.findings if f.severity == "error"]


def test_the_one_conflicting_combination_of_two_inputs_is_reported_with_exactly_those_inputs():
    check = check_script(GUARDS / "two_inputs_conflict.sh", Checker(FORK_PIN))
    (finding,) = _errors(check)
    assert finding.rule == "FL102" and finding.location.line == 9
    assert finding.witness["env"] == {"MOE_OVERLAP": "true", "SEQUENCE": "short"}
    assert finding.witness["branches"] == [{"file": str(GUARDS / "two_inputs_conflict.sh"), "line": 8}]
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


# --- a group too big to enumerate: the solver (flaglint/launch_query.py) ---------------------------

AXIS_INPUTS = {"FSDP_TRANSPOSE": "2", "CONTEXT": "2", "CONTEXT_AR": "2", "TENSOR_SEQUENCE": "2", "AUTOREGRESSIVE": "2",
               "DILOCO": "2", "PIPELINE": "2", "DATA": "4", "TP": "4", "EP": "4"}


def test_the_one_mesh_of_fourteen_inputs_too_big_for_the_slice_is_found_by_the_solver_with_only_its_inputs():
    check = check_script(GUARDS / "fourteen_mesh_inputs.sh", Checker())
    (finding,) = check.result.findings
    assert (finding.rule, finding.severity) == ("FL141", "error")
    assert "(-8192, a -1 axis counted as -1)" in finding.message and "4096 devices" in finding.message
    # LONG_CONTEXT, SMOKE_TEST, MICROBATCHES and BIG_BATCH are in the group but never matter
    assert finding.witness["env"] == AXIS_INPUTS
    assert check.result.fixes  # a fix, made as for any launch


def test_the_witness_of_the_solver_launches_what_it_says(tmp_path):
    """The witness's inputs alone break the rule: the script run with them, every other input unset."""
    script = tmp_path / "witness.sh"
    pinned = "".join(f"{name}={value}\n" for name, value in AXIS_INPUTS.items())
    script.write_text((GUARDS / "fourteen_mesh_inputs.sh").read_text().replace("set -euo pipefail\n", f"set -euo pipefail\n{pinned}"))
    (finding,) = check_script(script, Checker()).result.findings
    assert finding.rule == "FL141" and finding.witness["env"] == {}  # on its only launch


def test_the_mesh_refused_by_the_recipe_with_exit_1_leaves_no_finding():
    check = check_script(GUARDS / "fourteen_mesh_inputs_refused.sh", Checker())
    assert check.result.findings == [] and check.result.fixes == []


def test_a_group_over_the_cap_is_never_fl011_and_under_it_needs_no_solver():
    """path-cap says how many combinations are enumerated; a group over it goes to the solver."""
    for cap in (1, 16, 4096):
        assert [f.rule for f in check_script(GUARDS / "fourteen_mesh_inputs.sh", Checker(), path_cap=cap).result.findings] == ["FL141"]
    code = ("import sys; from pathlib import Path; from flaglint.frontends.checker import Checker; from flaglint.frontends.lint.scripts import check_script; "
            f"check_script(Path({str(GUARDS / 'two_inputs_conflict.sh')!r}), Checker({FORK_PIN!r})); "
            "print('flaglint.frontends.lint.launch_query' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[3]).stdout.strip() == "False"


UNTRANSLATABLE = """\
rules:
- id: XR001
  title: the mesh in thirds
  severity: error
  require: (ici_data_parallelism * ici_tensor_parallelism * ici_expert_parallelism * ici_pipeline_parallelism * ici_diloco_parallelism
    * ici_context_parallelism * ici_autoregressive_parallelism * ici_tensor_sequence_parallelism) % 3 != 7
    and kind(ici_data_parallelism * ici_tensor_parallelism * ici_expert_parallelism * ici_pipeline_parallelism * ici_diloco_parallelism
    * ici_context_parallelism * ici_autoregressive_parallelism * ici_tensor_sequence_parallelism) != 'str'
  message: never broken, but the kind of a product is not something the solver takes
  rationale: a rule the solver cannot express
  source: tests
"""


def test_a_rule_the_solver_cannot_express_is_fl011_for_it_alone_and_the_others_are_judged(tmp_path):
    rules = tmp_path / "thirds.yml"
    rules.write_text(UNTRANSLATABLE)
    checker = Checker(extra_rules=(str(rules),))
    (finding,) = check_script(GUARDS / "fourteen_mesh_inputs_refused.sh", checker).result.findings
    assert (finding.rule, finding.severity) == ("FL011", "error")
    assert "XR001" in finding.message and "cannot be decided by the solver" in finding.message
    # where the recipe the refusing one sources writes the rule's first name
    assert Path(finding.location.file).name == "fourteen_mesh_inputs.sh"
    (allowed,) = check_script(GUARDS / "fourteen_mesh_inputs_refused.sh", checker, allow_unverified=True).result.findings
    assert allowed.severity == "warning"
    # the recipe that does not refuse the mesh: its FL141 is found beside the FL011 of XR001
    found = check_script(GUARDS / "fourteen_mesh_inputs.sh", checker).result.findings
    assert sorted(f.rule for f in found) == ["FL011", "FL141"]
    assert all("XR001" in f.message for f in found if f.rule == "FL011")


def _places(findings) -> set[tuple[str, int, int]]:
    return {(f.rule, f.location.line, f.location.column) for f in findings if f.location is not None}


# Switches a generated recipe may flip: each appends one token to the flags of a v5p-8 slice whose
# ici_fsdp_parallelism fills what the other axes leave; together they break the mesh rules
# (FL140, FL141), the MoE rules, or nothing.
SWITCHED_TOKENS = ["ici_tensor_parallelism=2", "ici_tensor_parallelism=4", "ici_expert_parallelism=2", "ici_data_parallelism=-1",
                   "ici_context_parallelism=2", "ici_pipeline_parallelism=2", "ici_data_parallelism=2", "log_period=7",
                   "num_experts=4", "max_target_length=4096", "ici_context_parallelism=3"]


@st.composite
def switched_recipes(draw) -> str:
    count = draw(st.integers(2, 5))
    tokens = draw(st.lists(st.sampled_from(SWITCHED_TOKENS), min_size=count, max_size=count))
    lines = ["#!/bin/bash", 'FLAGS="compile_topology=v5p-8 compile_topology_num_slices=1"']
    if draw(st.booleans()):  # a guard that refuses one combination of two switches
        a, b = draw(st.lists(st.integers(0, count - 1), min_size=2, max_size=2, unique=True))
        lines.append(f'if [[ "${{S{a}:-off}}" == "on" && "${{S{b}:-off}}" == "on" ]]; then echo refused >&2; exit 1; fi')
    for i, token in enumerate(tokens):
        if draw(st.booleans()):  # a three-way switch
            other = draw(st.sampled_from(SWITCHED_TOKENS))
            lines.append(f'case "${{S{i}:-off}}" in on) FLAGS="${{FLAGS}} {token}" ;; half) FLAGS="${{FLAGS}} {other}" ;; esac')
            continue
        test = draw(st.sampled_from([f'"${{S{i}:-off}}" == "on"', f'"${{S{i}:-on}}" != "off"']))
        lines.append(f'if [[ {test} ]]; then FLAGS="${{FLAGS}} {token}"; fi')
    lines.append('export MAXTEXT_EXTRA_FLAGS="${FLAGS}"')
    return "\n".join(lines) + "\n"


# A guard refuses S0 and S2 on together: the witness of the MoE rules at line 4 (S0 on writes
# num_experts, S2 half would write it again) takes S2 unset, not "on" (the refused combination).
REFUSED_PAIR = """\
#!/bin/bash
FLAGS="compile_topology=v5p-8 compile_topology_num_slices=1"
if [[ "${S2:-off}" == "on" && "${S0:-off}" == "on" ]]; then echo refused >&2; exit 1; fi
if [[ "${S0:-on}" != "off" ]]; then FLAGS="${FLAGS} num_experts=4"; fi
if [[ "${S1:-off}" == "on" ]]; then FLAGS="${FLAGS} ici_data_parallelism=2"; fi
case "${S2:-off}" in on) FLAGS="${FLAGS} ici_tensor_parallelism=2" ;; half) FLAGS="${FLAGS} num_experts=4" ;; esac
if [[ "${S3:-off}" == "on" ]]; then FLAGS="${FLAGS} ici_context_parallelism=3"; fi
export MAXTEXT_EXTRA_FLAGS="${FLAGS}"
"""


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(script=switched_recipes())
@example(script=REFUSED_PAIR)
def test_the_solver_finds_the_rules_that_enumerating_every_combination_finds(script, tmp_path_factory):
    """A cap of 1 sends every group with two combinations or more to the solver; the default cap
    enumerates them (the reference). Both report the same rules at the same places; the solver's
    witness, run, breaks its rule at its place."""
    recipe = tmp_path_factory.mktemp("recipe") / "recipe.sh"
    recipe.write_text(script)
    checker = Checker()
    enumerated = check_script(recipe, checker).result.findings
    solved = check_script(recipe, checker, path_cap=1).result.findings
    assert "FL011" not in {f.rule for f in enumerated + solved}
    assert _places(solved) == _places(enumerated)
    for finding in solved:
        env = {name: value for name, value in finding.witness["env"].items() if value is not None}
        assert (finding.rule, finding.location.line, finding.location.column) in _places(check_script(recipe, checker, fixed=env, max_fixes=0).result.findings)


# Two switches each append the key the MoE rule reads (FL101 at bbd0f6f10: moe_roe_packed_routing_gather=true
# needs moe_chunk_pipeline=true), a third the other key: the rule is broken where each of the three is written last.
THREE_PLACES = GUARDS / "three_places.sh"


def test_a_rule_broken_at_several_places_of_a_group_over_the_cap_is_reported_at_each():
    recipe = THREE_PLACES
    checker = Checker("bbd0f6f10")
    enumerated = [f for f in check_script(recipe, checker).result.findings if f.severity == "error"]
    solved = [f for f in check_script(recipe, checker, path_cap=1).result.findings if f.severity == "error"]
    assert _places(solved) == _places(enumerated) == {("FL101", 3, 95), ("FL101", 4, 96), ("FL101", 5, 93)}
    for finding in solved:  # each witness, run, breaks the rule at its place
        env = {name: value for name, value in finding.witness["env"].items() if value is not None}
        assert (finding.rule, finding.location.line, finding.location.column) in _places(
            check_script(recipe, checker, fixed=env, max_fixes=0).result.findings)


def test_a_rule_broken_at_more_places_of_a_group_than_are_reported_is_fl011_at_the_group(monkeypatch):
    from flaglint.frontends.lint import launch_query

    monkeypatch.setattr(launch_query, "PLACES", 2)
    recipe = THREE_PLACES
    findings = check_script(recipe, Checker("bbd0f6f10"), path_cap=1).result.findings
    (unverified,) = [f for f in findings if f.rule == "FL011"]
    assert "FL101 is broken at more than 2 places" in unverified.message and unverified.location.line == 3
    assert unverified.severity == "error"
    monkeypatch.setattr(launch_query, "PLACES", 3)  # the third place is the last: nothing is left out
    findings = check_script(recipe, Checker("bbd0f6f10"), path_cap=1).result.findings
    assert "FL011" not in {f.rule for f in findings}
    assert {place for place in _places(findings) if place[0] == "FL101"} == {("FL101", 3, 95), ("FL101", 4, 96), ("FL101", 5, 93)}


def test_a_maxtext_command_line_whose_words_twelve_inputs_decide_is_checked_by_the_solver_too():
    check = check_script(GUARDS / "mesh_axes_command.sh", Checker())
    (finding,) = check.result.findings
    assert (finding.rule, finding.location.line) == ("FL141", 28)
    assert finding.witness["env"] == AXIS_INPUTS


def test_a_key_two_parts_of_a_big_group_both_set_is_checked_on_their_combinations(tmp_path):
    """SMOKE_TEST and LONG_CONTEXT each set max_target_length: only both at once sets it twice."""
    # the refusing recipe, beside its mesh recipe with the two switches made independent
    script = tmp_path / "fourteen_mesh_inputs_refused.sh"
    script.write_text((GUARDS / script.name).read_text())
    text = (GUARDS / "fourteen_mesh_inputs.sh").read_text()
    (tmp_path / "fourteen_mesh_inputs.sh").write_text(text.replace("\nelif [[ \"${LONG_CONTEXT", "\nfi\nif [[ \"${LONG_CONTEXT"))
    (finding,) = check_script(script, Checker()).result.findings
    assert (finding.rule, finding.severity) == ("FL003", "info")
    assert finding.witness["env"] == {"LONG_CONTEXT": "true", "SMOKE_TEST": "true"}


def test_an_input_that_picks_the_slice_joins_the_mesh_group_and_its_witness(tmp_path):
    """On tpu7x-8192 the same mesh fits: the conflict needs SLICE left at its tpu7x-4096 default."""
    script = tmp_path / "slice.sh"
    script.write_text((GUARDS / "fourteen_mesh_inputs.sh").read_text().replace(
        'FLAGS="compile_topology=tpu7x-4096 compile_topology_num_slices=1 ici_fsdp_parallelism=-1"',
        'FLAGS="compile_topology_num_slices=1 ici_fsdp_parallelism=-1"\n'
        'case "${SLICE:-tpu7x-4096}" in\n'
        '  tpu7x-8192) FLAGS="${FLAGS} compile_topology=tpu7x-8192" ;;\n'
        '  *) FLAGS="${FLAGS} compile_topology=tpu7x-4096" ;;\n'
        'esac'))
    (finding,) = check_script(script, Checker()).result.findings
    assert finding.rule == "FL141" and finding.witness["env"] == {**AXIS_INPUTS, "SLICE": None}
    assert check_script(script, Checker(), fixed={"SLICE": "tpu7x-8192"}).result.findings == []


def test_a_solver_that_gives_no_answer_leaves_the_launch_unverified(monkeypatch):
    from flaglint.frontends.lint import launch_query

    monkeypatch.setattr(launch_query, "QUERY_WORK_LIMIT", 1)
    (finding,) = check_script(GUARDS / "fourteen_mesh_inputs.sh", Checker()).result.findings
    assert (finding.rule, finding.severity, finding.location.line) == ("FL011", "error", 11)
    assert "the solver gave no answer" in finding.message


def test_tunix_variables_that_bind_mesh_axes_are_terms_of_the_query_too(tmp_path):
    """TP and EP choose TRAINER_MESH_TP and TRAINER_MESH_EXPERT (ici_tensor/expert_parallelism in Tunix)."""
    script = tmp_path / "tunix.sh"
    text = (GUARDS / "fourteen_mesh_inputs.sh").read_text()
    for axis, variable, key in (("TP", "TRAINER_MESH_TP", "ici_tensor_parallelism"), ("EP", "TRAINER_MESH_EXPERT", "ici_expert_parallelism")):
        for size in ("2", "4"):
            text = text.replace(f'{size}) FLAGS="${{FLAGS}} {key}={size}" ;;', f"{size}) export {variable}={size} ;;")
    assert "TRAINER_MESH_TP=4" in text and "TRAINER_MESH_EXPERT=4" in text
    script.write_text(text)
    (finding,) = check_script(script, Checker()).result.findings
    assert finding.rule == "FL141" and finding.witness["env"] == AXIS_INPUTS


# Each if sets F anew, so a key reaches the launch only where every later if is not taken.
SEQUENTIAL = "#!/bin/bash\n" + "".join(f'if [ "$A{i}" != x ]; then F=bad_key_{i}=1; fi\n' for i in range(4)) + \
    "python3 -m MaxText.train MaxText/configs/base.yml $F\n"


def test_the_witness_of_a_key_set_anew_by_sequential_ifs_names_each_later_input_and_each_matters(tmp_path):
    """bench/appends_bench.py's sequential ifs: the witness of the key the i-th if sets names A_i and
    every later input, none of the earlier ones (their ifs are overwritten), so the output grows as
    N**2; and it cannot be smaller: any later input not x sets F again, and the key is gone."""
    recipe = tmp_path / "sequential.sh"
    recipe.write_text(SEQUENTIAL)
    checker = Checker()
    findings = check_script(recipe, checker).result.findings
    assert sorted((f.location.line, f.witness["env"]) for f in findings) == [
        (2 + i, {f"A{i}": None, **{f"A{j}": "x" for j in range(i + 1, 4)}}) for i in range(4)]
    for finding in findings:
        place = {(finding.rule, finding.location.line, finding.location.column)}
        later = {name: value for name, value in finding.witness["env"].items() if value is not None}
        assert place <= _places(check_script(recipe, checker, fixed=later).result.findings)
        for name in later:
            assert not place & _places(check_script(recipe, checker, fixed={**later, name: "y"}).result.findings)

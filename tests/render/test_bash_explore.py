"""explore(): every feasible branch outcome, with witnesses; and scripts that cannot be evaluated."""

from __future__ import annotations

from pathlib import Path

import pytest

from flaglint.render import ScriptError, explore, render

SEED_256 = """\
export TRAINER_MESH_EXPERT="${TRAINER_MESH_EXPERT:-1}"
export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS:-} scan_layers=true"
if [[ "${TRAINER_TUNED_FLAGS:-false}" == "true" ]]; then
  export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} moe_roe_packed_routing_gather=true"
  if [[ "${TRAINER_TPU_SLICE}" == "tpu7x:4x8x8" ]]; then
    export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} moe_chunk_pipeline=false"
    if [[ "${TRAINER_MESH_EXPERT}" == "1" ]]; then
      export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} query_proj=device"
    fi
  fi
fi
"""


def write(tmp_path: Path, text: str, name: str = "recipe.sh") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def flags(outcome) -> str:
    return outcome.rendering.exported["MAXTEXT_EXTRA_FLAGS"].text


def test_seed_256_chip_branch_shape(tmp_path):
    path = write(tmp_path, SEED_256)
    result = explore(path)
    assert not result.capped
    by_flags = {flags(o): o for o in result.outcomes}
    base = " scan_layers=true"
    tuned = base + " moe_roe_packed_routing_gather=true"
    assert set(by_flags) == {
        base, tuned, tuned + " moe_chunk_pipeline=false", tuned + " moe_chunk_pipeline=false query_proj=device"}
    crash = by_flags[tuned + " moe_chunk_pipeline=false query_proj=device"]
    assert crash.env["TRAINER_TUNED_FLAGS"] == "true" and crash.env["TRAINER_TPU_SLICE"] == "tpu7x:4x8x8"
    assert crash.env["TRAINER_MESH_EXPERT"] in (None, "1")
    assert crash.branches == [(str(path), 3), (str(path), 5), (str(path), 7)]
    other_expert = by_flags[tuned + " moe_chunk_pipeline=false"]
    assert other_expert.env["TRAINER_MESH_EXPERT"] not in (None, "1")
    # the untuned outcome depends on the switch alone: the slice is never read there
    assert set(by_flags[base].env) == {"TRAINER_MESH_EXPERT", "TRAINER_TUNED_FLAGS"}
    assert by_flags[base].env["TRAINER_TUNED_FLAGS"] != "true"
    assert None in result.inputs["TRAINER_TPU_SLICE"] and "tpu7x:4x8x8" in result.inputs["TRAINER_TPU_SLICE"]
    # each witness renders to its outcome
    for o in result.outcomes:
        env = {k: v for k, v in o.env.items() if v is not None}
        assert flags(o) == render(path, env).exported["MAXTEXT_EXTRA_FLAGS"].text


def test_fixed_and_vary(tmp_path):
    path = write(tmp_path, SEED_256)
    fixed = explore(path, fixed={"TRAINER_TUNED_FLAGS": "true", "TRAINER_TPU_SLICE": "tpu7x:4x8x8"})
    assert len(fixed.outcomes) == 2
    assert fixed.inputs["TRAINER_TUNED_FLAGS"] == ["true"] and fixed.inputs["MAXTEXT_EXTRA_FLAGS"] == [None]
    varied = explore(path, vary={"TRAINER_MESH_EXPERT": ["2", "4"]})
    assert {"2", "4"} <= set(varied.inputs["TRAINER_MESH_EXPERT"])


def test_infeasible_combinations_are_pruned(tmp_path):
    script = """\
if [[ "$MODE" == a ]]; then export X=1; fi
if [[ "$MODE" == b ]]; then export Y=1; fi
"""
    result = explore(write(tmp_path, script))
    seen = {(o.rendering.exported.get("X") is not None, o.rendering.exported.get("Y") is not None)
            for o in result.outcomes}
    assert seen == {(True, False), (False, True), (False, False)}  # never both
    assert result.paths_explored == 3


def test_conditions_grouped_by_outcome(tmp_path):
    script = """\
case "$REGION" in
  us-east1*) export ZONE=east ;;
  europe-west4) export ZONE=eu ;;
  *) export ZONE=other ;;
esac
if [[ "$PROFILER_STEPS" =~ ^[0-9]+$ && "$PROFILER_STEPS" -gt 0 ]]; then export PROFILE=1; fi
"""
    result = explore(write(tmp_path, script))
    zones = {o.rendering.exported["ZONE"].text for o in result.outcomes}
    assert zones == {"east", "eu", "other"}
    profiled = [o for o in result.outcomes if "PROFILE" in o.rendering.exported]
    assert profiled and all(int(o.env["PROFILER_STEPS"]) > 0 for o in profiled)
    assert len(result.outcomes) == 6


def test_path_cap_is_reported(tmp_path):
    script = "".join(f'if [[ "$S{i}" == 1 ]]; then export F{i}=1; fi\n' for i in range(6))
    path = write(tmp_path, script)
    full = explore(path)
    assert (full.paths_explored, full.capped, len(full.outcomes)) == (64, False, 64)
    capped = explore(path, path_cap=10)
    assert capped.capped and capped.paths_explored == 10 and len(capped.outcomes) == 10


def test_paths_with_identical_exports_merge(tmp_path):
    script = 'if [[ "$A" == x ]]; then Y=1; else Y=2; fi\nunset A\nexport OUT=same\n'
    result = explore(write(tmp_path, script))
    assert result.paths_explored == 2 and len(result.outcomes) == 1


def test_unset_input_whose_values_stay_grouped_is_no_longer_exported(tmp_path):
    script = 'if [[ -n "$IN1" ]]; then\n  unset IN1\n  IN1=""\nfi\n'
    result = explore(write(tmp_path, script))
    (outcome,) = result.outcomes  # set or not, IN1 ends up unexported
    assert "IN1" not in outcome.rendering.exported and len(outcome.paths) == 2
    assert "IN1" not in render(write(tmp_path, script), {"IN1": "x"}).exported


def test_merged_paths_keep_every_path_and_its_condition(tmp_path):
    script = 'case "$MODE" in\n  a) export X=1 ;;\n  b) export X=1 ;;\n  *) export X=2 ;;\nesac\nunset MODE\n'
    result = explore(write(tmp_path, script))
    (merged,) = [o for o in result.outcomes if o.rendering.exported["X"].text == "1"]
    assert sorted(v for p in merged.paths for v in p.domains["MODE"]) == ["a", "b"]
    assert [line for p in merged.paths for _, line in p.branches] == [2, 3]


def test_inputs_read_in_sourced_file(tmp_path):
    write(tmp_path, 'if [[ "${SW:-0}" == "1" ]]; then export FLAG=on; fi\n', "lib.sh")
    result = explore(write(tmp_path, 'source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"\n'))
    assert {o.rendering.exported.get("FLAG") and o.rendering.exported["FLAG"].text for o in result.outcomes} \
        == {"on", None}


# ---- scripts that cannot be evaluated ----


def test_error_node_fails_closed_naming_the_line(tmp_path):
    path = write(tmp_path, 'export A=1\nif [[ "$X" == a ]]; then\n  export B=2\n  case x in\nfi\n')
    with pytest.raises(ScriptError) as err:
        render(path, {})
    assert err.value.file == str(path) and err.value.line in (4, 5)


def test_arithmetic_trap_in_default_is_not_an_error(tmp_path):
    path = write(tmp_path, 'export N="${X:-$(((L+9)/10))}"\n')
    assert render(path, {"L": "11"}).exported["N"].text == "2"


def test_assignments_tree_sitter_cannot_read_fail_closed(tmp_path):
    path = write(tmp_path, 'if true; then\n  [[ -n x ]] && A=1 B=2\nelse\n  A=3\nfi\n')
    with pytest.raises(ScriptError) as err:
        render(path, {})
    assert err.value.line == 2


def test_not_utf8_fails_closed(tmp_path):
    path = write(tmp_path, b"export A=1\nexport B=\xff\n")
    with pytest.raises(ScriptError) as err:
        render(path, {})
    assert err.value.line == 2 and "UTF-8" in err.value.message


def test_unreadable_script_fails_closed(tmp_path):
    with pytest.raises(ScriptError):
        render(tmp_path / "missing.sh", {})


def test_a_missing_sourced_file_is_kept_as_not_followed(tmp_path):
    # What the file would set is not known: the script is followed past it, and lint refuses it (FL011).
    r = render(write(tmp_path, "set -e\nsource ./nowhere.sh\nexport A=1\n"), {})
    assert r.exported["A"].text == "1"
    assert [(n.line, n.message) for n in r.unfound] == [(2, "the sourced file './nowhere.sh' is not found")]


@pytest.mark.parametrize("activate", ['"${HOME}/.local/venv/bin/activate"', ".venv/bin/activate", "bin/activate"])
def test_a_missing_virtual_environment_activate_script_is_a_note_not_a_file_left_unfollowed(tmp_path, activate, monkeypatch):
    # Recipes activate the venv their launcher was installed in (`source "${UV_VENV_PATH}/bin/activate"`):
    # such a script sets PATH, VIRTUAL_ENV and the prompt, so the launch after it is still judged.
    monkeypatch.chdir(tmp_path)  # a relative name is looked for from the working directory first, as bash does
    r = render(write(tmp_path, f"set -e\nsource {activate}\nexport A=1\n"), {})
    assert r.exported["A"].text == "1" and r.unfound == []
    assert [n.line for n in r.notes if "virtual environment's activate script" in n.message] == [2]


def test_a_found_activate_script_is_followed_as_any_sourced_file(tmp_path):
    (tmp_path / "bin").mkdir()
    write(tmp_path, "export FROM_VENV=1\n", "bin/activate")
    assert render(write(tmp_path, "source bin/activate\n"), {}).exported["FROM_VENV"].text == "1"


def test_syntax_error_in_sourced_file_fails_closed(tmp_path):
    bad = write(tmp_path, "if then\n", "bad.sh")
    with pytest.raises(ScriptError) as err:
        render(write(tmp_path, "source bad.sh\n"), {})
    assert err.value.file == str(bad)

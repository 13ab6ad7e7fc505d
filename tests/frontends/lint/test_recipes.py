"""`flaglint lint` on recipe scripts: the seed review's verdicts, witnesses, fixes in place, suppressions."""

import json
import shutil
from pathlib import Path

import pytest
from commandline import EXAMPLES, run_flaglint

RECIPES = EXAMPLES / "recipes"


def _lint(*args, cwd=None):
    proc = run_flaglint("lint", "--pin", "bbd0f6f10", "--format", "json", *args, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, json.loads(proc.stdout)


def _errors(payload, rule=None):
    return [f for f in payload["findings"] if f["severity"] == "error" and (rule is None or f["rule"] == rule)]


@pytest.mark.parametrize(
    ("mesh", "env"),
    [("64x1x8", []), ("32x2x8", ["--env", "TRAINER_MESH_EXPERT=2"])],
)
def test_before_gives_the_packed_gather_error_on_the_256_chip_slice(mesh, env):
    proc, payload = _lint(*env, "--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", str(RECIPES / "mlperf_397b_256_v7x_before.sh"))
    assert proc.returncode == 1
    (finding,) = _errors(payload, "FL101")
    assert finding["location"]["file"].endswith("mlperf_397b_256_v7x_before.sh")
    assert finding["location"]["line"] == 24 and finding["location"]["column"] == 56  # moe_chunk_pipeline=false
    assert finding["witness"]["env"].get("TRAINER_TUNED_FLAGS") == "true"
    assert 23 in [branch["line"] for branch in finding["witness"]["branches"]]  # the tpu7x:4x8x8 branch


def test_before_witness_names_only_the_variables_that_matter():
    """The mesh-expert input is read on the way, but both its settings crash: it is not in the witness."""
    _, payload = _lint(str(RECIPES / "mlperf_397b_256_v7x_before.sh"))
    (finding,) = _errors(payload, "FL101")
    assert finding["witness"]["env"] == {"TRAINER_TPU_SLICE": "tpu7x:4x8x8", "TRAINER_TUNED_FLAGS": "true"}
    assert [branch["line"] for branch in finding["witness"]["branches"]] == [9, 14, 21, 23, 25]
    assert {branch["file"] for branch in finding["witness"]["branches"]} == {finding["location"]["file"]}


def test_witness_is_the_smallest_set_of_inputs_that_implies_the_finding(tmp_path):
    script = tmp_path / "recipe.sh"
    script.write_text(
        'case "${REGION:-us}" in\n  us) export ZONE=a ;;\n  *) export ZONE=b ;;\nesac\n'
        'if [[ "${CHUNKS:-1}" == 1 ]]; then N=1; else N=2; fi\n'
        'if [[ "${PIPELINE:-off}" == on && "${CHUNKS:-1}" == 1 ]]; then\n'
        '  export MAXTEXT_EXTRA_FLAGS="moe_chunk_pipeline=true num_moe_token_chunks=${N}"\n'
        'fi\n'
    )
    _, payload = _lint(str(script))
    (finding,) = _errors(payload, "FL102")
    # CHUNKS=2 would avoid it, so it matters (1 or unset: the witness shows the value to write); REGION never does.
    assert finding["witness"]["env"] == {"PIPELINE": "on", "CHUNKS": "1"}


def test_before_under_the_offload_fallback_also_warns_about_projections():
    _, payload = _lint("--env", "REMAT_CONTEXT=offload", "--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", str(RECIPES / "mlperf_397b_256_v7x_before.sh"))
    warnings = [f for f in payload["findings"] if f["rule"] == "FL105"]
    assert warnings and warnings[0]["severity"] == "warning"
    assert warnings[0]["location"]["line"] == 26


@pytest.mark.parametrize("env", [[], ["--env", "TRAINER_MESH_EXPERT=2"], ["--env", "REMAT_CONTEXT=offload"], ["--env", "NUM_MOE_TOKEN_CHUNKS=4"]])
def test_after_is_clean(env):
    proc, payload = _lint(*env, str(RECIPES / "mlperf_397b_256_v7x_after.sh"))
    assert _errors(payload) == [] and not [f for f in payload["findings"] if f["severity"] == "warning"]
    assert proc.returncode == 0


def test_128_chip_recipe_with_tuned_flags_is_clean():
    proc, payload = _lint("--env", "TRAINER_TUNED_FLAGS=true", str(RECIPES / "mlperf_397b_128_v7x.sh"))
    assert proc.returncode == 0 and _errors(payload) == []


def _copy_recipes(tmp_path):
    target = tmp_path / "recipes"
    shutil.copytree(RECIPES, target)
    return target


def test_fix_edits_the_script_in_place_and_is_idempotent(tmp_path):
    recipes = _copy_recipes(tmp_path)
    script = recipes / "mlperf_397b_256_v7x_before.sh"
    before = {p.name: p.read_bytes() for p in recipes.iterdir()}
    # The report gives the fix as the same edits, at the line and column that hold what they replace.
    _, payload = _lint("--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", str(script))
    (offered,) = payload["fixes"]
    for edit in offered["edits"]:
        line = (recipes / edit["file"]).read_text().splitlines()[edit["line"] - 1] if edit.get("file") else None
        assert line is not None and line[edit["column"] - 1:edit["end_column"] - 1] == edit["old"]
    diff = run_flaglint("lint", "--pin", "bbd0f6f10", "--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", "--diff", "--unsafe-fixes", str(script))
    assert "moe_roe_packed_routing_gather" in diff.stdout or "moe_chunk_pipeline" in diff.stdout
    assert {p.name: p.read_bytes() for p in recipes.iterdir()} == before  # --diff writes nothing
    fixed = run_flaglint("lint", "--pin", "bbd0f6f10", "--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", "--fix", "--unsafe-fixes", str(script))
    assert "Traceback" not in fixed.stderr
    after = {p.name: p.read_bytes() for p in recipes.iterdir()}
    changed = [name for name in after if after[name] != before[name]]
    assert changed
    for name in changed:
        old, new = before[name].decode(), after[name].decode()
        # Only the spans of flag tokens change: every line that does not set MAXTEXT_EXTRA_FLAGS is kept.
        assert [kept for kept in old.splitlines() if "MAXTEXT_EXTRA_FLAGS" not in kept and "=" not in kept] == [
            kept for kept in new.splitlines() if "MAXTEXT_EXTRA_FLAGS" not in kept and "=" not in kept
        ]
    _, payload = _lint("--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", str(script))
    assert _errors(payload, "FL101") == []
    again = run_flaglint("lint", "--pin", "bbd0f6f10", "--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", "--fix", "--unsafe-fixes", str(script))
    assert {p.name: p.read_bytes() for p in recipes.iterdir()} == after, again.stderr


def test_suppression_with_reason_and_the_findings_about_suppressions(tmp_path):
    script = tmp_path / "r.sh"
    script.write_text(
        '#!/usr/bin/env bash\n'
        '# flaglint: disable=FL105 reason="measured: fits in HBM at this batch"\n'
        'export MAXTEXT_EXTRA_FLAGS="context=offload query_proj=device"\n'
        '# flaglint: disable=FL101\n'
        'export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} log_period=10"\n'
    )
    _, payload = _lint(str(script))
    rules = sorted(f["rule"] for f in payload["findings"])
    assert "FL105" not in rules
    assert rules.count("FL020") == 1 and rules.count("FL021") == 1


def test_syntax_error_fails_closed_naming_its_line(tmp_path):
    script = tmp_path / "broken.sh"
    script.write_text('export A=1\nif [[ "$X" == 1 ]; then\n  export B=2\n')
    proc, payload = _lint(str(script))
    (finding,) = _errors(payload, "FL010")
    assert finding["location"]["line"] >= 2 and proc.returncode == 1


def test_scripts_are_never_executed(tmp_path):
    marker = tmp_path / "executed"
    script = tmp_path / "r.sh"
    script.write_text(f'touch {marker}\nX="$(touch {marker})"\nexport MAXTEXT_EXTRA_FLAGS="log_period=10"\n')
    proc, _ = _lint(str(script))
    assert proc.returncode == 0 and not marker.exists()


def test_render_prints_exported_variables_as_json():
    proc = run_flaglint("render", "--format", "json", "--env", "TRAINER_TUNED_FLAGS=true", str(RECIPES / "mlperf_397b_128_v7x.sh"))
    payload = json.loads(proc.stdout)
    assert payload["version"] == 1
    assert payload["env"]["TRAINER_MESH_FSDP"] == "32" and payload["env"]["TRAIN_MICRO_BATCH_SIZE"] == "64"
    assert "moe_roe_packed_routing_gather=true" in payload["env"]["MAXTEXT_EXTRA_FLAGS"].split()


def test_text_output_points_at_the_script_fix_and_names_unchecked_inputs():
    proc = run_flaglint("lint", "--pin", "bbd0f6f10", "--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8",
                        str(RECIPES / "mlperf_397b_256_v7x_before.sh"))
    assert "flaglint lint --fix edits the script" in proc.stdout and "fixed flags:" not in proc.stdout
    assert "when: TRAINER_TUNED_FLAGS=true;" in proc.stdout
    # The case on TRAINER_MESH_EXPERT explores "any other value", which Tunix refuses for an integer.
    assert "paths where TRAINER_MESH_EXPERT is not an integer are not checked" in proc.stdout


def test_the_fix_hint_names_unsafe_fixes_when_the_fix_is_unsafe(tmp_path):
    for word, hint in (("bogus_key=1", "flaglint lint --fix edits the script (--diff shows the edit)"),
                       ("log_period=1.5", "flaglint lint --fix --unsafe-fixes edits the script (--diff --unsafe-fixes shows the edit)")):
        script = tmp_path / "run.sh"
        script.write_text(f"#!/bin/bash\npython3 -m maxtext.train src/maxtext/configs/base.yml run_name=a {word}\n")
        proc = run_flaglint("lint", str(script))
        assert [line.strip() for line in proc.stdout.splitlines() if "edits the script" in line] == [hint], proc.stdout


def test_a_token_of_a_shared_file_is_fixed_after_the_scripts_own_token_and_the_launch_is_then_clean(tmp_path):
    # check proposes moe_roe_packed_routing_gather=false for these flags; lint made the same fix in
    # the script (the token it drops is tuned_block.sh's, shared by other recipes), not the unsafe
    # moe_chunk_pipeline=true that breaks FL102 where num_moe_token_chunks=1
    recipes = tmp_path / "recipes"
    shutil.copytree(RECIPES, recipes)
    script = recipes / "mlperf_397b_256_v7x_before.sh"
    args = ("lint", "--pin", "bbd0f6f10", "--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", str(script))
    report = json.loads(run_flaglint(*args, "--format", "json").stdout)
    (fix,) = report["fixes"]
    assert fix["safe"] and [(c["key"], c["to"]) for c in fix["changes"]] == [("moe_roe_packed_routing_gather", False)]
    assert run_flaglint(*args, "--fix", "--unsafe-fixes").returncode == 0
    assert "moe_chunk_pipeline=false moe_roe_packed_routing_gather=false" in script.read_text()
    assert (recipes / "tuned_block.sh").read_text() == (RECIPES / "tuned_block.sh").read_text()
    after = json.loads(run_flaglint(*args, "--format", "json").stdout)
    assert [f["rule"] for f in after["findings"] if f["severity"] == "error"] == []


def test_an_unsafe_fix_that_breaks_a_rule_on_another_launch_says_which(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text(
        "#!/usr/bin/env bash\nROE=true\n"
        'export MAXTEXT_EXTRA_FLAGS="moe_roe_packed_routing_gather=${ROE} moe_chunk_pipeline=false use_ring_of_experts=true ici_expert_parallelism=2"\n'
        'if [[ "${CHUNKS:-2}" == "2" ]]; then\n  export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} num_moe_token_chunks=2"\n'
        'else\n  export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} num_moe_token_chunks=1"\nfi\n')
    report = json.loads(run_flaglint("lint", "--pin", "bbd0f6f10", str(script), "--format", "json").stdout)
    (fix,) = report["fixes"]  # the value of ROE cannot be edited where the token is: the pipeline is turned on
    assert not fix["safe"] and [(c["key"], c["to"]) for c in fix["changes"]] == [("moe_chunk_pipeline", True)]
    assert f"the unsafe fix (moe_chunk_pipeline=true) breaks FL102 at {script}:7 on a launch it reaches" in report["notes"]


def test_max_fixes_0_lists_no_fix_and_the_same_findings(tmp_path):
    # as for a command line's flags and a manifest: no fix is searched for, the launches are judged as before
    script = tmp_path / "run.sh"
    script.write_text('#!/usr/bin/env bash\nexport MAXTEXT_EXTRA_FLAGS="moe_roe_packed_routing_gather=true moe_chunk_pipeline=false"\n')
    args = ("lint", "--pin", "bbd0f6f10", str(script), "--format", "json")
    fixed, unfixed = (json.loads(run_flaglint(*args, *more).stdout) for more in ((), ("--max-fixes", "0")))
    assert fixed["fixes"] and unfixed["fixes"] == []
    assert [f["rule"] for f in unfixed["findings"]] == [f["rule"] for f in fixed["findings"]] == ["FL101"]


def test_the_branches_of_a_witness_are_those_a_run_with_the_given_env_takes():
    # --env chooses the 256-chip slice and the "before" recipe: the run takes the then branch at
    # line 25 that sources it, never the else at 27 that sources the 128-chip recipe
    report = json.loads(run_flaglint("lint", "--pin", "bbd0f6f10", "--env", "RECIPE_VARIANT=before", "--env",
                                     "TRAINER_TPU_SLICE=tpu7x:4x8x8", str(RECIPES / "mlperf_gbs1024_submission.sh"),
                                     "--format", "json").stdout)
    (conflict,) = [f for f in report["findings"] if f["rule"] == "FL101"]
    taken = [(Path(b["file"]).name, b["line"]) for b in conflict["witness"]["branches"]]
    assert ("mlperf_gbs1024_submission.sh", 25) in taken and ("mlperf_gbs1024_submission.sh", 27) not in taken
    assert {file for file, _ in taken} == {"mlperf_gbs1024_submission.sh", "mlperf_397b_256_v7x_before.sh"}

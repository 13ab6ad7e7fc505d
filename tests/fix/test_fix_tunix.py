"""`--fix` on Tunix command lines (`python -m tunix.cli.peft_main base_config.yaml key=value …`): in a
recipe script (`lint`) and on an argv (`check`). A fix drops or rewrites only the words of the
findings, is safe only where Tunix then merges the config it merged (apart from the key dropped),
and the script it leaves has no finding and no further fix."""

from __future__ import annotations

import json
from pathlib import Path

from commandline import run_flaglint as invoke
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from flaglint.fix.flags import apply_edits
from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.read.argv import argv_source, shell_words
from flaglint.tunix.launch import recognise_tunix
from flaglint.tunix.pins import load_tunix_pin

PEFT = "python -m tunix.cli.peft_main base_config.yaml"
SCRIPT = f"""#!/bin/bash
# fine-tune on one host
export HF_TOKEN=hf_x
export T_BATCH_SIZE=8
if [ -n "$SHORT" ]; then
  LENGTH=512
else
  LENGTH=1024
fi
{PEFT} \\
  "batch_sise=16" \\
  batch_size=8 \\
  tokenizer_config.tokenizer_pathh=/tmp/tok \\
  num_batches=2.0 \\
  max_target_length=$LENGTH
echo done
"""


def _findings(script: Path, *args: str) -> list[dict]:
    return json.loads(invoke("lint", "--format", "json", *args, str(script), cwd=script.parent).stdout)["findings"]


def _check_json(*words: str, env: tuple[str, ...] = ()) -> dict:
    return json.loads(invoke("check", "--format", "json", *env, "--", *PEFT.split(), *words).stdout)


def test_lint_fix_edits_only_the_words_of_the_findings_and_leaves_a_clean_script(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text(SCRIPT)
    found = {(f["rule"], f["location"]["line"]) for f in _findings(script)}
    assert {("FL204", 11), ("FL205", 12), ("FL208", 13), ("FL207", 14)} <= found
    done = invoke("lint", "--fix", str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    # each word dropped with one blank before it (the continuation backslashes stay); the value
    # Tunix retypes is written as it becomes; every other byte is kept
    assert script.read_text() == SCRIPT.replace('  "batch_sise=16" \\\n', "  \\\n").replace(
        "  batch_size=8 \\\n", "  \\\n").replace("  tokenizer_config.tokenizer_pathh=/tmp/tok \\\n", "  \\\n").replace(
        "num_batches=2.0", "num_batches=2")
    assert _findings(script) == []
    again = invoke("lint", "--fix", str(script), cwd=tmp_path)
    assert again.returncode == 0 and "applied" not in again.stderr
    assert script.read_text().count("num_batches=2 ") == 1  # idempotent


def test_lint_diff_shows_the_tunix_fix_and_writes_nothing(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text(SCRIPT)
    diff = invoke("lint", "--diff", str(script), cwd=tmp_path)
    assert '\n-  "batch_sise=16" \\\n' in diff.stdout and "\n+  num_batches=2 \\\n" in diff.stdout
    assert diff.stdout.splitlines().count("+  \\") == 3 and diff.returncode == 1
    assert script.read_text() == SCRIPT


def test_a_word_and_a_t_variable_that_disagree_are_an_unsafe_fix(tmp_path):
    # which of the two values the run was meant to have is a choice: --fix leaves it, and says so
    text = f"#!/bin/bash\nexport HF_TOKEN=hf_x\nexport T_BATCH_SIZE=4\n{PEFT} batch_size=8\n"
    script = tmp_path / "run.sh"
    script.write_text(text)
    held = invoke("lint", "--fix", str(script), cwd=tmp_path)
    assert held.returncode == 1 and script.read_text() == text and "--unsafe-fixes" in held.stderr
    ran = invoke("lint", "--fix", "--unsafe-fixes", str(script), cwd=tmp_path)
    assert ran.returncode == 0 and script.read_text() == text.replace(" batch_size=8", "")
    # the same value twice: dropping the word changes nothing Tunix runs with
    same = _check_json("batch_size=4", env=("--env", "T_BATCH_SIZE=4"))
    assert [(f["safe"], f["edits"][0]["old"]) for f in same["fixes"]] == [(True, "batch_size=4")]


def test_a_misspelt_key_with_one_near_key_is_renamed_only_by_the_unsafe_fix():
    result = _check_json("batch_sise=16", "tokenizer_config.tokenizer_pathh=/tmp/tok")
    safe, unsafe = result["fixes"]
    assert safe["safe"] and [e["new"] for e in safe["edits"]] == ["", ""]
    assert not unsafe["safe"] and [e["new"] for e in unsafe["edits"]] == ["batch_size=16", ""]  # two keys are near tokenizer_pathh
    assert unsafe["flags"] == "base_config.yaml batch_size=16"


def test_a_misspelt_key_of_a_section_tunix_hands_to_orbax_is_renamed_to_its_field_by_the_unsafe_fix():
    result = json.loads(invoke("check", "--format", "json", "--tunix-pin", "0.1.7", "--", *PEFT.split(), "tokenizer_config.tokenizer_path=/tmp/tok",
                               "training_config.eval_every_n_steps=3", "training_config.checkpointing_options.max_to_kep=3").stdout)
    assert [f["rule"] for f in result["findings"] if f["severity"] == "error"] == ["FL210"]
    unsafe = [fix for fix in result["fixes"] if not fix["safe"]]
    assert [e["new"] for e in unsafe[0]["edits"]] == ["training_config.checkpointing_options.max_to_keep=3"]


def test_a_dropped_key_whose_word_replaced_a_section_is_no_safe_fix():
    # training_config is taken whole from the command line: dropping the word gives the base's section back
    result = _check_json("training_config.max_stepz=5")
    assert [(f["safe"], f["flags"]) for f in result["fixes"]] == [(False, "base_config.yaml training_config.max_steps=5")]


def test_values_of_another_type_are_fixed_where_the_reading_is_plain():
    assert [(f["safe"], f["flags"]) for f in _check_json("batch_size=1e3")["fixes"]] == [(True, "base_config.yaml batch_size=1000")]
    assert [(f["safe"], f["flags"]) for f in _check_json("offload_to_cpu=1")["fixes"]] == [(False, "base_config.yaml offload_to_cpu=true")]
    assert _check_json("batch_size=abc")["fixes"] == []


def test_a_word_absl_refuses_is_dropped_and_the_unsafe_fix_writes_the_override():
    result = _check_json("--training_config.max_steps=10")
    assert [(f["safe"], f["flags"]) for f in result["fixes"]] == [
        (True, "base_config.yaml"), (False, "base_config.yaml training_config.max_steps=10")]


def test_check_fix_prints_the_fixed_words():
    done = invoke("check", "--fix", "--", *PEFT.split(), "num_batches=2.0", "batch_sise=1")
    assert done.stdout.splitlines()[0] == "base_config.yaml num_batches=2"


# ---- drawn command lines ----

_PIN = load_tunix_pin("tunix-0.1.7")
_COMMAND = recognise_tunix(PEFT.split())
_CLEAN = ["max_target_length=1024", "batch_size=8", "training_config.max_steps=10", "training_config.eval_every_n_steps=5",
          "tokenizer_config.tokenizer_path=/tmp/tok", "model_config.rng_seed=3", "offload_to_cpu=true"]
_DEFECTS = ["batch_sise=4", "num_batches=2.0", "batch_size=1e3", "model_config.rng_sed=1", "--max_target_length=8",
            "tokenizer_config.tokenizer_pathh=/t", "offload_to_cpu=0", "train_fraction=1", "training_config.max_stepz=5"]


def _fixed(words: list[str], env: dict[str, str]) -> tuple[list[str], int]:
    """The words after the safe fixes, round after round (a word absl refuses hides the rest), and the rounds."""
    for rounds in range(4):
        checked = check_tunix_words(_PIN, _COMMAND, words, env, (Path.cwd(),), fix=True)
        safe = [f for f in checked.fixes if f.safe]
        if not safe:
            return words, rounds
        text = argv_source(words).text
        assert apply_edits(text, safe[0].edits) == safe[0].flags
        words = [t.text for t in shell_words(safe[0].flags)]
    raise AssertionError(f"still a safe fix after 4 rounds: {words}")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_CLEAN), unique=True), st.lists(st.sampled_from(_DEFECTS), min_size=1, unique=True), st.randoms())
@example(["batch_size=8"], ["batch_sise=4", "--max_target_length=8"], None)
def test_safe_fixes_keep_every_other_word_change_nothing_tunix_runs_with_and_end(clean, defects, rng):
    words = [*clean, *defects]
    if rng is not None:
        rng.shuffle(words)
    env = {"HF_TOKEN": "x"}
    before = check_tunix_words(_PIN, _COMMAND, ["base_config.yaml", *words], env, (Path.cwd(),))
    after_words, _ = _fixed(["base_config.yaml", *words], env)
    kept = [w for w in after_words[1:] if w in words]
    assert kept == [w for w in words if w in kept]  # in their order, byte for byte
    assert set(clean) <= set(after_words)  # no word without a finding is touched
    assert all(w in words or w in ("num_batches=2", "batch_size=1000", "train_fraction=1.0") for w in after_words[1:])
    after = check_tunix_words(_PIN, _COMMAND, after_words, env, (Path.cwd(),))
    fixed_rules = {"FL201", "FL204", "FL207"}  # always safe: nothing of the config they leave changes
    assert not [f for f in after.findings if f.rule in fixed_rules]
    assert {(f.rule, f.keys) for f in after.findings if f.severity == "error"} <= {
        (f.rule, f.keys) for f in before.findings if f.severity == "error"} | {(f.rule, f.keys) for f in check_tunix_words(
            _PIN, _COMMAND, ["base_config.yaml", *[w for w in words if not w.startswith("-")]], env, (Path.cwd(),)).findings}
    assert _fixed(after_words, env) == (after_words, 0)  # idempotent


def test_the_override_file_is_fixed_in_its_own_characters(tmp_path):
    over = tmp_path / "over.yaml"
    text = "# overrides for the short run\r\nbatch_sise: 4   # typo\r\nnum_batches: 2.0  # two\r\nmodel_config:\r\n  rng_seed: 3"
    over.write_bytes(text.encode("utf-8"))
    args = ("check", "--fix", "--env", "HF_TOKEN=x", "--", *PEFT.split(), "override_config_file=over.yaml", "max_target_length=8")
    done = invoke(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    # the unknown key's line goes with its line break; the retyped value is written as Tunix types it;
    # the comments, CRLF line breaks and the missing final line break stay
    assert over.read_bytes() == b"# overrides for the short run\r\nnum_batches: 2  # two\r\nmodel_config:\r\n  rng_seed: 3"
    assert done.stdout.splitlines()[0] == "base_config.yaml override_config_file=over.yaml max_target_length=8"
    again = invoke(*args, cwd=tmp_path)
    assert again.returncode == 0 and "applied" not in again.stderr
    assert over.read_bytes() == b"# overrides for the short run\r\nnum_batches: 2  # two\r\nmodel_config:\r\n  rng_seed: 3"


def test_a_nested_key_of_the_override_file_is_left_to_a_person(tmp_path):
    (tmp_path / "over.yaml").write_text("model_config:\n  rng_sed: 3\n")
    result = json.loads(invoke("check", "--format", "json", "--env", "HF_TOKEN=x", "--", *PEFT.split(),
                               "override_config_file=over.yaml", cwd=tmp_path).stdout)
    assert [f["rule"] for f in result["findings"]] == ["FL208"] and result["fixes"] == []

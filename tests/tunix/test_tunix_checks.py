"""A Tunix command line at a bundled Tunix pin: HyperParameters' merge (flaglint/tunix/merge.py)
and what Tunix checks of it, when (flaglint/tunix/checks.py), with absl's flags first
(flaglint/frontends/tunix_commands.py). Each behaviour named here was measured on the release
(tests/oracle/test_tunix_oracle.py compares drawn command lines with the real Tunix)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from flaglint.frontends.tunix_commands import check_tunix_words, word_locations
from flaglint.read.argv import argv_source
from flaglint.tunix.launch import absl_parse, recognise_tunix
from flaglint.tunix.merge import AFTER_DOWNLOADS, NEVER_CHECKED, STARTUP, literal
from flaglint.tunix.pins import load_tunix_pin


def check(command: str, pin: str = "tunix-0.1.7", env: dict | None = None, folder: Path | None = None):
    words = shlex.split(command)
    found = recognise_tunix(words)
    args = words[found.start:] if found else words
    return check_tunix_words(load_tunix_pin(pin), found, args, dict(env or {}), (folder or Path.cwd(),))


def rules(command: str, **kw) -> dict[str, str]:
    """rule id -> stage of each finding."""
    return {f.rule: f.stage for f in check(command, **kw).findings}


GRPO = "python -m tunix.cli.grpo_main base_config.yaml"
PEFT = "python -m tunix.cli.peft_main base_config.yaml"
HUB = "tokenizer_config.tokenizer_type=sentencepiece tokenizer_config.tokenizer_path=/tmp/tok"


def test_the_seven_planted_defects_of_a_grpo_script_are_found_each_with_its_stage():
    found = check(f"{GRPO} batch_sise=8 model_config.model_source=hf model_config.mesh.shape=(2,2,1) "
                  "actor_model_config.mesh.shape=(4,2,1) grpo_config.num_generations=1 model_config.use_flash_attn=true "
                  "batch_size=1.5 tokenizer_config.tokenizer_type=hf").findings
    stages = {(f.rule, f.stage) for f in found}
    assert ("FL204", STARTUP) in stages  # batch_sise
    assert {r for r, s in stages if s == STARTUP and r.startswith("TX")} >= {"TXWMGJQ", "TX13FFD"}  # tokenizer type, model_source
    assert ("FL212", AFTER_DOWNLOADS) in stages  # the actor mesh's shape and axis names differ in length
    assert any(f.stage == AFTER_DOWNLOADS and "num_generations" in f.message for f in found)
    assert ("FL208", NEVER_CHECKED) in stages and ("FL207", NEVER_CHECKED) in stages


def test_each_finding_is_at_the_word_that_set_the_value():
    command = f"{GRPO} {HUB} batch_sise=8 model_config.model_source=hf"
    words = shlex.split(command)[3:]
    spans = {f.rule: (f.location.column, f.location.end_column) for f in check(command).findings if f.location}
    text = argv_source(words).text
    assert text[spans["FL204"][0] - 1:spans["FL204"][1] - 1] == "batch_sise=8"
    assert text[spans["TX13FFD"][0] - 1:spans["TX13FFD"][1] - 1] == "model_config.model_source=hf"


def test_absl_stops_on_a_dashed_override_before_tunix_reads_its_config():
    found = check(f"{GRPO} --model_config.model_source=maxtext --logtostderr --pathways_bns=x").findings
    assert [(f.rule, f.stage) for f in found] == [("FL201", STARTUP)]
    assert "write 'model_config.model_source=maxtext'" in found[0].message
    assert rules(f"{GRPO} {HUB} -- --not-a-flag=1")["FL204"] == STARTUP  # after `--`, a word is Tunix's


@given(st.lists(st.sampled_from(["a=1", "--logtostderr", "--v", "3", "--nologtostderr", "b", "--", "-x", "--log_dir=d"]),
                max_size=8))
@example(["--v", "--v", "a=1"])
@example(["--v", "--", "b"])
@settings(max_examples=60)
def test_absl_keeps_every_word_that_is_not_a_flag_in_order(words):
    kept, refused = absl_parse(words, {})
    # absl's walk: `--v` takes the next word as its value whatever it is (`--v --v`, `--v --`),
    # a bare `--` ends the flags, and every later word is the program's.
    expected_kept, expected_refused, at = [], [], 0
    while at < len(words):
        word = words[at]
        if word == "--":
            expected_kept += range(at + 1, len(words))
            break
        if word == "-x":
            expected_refused.append(at)
        elif not word.startswith("-"):
            expected_kept.append(at)
        at += 2 if word == "--v" else 1
    assert kept == expected_kept
    assert [r.at for r in refused] == expected_refused


def test_the_base_config_is_found_as_the_release_finds_it():
    assert rules("python -m tunix.cli.grpo_main batch_size=8")["FL202"] == STARTUP  # argv[1] with '='
    # before 0.1.6 argv[1] is taken under tunix/cli/ of the package
    assert "FL202" in rules(f"python -m tunix.cli.grpo_main tunix/cli/base_config.yaml {HUB}", pin="tunix-0.1.5")
    assert "FL202" not in rules(f"python -m tunix.cli.grpo_main base_config.yaml {HUB}", pin="tunix-0.1.5")
    assert "FL202" not in rules(f"python -m tunix.cli.grpo_main tunix/cli/base_config.yaml {HUB}", pin="tunix-0.1.6")


def test_top_level_values_are_typed_as_the_base_value_is():
    assert rules(f"{GRPO} {HUB} batch_size=eight")["FL206"] == STARTUP
    assert rules(f"{GRPO} {HUB} tfds_download=1")["FL206"] == STARTUP  # a bool takes true/false only
    assert "FL206" not in rules(f"{GRPO} {HUB} tfds_download=yes")  # YAML reads yes as true
    typed = next(f for f in check(f"{GRPO} {HUB} batch_size=1.5").findings if f.rule == "FL207")
    assert "becomes 1" in typed.message and typed.severity == "warning"
    assert rules(f"{GRPO} {HUB} model_config=5")["FL206"] == STARTUP
    assert "FL207" in rules(f"{GRPO} {HUB} reward_functions=abc")  # a string becomes a list of its characters
    assert rules(f"{GRPO} {HUB} batch_size=${{oc.env:NOT_SET}}")["FL206"] == STARTUP
    assert "FL206" not in rules(f"{GRPO} {HUB} batch_size=${{oc.env:B}}", env={"B": "4"})


def test_t_variables_must_name_a_key_in_upper_case_and_not_meet_a_word():
    assert rules(f"{GRPO} {HUB}", env={"T_BATCH_SISE": "4"})["FL205"] == STARTUP
    assert rules(f"{GRPO} {HUB}", env={"T_Batch_size": "4"})["FL205"] == STARTUP
    assert rules(f"{GRPO} {HUB} batch_size=2", env={"T_BATCH_SIZE": "4"})["FL205"] == STARTUP
    assert "FL205" not in rules(f"{GRPO} {HUB}", env={"T_BATCH_SIZE": "4"})
    assert rules(f"{GRPO} {HUB}", env={"T_BATCH_SIZE": "1.5"})["FL206"] == STARTUP  # int("1.5") fails: not the argv's typing


def test_hf_token_matters_only_for_a_hub_tokenizer():
    hub = f"{GRPO} tokenizer_config.tokenizer_type=huggingface tokenizer_config.tokenizer_path=meta-llama/Llama-3.2-1B"
    assert any(f.stage == STARTUP and "HF_TOKEN" in f.message for f in check(hub).findings)
    assert not any("HF_TOKEN" in f.message for f in check(hub, env={"HF_TOKEN": "x"}).findings)
    local = f"{GRPO} tokenizer_config.tokenizer_type=huggingface tokenizer_config.tokenizer_path=/models/tok"
    assert not any("HF_TOKEN" in f.message for f in check(local).findings)  # 0.1.7 exempts a local path
    assert any("HF_TOKEN" in f.message for f in check(local, pin="tunix-0.1.6").findings)


def test_a_replaced_section_loses_the_base_keys_and_its_builder_refuses_the_run():
    found = {f.rule: f for f in check(f"{PEFT} {HUB} training_config.max_steps=5").findings}
    assert found["FL211"].severity == "info" and "eval_every_n_steps" in found["FL211"].message
    assert found["FL210"].stage == AFTER_DOWNLOADS and "training_config.eval_every_n_steps" in found["FL210"].message
    kept = check(f"{GRPO} {HUB} model_config.rng_seed=3").findings
    assert not any(f.rule == "FL211" for f in kept)  # 0.1.7's base lora_config is empty: nothing is lost
    dropped = next(f for f in check(f"{GRPO} {HUB} model_config.rng_seed=3", pin="tunix-0.1.5").findings if f.rule == "FL211")
    assert "model_config.lora_config" in dropped.message  # a merged section drops a replaced one it leaves out


def test_roles_inherit_model_config_where_theirs_is_the_bases():
    found = check(f"{GRPO} {HUB} model_config.mesh.shape=(2,2,2)").findings
    meshes = [f for f in found if f.rule == "FL212"]
    assert meshes and all(f.location.column > 1 for f in meshes)  # at the model_config word the actor inherited
    assert not any(f.rule == "FL212" for f in check(f"{GRPO} {HUB} model_config.mesh.shape=(2,2,2)", pin="tunix-0.1.5").findings
                   if "actor" in f.message)  # 0.1.5 has no inheritance: the actor keeps its own mesh


def test_the_builders_are_the_entry_points():
    assert rules(f"{GRPO} {HUB} grpo_config.num_generation=4")["FL210"] == AFTER_DOWNLOADS
    assert "FL210" not in rules(f"{PEFT} {HUB} grpo_config.num_generation=4")  # peft_main builds no GRPOConfig
    assert rules("python -m tunix.cli.ppo_main base_config.yaml") == {"FL213": STARTUP}  # in no release's tunix.cli


def test_the_perf_metrics_check_refuses_every_python_m_launch():
    """argv[0] under `python -m` is the module's file, which does not end in grpo_main (measured)."""
    found = check(f"{GRPO} {HUB} 'training_config.perf_metrics_options={{enable_perf_v1: true}}'").findings
    assert any(f.stage == STARTUP and "grpo_main" in f.message for f in found)


def test_override_file_words_come_before_the_command_lines_and_keep_their_lines(tmp_path):
    (tmp_path / "run.yaml").write_text("model_config:\n  model_source: hf\nbatch_size: 4\ntokenizer_config:\n"
                                       "  tokenizer_path: /tmp/tok\n  tokenizer_type: sentencepiece\n")
    found = check(f"{GRPO} override_config_file=run.yaml batch_size=8", folder=tmp_path).findings
    source = next(f for f in found if f.rule == "TX13FFD")
    assert (source.location.file, source.location.line) == (str(tmp_path / "run.yaml"), 2)
    assert rules(f"{GRPO} override_config_file=run.yaml override_config_file=run.yaml", folder=tmp_path)["FL203"] == STARTUP
    assert rules(f"{GRPO} override_config_file=missing.yaml", folder=tmp_path)["FL203"] == STARTUP
    (tmp_path / "list.yaml").write_text("- a\n")
    assert rules(f"{GRPO} override_config_file=list.yaml", folder=tmp_path)["FL203"] == STARTUP
    # before 0.1.6 the word is a key like any other, and no key of the base
    assert rules(f"{GRPO} {HUB} override_config_file=run.yaml", pin="tunix-0.1.5", folder=tmp_path)["FL204"] == STARTUP


def test_a_base_config_that_is_not_a_mapping_is_one_finding(tmp_path):
    (tmp_path / "base.yaml").write_text("- 1\n- 2\n")
    found = check("python -m tunix.cli.grpo_main base.yaml batch_size=1", folder=tmp_path).findings
    assert [(f.rule, f.stage) for f in found] == [("FL202", STARTUP)] and "mapping" in found[0].message


@given(st.lists(st.tuples(st.sampled_from(["batch_size", "num_batches", "max_target_length"]),
                          st.integers(min_value=1, max_value=10**6)), min_size=1, max_size=6))
@settings(max_examples=40)
def test_the_last_word_of_a_key_wins(pairs):
    words = ["base_config.yaml", *(f"{k}={v}" for k, v in pairs)]
    done = check_tunix_words(load_tunix_pin(), None, words, {}, (Path.cwd(),))
    for key in {k for k, _ in pairs}:
        assert done.check.merged.config[key] == [v for k, v in pairs if k == key][-1]


@given(st.lists(st.integers(min_value=-5, max_value=64), max_size=4), st.lists(st.sampled_from(["fsdp", "tp", "x"]), max_size=4))
def test_a_mesh_is_read_as_a_python_literal(shape, names):
    assert literal(repr(tuple(shape))) == tuple(shape) and literal(repr(tuple(names))) == tuple(names)
    with pytest.raises(ValueError):
        literal("(2,2")


def test_word_locations_are_spans_of_the_quoted_argv():
    words = ["base.yaml", "prompt=I love", "k='v'"]
    text = argv_source(words).text
    assert [text[loc.column - 1:loc.end_column - 1] for loc in word_locations(words)] == [shlex.quote(w) for w in words]


def test_meshes_are_judged_against_the_devices_when_they_are_known():
    v5p_8 = (4, "--topology v5p-8")
    args = [*shlex.split(HUB), "actor_model_config.mesh.shape=(2,2)", "rollout_model_config.mesh.shape=(2,1)"]

    def on(pin: str, entry: str, words: list[str], devices):
        command = recognise_tunix(["python", "-m", f"tunix.cli.{entry}"])
        found = check_tunix_words(load_tunix_pin(pin), command, ["base_config.yaml", *words], {}, (Path.cwd(),),
                                  devices=None if devices is None else type("Count", (), {"devices": devices[0], "source": devices[1]}))
        return [f for f in found.findings if f.rule == "FL214"]

    together = on("tunix-0.1.7", "grpo_main", args, v5p_8)  # 0.1.7 carves each owned mesh out of the devices
    assert len(together) == 1 and "need 10 devices together" in together[0].message and together[0].stage == AFTER_DOWNLOADS
    assert not on("tunix-0.1.7", "grpo_main", args, (16, "--topology v5p-32"))
    assert not on("tunix-0.1.7", "grpo_main", args, None)  # no device count: not judged
    each = on("tunix-0.1.6", "peft_main", [*shlex.split(HUB), "model_config.mesh.shape=(4,2)"], v5p_8)
    assert len(each) == 1 and "needs 8 devices" in each[0].message


def test_a_section_filtered_by_a_class_keeps_its_fields_and_drops_the_rest_silently():
    """0.1.7's grpo_main hands rollout_config to RolloutConfig through a filter of its fields."""
    found = check(f"{GRPO} {HUB} rollout_config.return_logprobs=true rollout_config.return_logprob=true").findings
    assert [f.keys for f in found if f.rule == "FL208"] == [("rollout_config.return_logprob",)]

"""What Tunix refuses past start-up, as flaglint models it from the release's code: max_steps against
the data (0.1.7, FL216), the optimizers from optax (FL218), values a check cannot compare (FL217),
the options classes of another package (orbax, FL210), the PEFT mesh on the devices and the mesh
owners (0.1.7, FL214 and FL212). Each case was measured on the real release
(tests/oracle/test_tunix_sections_oracle.py runs the same classes against it)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.resolve.topology import DeviceCount
from flaglint.tunix.data_steps import known_datasets
from flaglint.tunix.launch import recognise_tunix
from flaglint.tunix.merge import AFTER_DOWNLOADS, STARTUP
from flaglint.tunix.optimizer import optax_facts
from flaglint.tunix.pins import load_tunix_pin

GRPO = "python -m tunix.cli.grpo_main base_config.yaml tokenizer_config.tokenizer_path=/tmp/tok"
PEFT = "python -m tunix.cli.peft_main base_config.yaml tokenizer_config.tokenizer_path=/tmp/tok"
GSM8K = "data_source=tfds dataset_name=gsm8k"


def check(command: str, pin: str = "tunix-0.1.7", env: dict | None = None, devices: int | None = None):
    words = shlex.split(command)
    found = recognise_tunix(words)
    count = DeviceCount(devices, 1, "--topology") if devices else None
    return check_tunix_words(load_tunix_pin(pin), found, words[found.start:], dict(env or {}), (Path("/nonexistent"),),
                             devices=count)


def errors(command: str, rule: str, **kw) -> list:
    return [f for f in check(command, **kw).findings if f.rule == rule and f.severity == "error"]


# ---- max_steps against the data (0.1.7 grpo_main compute_params) ----


def test_max_steps_beyond_num_batches_is_refused_after_downloads_at_its_word():
    # Tunix 0.1.7's own verl_compatible gsm8k example: max_steps = batch_size × num_batches × …
    command = f"{GRPO} batch_size=12 num_batches=8192 train_fraction=1.0 rl_training_config.max_steps=98304"
    [finding] = errors(command, "FL216")
    assert finding.stage == AFTER_DOWNLOADS and "8192 steps" in finding.message
    assert finding.location.column == command.index("rl_training_config.max_steps") - command.index("base_config.yaml") + 1
    assert not errors(command.replace("98304", "8192"), "FL216")


def test_without_num_batches_the_length_of_a_known_dataset_decides():
    batches = known_datasets()[("tfds", "gsm8k", "train")] // 12
    assert not errors(f"{GRPO} {GSM8K} batch_size=12 rl_training_config.max_steps={batches}", "FL216")
    assert errors(f"{GRPO} {GSM8K} batch_size=12 rl_training_config.max_steps={batches + 1}", "FL216")
    # a fraction not set (0) counts as 0.8, an epoch count not set as 1
    assert errors(f"{GRPO} {GSM8K} batch_size=12 train_fraction=0 rl_training_config.max_steps={int(batches * 0.8) + 1}", "FL216")
    assert not errors(f"{GRPO} {GSM8K} batch_size=12 num_train_epochs=2 rl_training_config.max_steps={batches * 2}", "FL216")


def test_an_unknown_dataset_is_named_as_not_judged_never_passed_in_silence():
    checked = check(f"{GRPO} data_source=local data_directory=/data/train.parquet rl_training_config.max_steps=100000")
    assert not [f for f in checked.findings if f.rule == "FL216"]
    assert any("not judged against the data" in note and "/data/train.parquet" in note for note in checked.notes)


def test_max_steps_is_held_to_the_data_only_where_the_release_does():
    command = f"{GRPO} num_batches=10 rl_training_config.max_steps=100000"
    assert errors(command, "FL216")
    assert not errors(command, "FL216", pin="tunix-0.1.6")
    assert not errors(command.replace("grpo_main", "peft_main"), "FL216")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10_000), st.integers(1, 3), st.sampled_from([0.5, 0.8, 1.0]), st.integers(1, 100_000))
def test_the_steps_allowed_are_num_batches_times_epochs_times_fraction(num_batches, epochs, fraction, max_steps):
    command = (f"{GRPO} num_batches={num_batches} num_train_epochs={epochs} train_fraction={fraction} "
               f"rl_training_config.max_steps={max_steps}")
    assert bool(errors(command, "FL216")) == (max_steps > int(num_batches * epochs * fraction))


@pytest.mark.parametrize("factors", [f"num_batches={'9' * 400}", "num_batches=10 train_fraction=nan"])
def test_a_product_past_a_float_is_named_as_not_judged(factors):
    # found by the fuzz campaign (numbers of any size, seed 913098): an internal error before
    checked = check(f"{GRPO} {factors} rl_training_config.max_steps=100")
    assert not [f for f in checked.findings if f.rule == "FL216"]
    assert any("not judged against the data" in note and "gives no number of steps" in note for note in checked.notes), checked.notes


# ---- optimizers (create_optimizer against optax) ----


@pytest.mark.parametrize(("words", "refused"), [
    ("optimizer_config.opt_type=adamw optimizer_config.learning_rate=1e-5", None),
    ("optimizer_config.opt_type=AdamW optimizer_config.learning_rate=1e-5", None),
    ("optimizer_config.opt_type=adamw optimizer_config.learning_rate=true", None),  # a bool is an int
    ("optimizer_config.opt_type=adamz optimizer_config.learning_rate=1e-5", "optimizer_config.opt_type"),
    ("optimizer_config.opt_type=adamw optimizer_config.learning_rate=fast", "optimizer_config.learning_rate"),
    ("optimizer_config.learning_rate=1e-5", "optimizer_config"),  # the override replaced the section: no opt_type
    ("optimizer_config.opt_type=adamw", "optimizer_config"),  # adamw requires learning_rate
    ("optimizer_config.opt_type=sgd optimizer_config.learning_rate=1e-5 optimizer_config.schedule_type=cosine",
     "optimizer_config.schedule_type"),
    ("optimizer_config.opt_type=adamw optimizer_config.schedule_type=warmup_cosine_decay_schedule optimizer_config.peak_value=1",
     "optimizer_config"),  # init_value, warmup_steps, decay_steps left out
])
def test_the_optimizer_is_checked_as_create_optimizer_builds_it(words, refused):
    found = errors(f"{PEFT} {words}", "FL218")
    assert [f.keys[0] for f in found] == ([refused] if refused else [])
    assert all(f.stage == AFTER_DOWNLOADS for f in found)


def test_a_replaced_rl_training_config_without_opt_type_is_an_error_not_only_info():
    found = check(f"{GRPO} rl_training_config.eval_every_n_steps=3 rl_training_config.actor_optimizer_config.learning_rate=1e-5").findings
    assert {(f.rule, f.severity) for f in found} >= {("FL211", "info"), ("FL218", "error")}


def test_the_schedule_arguments_grpo_main_fills_from_max_steps_are_not_asked_for():
    # 0.1.7's compute_params sets decay_steps and warmup_steps of the actor's optimizer where they are not set
    command = (f"{GRPO} num_batches=100 rl_training_config.eval_every_n_steps=3 rl_training_config.actor_optimizer_config.opt_type=adamw "
               "rl_training_config.actor_optimizer_config.schedule_type=warmup_cosine_decay_schedule "
               "rl_training_config.actor_optimizer_config.init_value=0 rl_training_config.actor_optimizer_config.peak_value=1e-5")
    assert not errors(command, "FL218")
    assert errors(command, "FL218", pin="tunix-0.1.6")


def test_the_optax_names_are_the_exports_of_optax_and_its_schedules():
    facts = optax_facts()
    assert facts["version"] == "0.2.8"
    assert {"adamw", "sgd", "lion", "adafactor"} <= facts["optimizers"].keys() and "adamz" not in facts["optimizers"]
    assert dict(facts["schedules"]["warmup_cosine_decay_schedule"])["decay_steps"] is True
    assert dict(facts["optimizers"]["adamw"]) == {"learning_rate": True, "b1": False, "b2": False, "eps": False, "eps_root": False,
                                                  "mu_dtype": False, "weight_decay": False, "mask": False, "nesterov": False}


# ---- a value a check cannot compare; the options classes ----


def test_a_string_where_a_check_compares_a_number_stops_there():
    found = check(f"{GRPO} grpo_config.num_generations=two").findings
    [raised] = [f for f in found if f.rule == "FL217"]
    assert raised.keys == ("grpo_config.num_generations",) and raised.stage == AFTER_DOWNLOADS and "TypeError" in raised.message
    assert not [f for f in found if f.rule == "FL209" and f.keys[0] == "grpo_config.num_generations"]
    # a value no check compares is only never typed
    assert {f.rule for f in check(f"{GRPO} grpo_config.beta=two").findings} & {"FL209", "FL217"} == {"FL209"}


def test_an_empty_tokenizer_path_is_kept_empty_and_refused_at_start_up():
    found = errors(f"{PEFT} tokenizer_config.tokenizer_path=", "TXT3NBV", env={"HF_TOKEN": "hf_x"})
    assert [f.stage for f in found] == [STARTUP]
    assert not errors(f"{PEFT} tokenizer_config.tokenizer_path=google/gemma-2b", "TXT3NBV", env={"HF_TOKEN": "hf_x"})


def test_a_misspelt_checkpointing_option_is_no_field_of_orbax_s_class():
    [finding] = errors(f"{PEFT} training_config.eval_every_n_steps=3 training_config.checkpointing_options.max_to_kep=3", "FL210")
    assert finding.keys == ("training_config.checkpointing_options.max_to_kep",) and "CheckpointManagerOptions" in finding.message
    assert not errors(f"{PEFT} training_config.eval_every_n_steps=3 training_config.checkpointing_options.max_to_keep=3", "FL210")


# ---- meshes at 0.1.7 ----


def test_the_peft_mesh_is_held_to_the_devices_at_0_1_7():
    command = f"{PEFT} model_config.mesh.shape=(4,4,2) model_config.mesh.axis_names=\"('a','b','c')\""
    assert [f.stage for f in errors(command, "FL214", devices=16)] == [AFTER_DOWNLOADS]
    assert not errors(command, "FL214", devices=32)


@pytest.mark.parametrize(("words", "refused"), [
    ("reference_model_config.mesh.shape=(2,2) reference_model_config.mesh.axis_names=\"('a','b')\" reference_model_config.same_mesh_as=actor",
     "reference_model_config.same_mesh_as"),
    ("reference_model_config.mesh=null reference_model_config.same_mesh_as=' Actor '", None),
    ("reference_model_config.mesh=null reference_model_config.same_mesh_as=critic", "reference_model_config.same_mesh_as"),
    ("reference_model_config.mesh=null reference_model_config.same_mesh_as=nobody", "reference_model_config.same_mesh_as"),
    ("actor_model_config.same_mesh_as=rollout", "actor_model_config.same_mesh_as"),
    ("actor_model_config.mesh.allocation_policy=fast", "actor_model_config.mesh.allocation_policy"),
    ("actor_model_config.mesh.allocation_policy=compact", None),
    ("actor_model_config.mesh.allocation_policy=performance", "actor_model_config.mesh.allocation_policy"),  # the roles inherit COMPACT
])
def test_the_mesh_owners_are_resolved_as_grpo_main_resolves_them(words, refused):
    found = [f for f in errors(f"{GRPO} {words}", "FL212") if "same_mesh_as" in f.keys[0] or "allocation_policy" in f.keys[0]]
    assert [f.keys[0] for f in found] == ([refused] if refused else [])

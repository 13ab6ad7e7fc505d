"""A launch of an entry point that validates with RLConfig (train_rl) is judged as MaxText judges it:
RLConfig's keys and types, its mixins' validators and its own checks, not MaxTextConfig's."""

from pathlib import Path

import pytest

from flaglint.core.findings import InputError
from flaglint.frontends.checker import Checker, check_command
from flaglint.frontends.gate.manifests import check_manifest
from flaglint.frontends.lint.script_commands import CommandJudge
from flaglint.frontends.lint.scripts import check_script
from flaglint.pins.pins import load_pin
from flaglint.read.flags import FlagSource
from flaglint.schema.config_index import load_index
from flaglint.solve.rules import applicable, holds

RL_CONFIG = "src/maxtext/configs/post_train/rl.yml"
TRAIN_RL = "python3 -m maxtext.trainers.post_train.rl.train_rl"


def _rl_errors(argv: str, pin: str = "maxtext-0.2.5", config: str = RL_CONFIG) -> list[tuple[str, tuple[str, ...]]]:
    checker = Checker(pin).for_config_class("RLConfig")
    findings = check_command(checker, argv.split(), config, {}, frozenset(), load_index(checker.pin.configs))
    return [(f.rule, f.keys) for f in findings if f.severity == "error"]


def test_a_good_rl_launch_is_accepted():
    assert _rl_errors("model_name=llama3.1-8b num_batches=4 rl.loss_algo=grpo rollout_tensor_parallelism=4") == []


def test_a_wrong_typed_rl_key_is_refused_flat_and_nested():
    assert _rl_errors("model_name=llama3.1-8b num_batches=abc") == [("FL005", ("num_batches",))]
    assert _rl_errors("model_name=llama3.1-8b rl.num_generations=x") == [("FL005", ("rl.num_generations",))]
    # RLConfig bounds num_epoch (>= 1), MaxTextConfig does not
    assert _rl_errors("model_name=llama3.1-8b num_epoch=0") == [("FL005", ("num_epoch",))]
    assert not Checker().check(FlagSource("num_epoch=0")).findings


def test_a_key_rlconfig_lacks_is_refused_and_said_so():
    checker = Checker().for_config_class("RLConfig")
    (finding,) = checker.check(FlagSource("eod_mask_loss=true")).findings
    assert finding.rule == "FL004" and "MaxText 0.2.5's RLConfig" in finding.message
    assert not Checker().check(FlagSource("eod_mask_loss=true")).findings


@pytest.mark.parametrize(("argv", "rule"), [
    ("num_trainer_slices=2", "FL153"),
    ("num_vocab_tiling=2", "FL152"),
    ("optimizer_memory_host_offload=true", "FL151"),
    ("rollout_expert_parallelism=0", "FL156"),
    ("max_target_length=4096 max_seq_token_per_tpu=2048", "FL150"),
])
def test_rlconfigs_own_checks_are_judged(argv, rule):
    assert [found for found, _ in _rl_errors(f"model_name=llama3.1-8b {argv}")] == [rule]


def test_a_model_without_a_known_tokenizer_needs_tokenizer_path_where_nothing_names_it():
    assert _rl_errors("model_name=llama2-7b") == [("FL157", ("model_name",))]
    assert _rl_errors("model_name=llama2-7b tokenizer_path=") == []  # pyconfig fills a named one
    assert _rl_errors("model_name=llama2-7b", config="src/maxtext/configs/base.yml") == []  # base.yml names it


def test_the_mixins_validators_are_run_not_maxtextconfigs_own():
    assert _rl_errors("model_name=llama3.1-8b num_moe_token_chunks=2 use_ring_of_experts=false") == [
        ("MXCQ1N5", ("num_moe_token_chunks", "use_ring_of_experts"))]
    # MaxTextConfig.set_derived_and_validate_values refuses the ring without expert parallelism; RLConfig never runs it
    assert [f.rule for f in Checker().check(FlagSource("use_ring_of_experts=true")).findings]
    assert _rl_errors("model_name=llama3.1-8b use_ring_of_experts=true") == []


def test_rlconfigs_checks_are_not_a_pre_training_launchs():
    assert not Checker().check(FlagSource("num_vocab_tiling=2 optimizer_memory_host_offload=true")).findings


@pytest.mark.parametrize("pin", ["maxtext-0.2.4", "maxtext-0.2.5"])
def test_the_rlconfig_defaults_satisfy_its_rules(pin):
    checker = Checker(pin).for_config_class("RLConfig")
    config, _ = checker.config(FlagSource(""), {})
    assert [r.id for r in applicable(checker.ruleset, config) if not holds(r, config.lookup)] == []
    assert {r.id for r in checker.ruleset.rules} >= {"FL151", "FL153", "FL157"}
    assert ("FL150" in {r.id for r in applicable(checker.ruleset, config)}) == (pin == "maxtext-0.2.5")


def test_a_pin_without_the_class_says_so():
    with pytest.raises(InputError, match="RLConfig"):
        load_pin("maxtext-0.2.3").validated_with("RLConfig")


def test_lint_judges_a_train_rl_launch_at_its_line(tmp_path):
    script = tmp_path / "rl.sh"
    script.write_text(f"#!/bin/bash\nMODEL=llama3.1-8b\n{TRAIN_RL} model_name=$MODEL \\\n  num_trainer_slices=2 num_batches=4\n"
                      f"{TRAIN_RL} model_name=$MODEL num_batches=4\n")
    findings = check_script(script, Checker()).result.findings
    assert [(f.rule, f.location.line) for f in findings if f.severity == "error"] == [("FL153", 4)]


def test_the_same_words_and_config_are_judged_apart_for_each_config_class(tmp_path):
    """train and train_rl given the same argv and config: only RLConfig refuses vocabulary tiling."""
    argv = "src/maxtext/configs/base.yml model_name=llama3.1-8b num_vocab_tiling=2"
    script = tmp_path / "both.sh"
    script.write_text(f"#!/bin/bash\npython3 -m maxtext.trainers.pre_train.train {argv}\n{TRAIN_RL} {argv}\n")
    findings = check_script(script, Checker()).result.findings
    assert [(f.rule, f.location.line) for f in findings if f.severity == "error"] == [("FL152", 3)]


def test_the_solver_asks_an_rl_launch_for_rlconfigs_rules():
    """Past path-cap combinations the solver searches the rules CommandJudge.rules gives: for an
    RL launch's config, RLConfig's own checks and not MaxTextConfig's own validators."""
    base = Checker()
    judge = CommandJudge(None, Path("rl.sh"), base, load_index(base.pin.configs))
    rl_config, _ = base.for_config_class("RLConfig").config(FlagSource("model_name=llama3.1-8b"))
    train_config, _ = base.config(FlagSource("model_name=llama3.1-8b"))
    rl_rules = {rule.id for rule in judge.rules(rl_config)}
    train_rules = {rule.id for rule in judge.rules(train_config)}
    assert {"FL150", "FL152"} <= rl_rules and not {"FL150", "FL152"} & train_rules
    assert train_rules - rl_rules  # MaxTextConfig's own validators


def test_gate_judges_a_train_rl_container():
    manifest = """\
apiVersion: v1
kind: Pod
metadata: {name: rl}
spec:
  containers:
  - name: main
    image: trainer
    command: ["python3", "-m", "maxtext.trainers.post_train.rl.train_rl", "model_name=llama3.1-8b", "num_vocab_tiling=4"]
"""
    (checked,) = check_manifest(manifest, checker=Checker(), fix=False)
    assert [(f.rule, f.location.line) for f in checked.result.findings] == [("FL152", 8)]


def test_a_dotted_word_on_a_key_that_is_no_section_names_the_key_maxtext_refuses():
    # OmegaConf makes `debug.rl=x` a mapping for debug: RLConfig refuses debug's value, and `dpo`,
    # MaxTextConfig's section, is no key of RLConfig's
    assert _rl_errors("model_name=llama3.1-8b debug.rl=x") == [("FL004", ("debug.rl", "debug"))]
    assert _rl_errors("model_name=llama3.1-8b dpo.algo=orpo") == [("FL004", ("dpo.algo", "dpo"))]
    assert [f.rule for f in Checker().check(FlagSource("dpo.algo=orpo")).findings] == []

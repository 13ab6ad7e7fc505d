"""flaglint's verdict on train_rl's argv, judged with RLConfig, against MaxText's own pyconfig run with
`config_class=RLConfig` as train_rl runs it, at each release that has RLConfig."""

import re

import pytest
from maxtext_env import oracle_python, unavailable

from flaglint.frontends.check.confirm import PyconfigInput, verdicts
from flaglint.frontends.checker import Checker, check_command
from flaglint.schema.config_index import load_index

pytestmark = pytest.mark.oracle

RL_CONFIG = "src/maxtext/configs/post_train/rl.yml"
CASES = [
    "model_name=llama3.1-8b",
    "model_name=qwen3-8b rl.loss_algo=grpo num_batches=2 batch_size=4 rollout_tensor_parallelism=4",
    "model_name=llama3.1-8b num_trainer_slices=2 num_samplers_slices=1",
    "model_name=llama3.1-8b ici_fsdp_parallelism=3 use_ring_of_experts=true",  # MaxTextConfig's checks, not RLConfig's
    "model_name=llama2-7b tokenizer_path=",
    "model_name=llama3.1-8b num_trainer_slices=2",
    "model_name=llama3.1-8b num_batches=abc",
    "model_name=llama3.1-8b rl.num_generations=x",
    "model_name=llama3.1-8b eod_mask_loss=true",
    "model_name=llama3.1-8b num_vocab_tiling=2",
    "model_name=llama3.1-8b optimizer_memory_host_offload=true",
    "model_name=llama3.1-8b rollout_data_parallelism=-2",
    "model_name=llama3.1-8b num_epoch=0",
    "model_name=llama3.1-8b num_moe_token_chunks=2 use_ring_of_experts=false",
    "model_name=llama3.1-8b max_target_length=4096 max_seq_token_per_tpu=2048",
    "model_name=llama2-7b",
    "model_name=llama3.1-8b debug.rl=x",  # OmegaConf makes debug a mapping: RLConfig refuses debug
    "model_name=llama3.1-8b dpo.algo=orpo",  # MaxTextConfig's dpo section, which RLConfig lacks
]


@pytest.mark.parametrize("version", ["0.2.4", "0.2.5"])
def test_flaglint_and_rlconfig_agree(version):
    python = oracle_python(version)
    if python is None:
        pytest.skip(unavailable("oracle", version))
    checker = Checker(f"maxtext-{version}").for_config_class("RLConfig")
    index = load_index(checker.pin.configs)
    answers = verdicts(python, [PyconfigInput(tuple(case.split()), RL_CONFIG, None, "RLConfig") for case in CASES])
    assert any(a.ok for a in answers) and not all(a.ok for a in answers)
    wrong = []
    for case, answer in zip(CASES, answers):
        errors = [f for f in check_command(checker, case.split(), RL_CONFIG, {}, frozenset(), index) if f.severity == "error"]
        keys = {key for f in errors for key in f.keys}
        named = any(re.search(rf"(?<![\w.]){re.escape(key)}(?![\w.])", answer.message or "") for key in keys)
        if bool(errors) == answer.ok or errors and not named:
            wrong.append(f"{case!r}: flaglint {[(f.rule, f.keys) for f in errors] or 'accepts'}, MaxText {answer.describe()[:160]}")
    assert not wrong, "\n".join(wrong)

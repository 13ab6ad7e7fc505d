"""The values pyconfig reads before pydantic types them, and the checks outside types.py, each
spelled several ways: flaglint's verdict must be the real MaxText 0.2.5's on every one.

The random draw of test_differential.py rarely meets these spellings; this file names them.
"""

from __future__ import annotations

import pytest
from maxtext_env import oracle_python, unavailable

from flaglint.frontends.check.confirm import verdicts
from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource

pytestmark = pytest.mark.oracle

_TRUTHS = ["true", "True", "yes", "on", "1", "1.0", "'true'", "false", "False", "no", "off", "0", "0.0",
           "'false'", "'0'", "'no'", "'off'", '"false"', "''", "null", "~", "none", "x", "2"]  # fmt: skip
CASES = [
    # the model conflict check reads override_model_config raw (llama2-7b sets base_emb_dim 4096)
    *[f"model_name=llama2-7b base_emb_dim=1024 override_model_config={v}" for v in _TRUTHS],
    # logical_axis_rules are rebuilt from the flags alone when override_logical_axis_rules is raw-true
    *[f"ici_expert_parallelism=2 use_random_routing=true override_logical_axis_rules={v}" for v in _TRUTHS],
    *[f"use_random_routing=true override_logical_axis_rules={v}" for v in ("'false'", "false", "true")],
    "ici_expert_parallelism=2 use_random_routing=true override_logical_axis_rules='0' logical_axis_rules=[[exp,expert]]",
    "ici_expert_parallelism=2 use_random_routing=true override_logical_axis_rules='no' custom_mesh_and_rule=ep-as-cp",
    # the splash pair is read raw too (FL014)
    *[f"use_tokamax_splash={v} use_jax_splash=true" for v in ("'false'", "false", "'0'", "0")],
    # pyconfig merges logical_axis_rules by rule name itself
    *[f"logical_axis_rules={v}" for v in ("x", "1", "[1]", "[[a]]", "[[]]", "[a]", "[]", "none", "[[[a],b]]", "[{a:1}]",
                                          "''", "0", "['']", "")],
    # a before-validator turns the string into floats
    *[f"constant_bound_config={v}" for v in ("''", "0.5,0.5", "a,b", "0.5", "none", "[1,2]")],
    # pyconfig cleans top-level values only: a nested 'none' stays a string
    *[f"dpo.max_prompt_length={v}" for v in ("none", "None", "null", "", "''", "5")],
    # compile_topology is looked up in accelerator_to_spec_map unless internal_compile
    *[f"compile_topology={v}" for v in ("v5e-256", "v5e-255", "a3", "''", "none", "", "tpu7x-2", "TPU7X-2")],
    "compile_topology=v5e-255 internal_compile=true internal_compile_num_devices=4",
    # deepseek-custom turns Engram on: a token and a tokenizer path are needed
    "model_name=deepseek-custom attention=dot_product",
    "model_name=deepseek-custom attention=dot_product tokenizer_path=a/b",
    "model_name=deepseek-custom attention=dot_product hf_access_token=t",
    "model_name=deepseek-custom attention=dot_product hf_access_token=t tokenizer_path=a/b",
    "model_name=deepseek-custom attention=dot_product hf_access_token=t tokenizer_path=''",
]


def test_flaglint_and_maxtext_agree_on_each_spelling():
    python = oracle_python()
    if python is None:
        pytest.skip(unavailable("oracle"))
    checker = Checker("maxtext-0.2.5")
    answers = verdicts(python, [flags.split() for flags in CASES])
    wrong = []
    for flags, answer in zip(CASES, answers):
        errors = [f.rule for f in checker.check(FlagSource(flags), fix=False).findings if f.severity == "error"]
        if bool(errors) == answer.ok:
            wrong.append(f"{flags!r}: flaglint {errors or 'accepts'}, MaxText {answer.describe()[:160]}")
    assert not wrong, "\n".join(wrong)

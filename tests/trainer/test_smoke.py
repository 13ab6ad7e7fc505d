"""run_smoke on the example recipes' settings and on settings that fail or would do nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")

from flaglint.trainer.smoke import run_smoke  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "flags"
TUNED = {
    "TUNIX_LOGPS_SHARDED_HEAD": "fused",
    "COMPUTE_LOGPS_CHUNK_SIZE": "4096",
    "PACK_PAD_POSITION": "start",
    "MAX_SEQ_TOKEN_PER_TPU": "65536",
}


def read_env(path):
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line and not line.startswith("#"))
    return {key.strip(): value.strip() for key, value in pairs}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.env")), ids=lambda p: p.name)
def test_example_envs_pass(path):
    assert run_smoke(read_env(path)) == []


@pytest.mark.parametrize("env", [
    {},
    {"TUNIX_LOGPS_SHARDED_HEAD": "local"},
    {"TUNIX_LOGPS_SHARDED_HEAD": "0", "COMPUTE_LOGPS_CHUNK_SIZE": "1024"},
    pytest.param(TUNED | {"PACK_PAD_ALIGN": "8192", "COMPUTE_LOGPS_CHUNK_SIZE": "1000"}, marks=pytest.mark.slow),
    pytest.param(TUNED | {"MAX_SEQ_TOKEN_PER_TPU": "", "PACK_PAD_POSITION": "end"}, marks=pytest.mark.slow),
])
def test_good_settings_pass(env):
    assert run_smoke(env) == []


@pytest.mark.parametrize("env,reason", [
    (TUNED | {"TUNIX_LOGPS_SHARDED_HEAD": "Fused "}, "did you mean 'fused'"),
    (TUNED | {"MAX_SEQ_TOKEN_PER_TPU": "0"}, "padded (unpacked) assembler"),
    (TUNED | {"PACK_PAD_ALIGN": "65536"}, "at least the row length"),
    (TUNED | {"PACK_PAD_POSITION": "end", "PACK_PAD_ALIGN": "2048"}, "only read with start"),
    (TUNED | {"PACK_PAD_ALIGN": "1000"}, "positive multiple of segment_align_multiple=64"),
    (TUNED | {"PACK_PAD_POSITION": "first"}, "PACK_PAD_POSITION='first'"),
    (TUNED | {"COMPUTE_LOGPS_CHUNK_SIZE": "4k"}, "COMPUTE_LOGPS_CHUNK_SIZE='4k'"),
    (TUNED | {"TUNIX_LOGPS_SHARDED_HEAD": "off"}, "failed to compile on TPU"),
    (TUNED | {"PACK_PAD_ALIGN": "65472"}, "never move a row"),
])
def test_bad_settings_give_the_reason(env, reason):
    problems = run_smoke(env)
    assert any(reason in problem.reason and problem.variable in env for problem in problems), problems

"""`flaglint smoke` on every example recipe: the good ones pass, the bad one fails with its reasons."""

import pytest
from commandline import EXAMPLES, run_flaglint

pytest.importorskip("jax")
pytestmark = pytest.mark.smoke

GOOD = [
    ("mlperf_gbs1024_submission.sh", []),
    ("mlperf_gbs1024_submission.sh", ["--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8"]),
    ("mlperf_gbs1024_submission.sh", ["--env", "TUNIX_LOGPS_SHARDED_HEAD=off"]),
    ("mlperf_397b_128_v7x.sh", ["--env", "TRAINER_TUNED_FLAGS=true"]),
    ("mlperf_397b_256_v7x_after.sh", ["--env", "TRAINER_TUNED_FLAGS=true"]),
]


@pytest.mark.parametrize(("recipe", "env"), GOOD, ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_good_recipes_pass(recipe, env):
    proc = run_flaglint("smoke", "--recipe", str(EXAMPLES / "recipes" / recipe), *env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pass" in proc.stdout


@pytest.mark.parametrize(
    ("env", "reason"),
    [([], "TUNIX_LOGPS_SHARDED_HEAD='Fused'"), (["--env", "TUNIX_LOGPS_SHARDED_HEAD=fused"], "MAX_SEQ_TOKEN_PER_TPU=0")],
)
def test_bad_recipe_fails_with_the_reason(env, reason):
    proc = run_flaglint("smoke", "--recipe", str(EXAMPLES / "recipes" / "mlperf_397b_128_v7x_unpacked.sh"), *env)
    assert proc.returncode == 1 and reason in proc.stdout
    assert "Traceback" not in proc.stderr

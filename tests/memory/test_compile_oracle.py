"""`flaglint memory` against MaxText 0.2.5's own train_compile, in the compile environment flaglint
builds (Python 3.12, maxtext[tpu]==0.2.5: jax and libtpu): a config of a small model that fits
v5e-8 and one that does not, each compiled by both with the same argv, then both compiled at once
from a script; and the bundled head at two sizes. Minutes each, on a CPU (no TPU): in the slow suite, whose run overlaps the oracle suite's
environments being built (.ci/run builds this one beside them from the start)."""

import json
import os
import re
import subprocess
import sys

import pytest
from commandline import run_flaglint

from flaglint.memory.environment import find_python312, managed_python
from flaglint.memory.verdict import out_of_memory

pytestmark = pytest.mark.slow

TOPOLOGY = "v5e-8"
_STATS = re.compile(r"Memory analysis: CompiledMemoryStats\((.*?)\)")


@pytest.fixture(scope="module")
def compile_python():
    if find_python312() is None:
        pytest.skip("no Python 3.12 for the compile environment")
    python, _ = managed_python("0.2.5", lambda said: print(said, file=sys.stderr))
    return python


def flaglint_verdict(tmp_path, python, *argv) -> tuple[dict, dict]:
    """The report and the verdict `flaglint memory` kept, from a fresh verdict cache."""
    ran = run_flaglint("memory", "--topology", TOPOLOGY, "--compile-with", str(python), "--format", "json", *argv,
                       env={"XDG_CACHE_HOME": str(tmp_path)})
    assert ran.returncode in (0, 1), ran.stderr
    (kept,) = (tmp_path / "flaglint" / "memory").glob("*.json")
    return json.loads(ran.stdout), json.loads(kept.read_text())


def train_compile(python, tmp_path, *argv) -> str:
    base = subprocess.run([str(python), "-c", "import maxtext, os; print(os.path.dirname(maxtext.__file__))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    done = subprocess.run([str(python), "-m", "maxtext.trainers.pre_train.train_compile", f"{base}/configs/base.yml", *argv,
                           f"compile_topology={TOPOLOGY}", "compile_topology_num_slices=1"],
                          capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ, ALLOW_MULTIPLE_LIBTPU_LOAD="1"))
    return done.stdout + done.stderr


# A small model: the compile is MaxText's start-up more than the program (a minute or two on a CPU).
# With 1,024 sequences of 256 tokens a chip over a vocabulary of 32,000 it does not fit v5e-8.
SMALL = ("base_num_decoder_layers=2 base_emb_dim=256 base_mlp_dim=512 base_num_query_heads=4 base_num_kv_heads=4 head_dim=64 "
         "max_target_length=256 steps=5")
FITS, DOES_NOT_FIT = "per_device_batch_size=1", "per_device_batch_size=1024"


@pytest.fixture(scope="module")
def alone(compile_python, tmp_path_factory) -> dict[str, tuple[dict, dict]]:
    """`flaglint memory` on each of the two batch sizes alone: its report and the verdict it kept."""
    return {batch: flaglint_verdict(tmp_path_factory.mktemp("alone"), compile_python, *SMALL.split(), batch) for batch in (FITS, DOES_NOT_FIT)}


def test_a_fitting_config_has_maxtexts_own_memory_figures(compile_python, alone, tmp_path):
    report, verdict = alone[FITS]
    assert report["findings"] == [] and verdict["outcome"] == "fits"
    printed = _STATS.search(train_compile(compile_python, tmp_path, *SMALL.split(), FITS))
    assert printed is not None, "train_compile printed no memory analysis"
    stats = {name: int(value) for name, value in re.findall(r"(\w+)=(\d+)", printed[1])}
    for name in ("temp_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes"):
        assert verdict["memory"][name] == stats[name], name
    assert 0 < verdict["required_bytes"] < verdict["capacity_bytes"] == round(15.75 * 2**30)


def test_an_out_of_memory_config_has_maxtexts_own_figures(compile_python, alone, tmp_path):
    report, verdict = alone[DOES_NOT_FIT]
    assert [finding["rule"] for finding in report["findings"]] == ["FL018"]
    figures = out_of_memory(train_compile(compile_python, tmp_path, *SMALL.split(), DOES_NOT_FIT))
    assert figures == (verdict["required_bytes"], verdict["capacity_bytes"])
    assert figures[0] > figures[1] == round(15.75 * 2**30)


@pytest.mark.parametrize(("tokens", "local_fits"), [(4096, True), (32768, False)])
def test_the_fused_head_fits_where_the_local_head_does_not(compile_python, tmp_path, tokens, local_fits):
    ran = run_flaglint("memory", "--head", "--topology", TOPOLOGY, "--compile-with", str(compile_python),
                       "--env", "TUNIX_LOGPS_SHARDED_HEAD=fused", "--env", "COMPUTE_LOGPS_CHUNK_SIZE=4096",
                       f"per_device_batch_size={tokens // 2048}", "max_target_length=2048", "base_emb_dim=4096",
                       "vocab_size=151936", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert ran.returncode == 0, ran.stdout
    assert re.search(rf"the fused log-prob head \(chunks of 4096\) at {tokens:,} tokens a chip.*: fits, peak", ran.stdout)
    local = re.search(rf"the local log-prob head \(chunks of 4096\) at {tokens:,} tokens a chip[^:]*: (fits|does not fit)", ran.stdout)
    assert local is not None and (local[1] == "fits") == local_fits, ran.stdout


def test_parallel_compiles_give_the_verdicts_of_one_at_a_time_in_the_scripts_order(compile_python, alone, tmp_path):
    # the first launch fits, the second does not: each verdict at its own launch's line, whichever
    # compile ends first, and each the verdict of its flags compiled alone
    script = tmp_path / "two.sh"
    train = f"python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml {SMALL}"
    script.write_text(f"#!/bin/bash\n{train} {FITS}\n{train} {DOES_NOT_FIT}\n")
    ran = run_flaglint("memory", "two.sh", "--topology", TOPOLOGY, "--compile-with", str(compile_python), "--jobs", "2",
                       "--format", "json", env={"XDG_CACHE_HOME": str(tmp_path / "cache")}, cwd=tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    report = json.loads(ran.stdout)
    assert [(finding["rule"], finding["location"]["line"]) for finding in report["findings"]] == [("FL018", 3)], report
    fits = [note for note in report["notes"] if "the train step fits" in note]
    assert len(fits) == 1 and fits[0].startswith("two.sh:2: "), report["notes"]
    kept = [json.loads(path.read_text()) for path in (tmp_path / "cache" / "flaglint" / "memory").glob("*.json")]
    assert sorted(kept, key=lambda verdict: verdict["outcome"]) == sorted((verdict for _, verdict in alone.values()),
                                                                          key=lambda verdict: verdict["outcome"])

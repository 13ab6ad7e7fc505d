"""`flaglint memory` on configs that fit and configs that do not, each held against MaxText's own
train_compile run on the same argv in the same environment.

    python bench/memory_bench.py [--only NAME …] [--skip-train-compile]

For each config: the verdict, the wall time of a first check (a compile) and of the same check
again (the kept verdict), the peak resident memory of the check and its compile process, and
whether MaxText's train_compile agrees (it compiled and printed the same CompiledMemoryStats, or it
failed with the same out-of-memory figures). The compile environment is the one `flaglint memory`
builds for the default pin's release (built first if missing); each check gets a fresh verdict
cache. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from flaglint.memory.environment import managed_python
from flaglint.memory.verdict import GIB, out_of_memory

RELEASE = "0.2.5"
STEPS = "steps=5"
# (name, the argv after the config file, topology, slices); seq 2048 (base.yml's max_target_length)
CONFIGS = [
    ("default b1", ["per_device_batch_size=1"], "v5e-8", 1),
    ("default b32", ["per_device_batch_size=32"], "v5e-8", 1),
    ("llama2-7b b1 full", ["model_name=llama2-7b", "per_device_batch_size=1", "remat_policy=full"], "v5e-8", 1),
    ("llama2-7b b2 full", ["model_name=llama2-7b", "per_device_batch_size=2", "remat_policy=full"], "v5e-8", 1),
    ("default b64", ["per_device_batch_size=64"], "v5e-8", 1),
    ("llama2-7b b8 minimal", ["model_name=llama2-7b", "per_device_batch_size=8", "remat_policy=minimal"], "v5e-8", 1),
    ("llama2-70b b1 full", ["model_name=llama2-70b", "per_device_batch_size=1", "remat_policy=full"], "v5e-256", 1),
    ("llama2-70b b4 minimal", ["model_name=llama2-70b", "per_device_batch_size=4", "remat_policy=minimal"], "v5e-256", 1),
    ("default b1 2 slices", ["per_device_batch_size=1"], "v5e-16", 2),
]
_STATS = re.compile(r"Memory analysis: CompiledMemoryStats\((.*?)\)")


def measured(command: list[str], env: dict[str, str], cwd: str | None = None) -> tuple[subprocess.CompletedProcess, float, int]:
    """The run, its wall seconds and the peak resident bytes of it and the processes it waited for."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(status), out.read().decode(), err.read().decode())
    return done, wall, usage.ru_maxrss * 1024


def target(topology: str, slices: int) -> list[str]:
    return ["--topology", topology, "--slices", str(slices)]


def flaglint_check(words: list[str], topology: list[str], python: Path, cache: str) -> tuple[dict, float, int]:
    env = dict(os.environ, XDG_CACHE_HOME=cache, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "flaglint", "memory", *topology, "--compile-with", str(python), "--format", "json",
               STEPS, *words]
    done, wall, rss = measured(command, env)
    kept = list(Path(cache, "flaglint", "memory").glob("*.json"))
    if done.returncode not in (0, 1) or len(kept) != 1:
        raise SystemExit(f"flaglint memory {' '.join(words)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(kept[0].read_text()), wall, rss


def train_compile(words: list[str], topology: str, slices: int, python: Path) -> dict:
    """MaxText's own compile of the same argv: its printed stats, or its out-of-memory figures."""
    base = subprocess.run([str(python), "-c", "import maxtext, os; print(os.path.dirname(maxtext.__file__))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    command = [str(python), "-m", "maxtext.trainers.pre_train.train_compile", f"{base}/configs/base.yml", STEPS, *words,
               f"compile_topology={topology}", f"compile_topology_num_slices={slices}"]
    with tempfile.TemporaryDirectory() as scratch:
        done, wall, rss = measured(command, dict(os.environ, ALLOW_MULTIPLE_LIBTPU_LOAD="1"), scratch)
    stats = _STATS.search(done.stdout)
    if stats is not None:
        return {"stats": {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", stats[1])}, "wall": wall, "rss": rss}
    return {"oom": out_of_memory(done.stdout + done.stderr), "wall": wall, "rss": rss}


def agrees(verdict: dict, maxtext: dict) -> str:
    if verdict["outcome"] == "fits":
        if "stats" not in maxtext:
            return "no: train_compile did not compile it"
        same = all(maxtext["stats"].get(k) == v for k, v in verdict["memory"].items() if k != "peak_memory_in_bytes")
        return "yes (same stats)" if same else f"no: {maxtext['stats']}"
    if verdict["outcome"] == "out of memory":
        figures = (verdict["required_bytes"], verdict["capacity_bytes"])
        return "yes (same figures)" if maxtext.get("oom") == figures else f"no: {maxtext.get('oom')}"
    return f"failed: {verdict['message'][:80]}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", help="names of CONFIGS to run")
    parser.add_argument("--skip-train-compile", action="store_true", help="no agreement column (half the time)")
    args = parser.parse_args()
    python, versions = managed_python(RELEASE, lambda said: print(said, file=sys.stderr))
    print(f"MaxText {versions.get('maxtext')}, jax {versions.get('jax')}, libtpu {versions.get('libtpu')}; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print("| config | target | verdict | first check (s) | again (s) | peak host memory (GiB) | train_compile agrees | train_compile (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, words, topology, slices in CONFIGS:
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory() as cache:
            verdict, wall, rss = flaglint_check(words, target(topology, slices), python, cache)
            _, again, _ = measured([sys.executable, "-m", "flaglint", "memory", *target(topology, slices), "--compile-with", str(python),
                                    STEPS, *words], dict(os.environ, XDG_CACHE_HOME=cache, PYTHONPATH=str(REPO)))
        if verdict["outcome"] == "fits":
            shown = f"fits: peak {verdict['required_bytes'] / GIB:.2f} of {verdict['capacity_bytes'] / GIB:.2f} GiB"
        elif verdict["outcome"] == "out of memory":
            shown = f"out of memory: {verdict['required_bytes'] / GIB:.2f} of {verdict['capacity_bytes'] / GIB:.2f} GiB"
        else:
            shown = "does not compile"
        maxtext = None if args.skip_train_compile else train_compile(words, topology, slices, python)
        agreement = "not run" if maxtext is None else agrees(verdict, maxtext)
        maxtext_wall = "" if maxtext is None else f"{maxtext['wall']:.0f}"
        shown_target = topology + (f" x {slices}" if slices > 1 else "")
        print(f"| {name} | {shown_target} | {shown} | {wall:.0f} | {again:.2f} | {rss / GIB:.2f} | {agreement} | {maxtext_wall} |", flush=True)


if __name__ == "__main__":
    main()

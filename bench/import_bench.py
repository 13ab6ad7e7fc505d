"""`flaglint schema import` per MaxText wheel and source tree, and a cold `flaglint check` at each
bundled pin.

    python bench/import_bench.py [--tree PATH ...] [--runs 5]

Prints, per bundled release's wheel (tests/maxtext_env.py downloads them into .cache/maxtext/) and
per source tree given: the wall and CPU time of one `flaglint schema import` into a scratch pin
store (the whole command: schema, validators, store entry), and the key and rule counts. Then, per
bundled pin, the median wall and CPU time of a cold `flaglint check` (rule cache warm, as after the
first run) of a clean flag string and of one with a broken rule (whose fix loads Z3), beside a bare
`python -c pass`. Targets: import <= 2 s, cold check <= 150 ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from maxtext_env import RELEASES, maxtext_wheel  # noqa: E402

# As installed by pip: byte-compiled modules (this workplace sets PYTHONDONTWRITEBYTECODE for its shells).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
CLEAN = "ici_fsdp_parallelism=4 remat_policy=full per_device_batch_size=2"
BROKEN = "num_moe_token_chunks=2 ici_fsdp_parallelism=4"  # a broken rule: the fix is solved (Z3 loads)


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()}")
    return wall, cpu, done.stdout


def median_of(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    samples = [timed(argv, env)[:2] for _ in range(runs)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", default=[], help="a MaxText source tree to import too (repeatable)")
    parser.add_argument("--runs", type=int, default=5, help="cold checks per pin (default 5)")
    args = parser.parse_args()
    flaglint = [sys.executable, "-m", "flaglint"]
    sources = [(f"wheel {v}", maxtext_wheel(v)) for v in RELEASES] + [(f"tree {t}", Path(t)) for t in args.tree]
    print("schema import (wall / CPU, one run each, into a scratch store):")
    for label, path in sources:
        if path is None:
            print(f"  {label:40} unavailable (no wheel)")
            continue
        with tempfile.TemporaryDirectory() as scratch:
            wall, cpu, out = timed([*flaglint, "schema", "import", "--name", "bench", str(path)],
                                   {**ENV, "XDG_CACHE_HOME": scratch})
        keys = out.splitlines()[0].split(": ", 1)[1].split(",")[0]
        rules = next((line.split(": ", 1)[1].split(" ")[0] for line in out.splitlines() if line.startswith("imported as")), "?")
        print(f"  {label:40} {wall:6.2f} s / {cpu:5.2f} s CPU   {keys}, {rules} rules")
    bare = median_of([sys.executable, "-c", "pass"], ENV, args.runs)
    print(f"cold check (median of {args.runs}; bare python {bare[0] * 1e3:.0f} ms / {bare[1] * 1e3:.0f} ms CPU):")
    for version in RELEASES:
        figures = []
        for flags in (CLEAN, BROKEN):
            argv = [*flaglint, "check", "--pin", f"maxtext-{version}", flags]
            timed(argv, ENV)  # fills the rule cache, as any first run does
            wall, cpu = median_of(argv, ENV, args.runs)
            figures.append(f"{wall * 1e3:5.0f} ms / {cpu * 1e3:4.0f} ms CPU")
        print(f"  maxtext-{version:8} clean {figures[0]}   with a fix {figures[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

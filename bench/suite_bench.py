"""The fast test suite's own figures: `python -m pytest -q` (the README's command), timed.

Prints its wall time, the CPU time (user + system) its processes used, the load average before and
after, and its 10 slowest tests. The targets: 3 minutes of wall time on a 2-core machine with
nothing else running, and 150 s of CPU time; where other work shares the machine the wall time
grows and the CPU time does not, so both are shown.

    python bench/suite_bench.py [-- PYTEST ARGS]   # e.g. -- -m slow for the slow suite
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SLOWEST = 10


def main(extra: list[str]) -> int:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--durations={SLOWEST}", *extra]
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = proc.stdout.splitlines()
    outcome = next((line.strip("= ") for line in reversed(lines) if re.search(r"\d+ (passed|failed|error)", line)), "no result")
    slowest = [line for line in lines if re.match(r"\s*\d+\.\d+s (call|setup|teardown) ", line)][:SLOWEST]
    print(f"{' '.join(command[1:])}: {outcome}")
    print(f"wall {wall:.1f} s ({wall / 60:.2f} min; target <= 3 min on 2 idle cores), CPU {cpu:.1f} s (user + system; "
          f"target <= 150 s); load average {load:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
    print(f"{SLOWEST} slowest:")
    print("\n".join(f"  {line.strip()}" for line in slowest))
    if proc.returncode != 0:
        print(proc.stdout[-4000:] + proc.stderr[-2000:], file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(args[1:] if args[:1] == ["--"] else args))

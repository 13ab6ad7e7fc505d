"""Every shell script of a public tree (a MaxText release, a recipe repository), linted as a user
lints it: `flaglint lint FILE --format json`, one fresh process per file, run from the tree's root
so the script's relative `source` paths resolve as they would there.

Prints, per tree: the files, their exit codes, the rules found, the files that gave an internal
error (exit 2 with a traceback, "internal error" or RecursionError, or an exit code other than
0/1/2), those that did not end within HANG seconds (a hang detector, not a limit on flaglint's
work), and the five slowest files with their wall and CPU time (user and system of the child: what a
busy machine does not inflate). Scripts are read, never run.

    python bench/tree_sweep.py GIT_DIR REV [REV ...] [--pin maxtext-0.2.5] [--under PATH]

GIT_DIR is a repository (`fetch` brings public ones under /work/.mirror/<owner>+<name>/repo); each
REV is written into a temporary directory first.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from sweeping import run_flaglint, written_out

HANG = 300


def sweep(git_dir: str, rev: str, pin: str, under: str | None) -> None:
    with written_out(git_dir, rev) as root:
        scripts = sorted((root / under if under else root).rglob("*.sh"))
        runs = [run_flaglint(root, "lint", script, ["--pin", pin], HANG) for script in scripts if script.is_file()]
    codes = Counter("hang" if run.hang else run.rc for run in runs)
    rules = Counter(finding["rule"] for run in runs for finding in run.findings)
    print(f"== {Path(git_dir).parent.name} {rev} ({pin}): {len(runs)} scripts; exit codes {dict(sorted(codes.items(), key=str))}")
    print(f"   rules: {dict(rules.most_common())}")
    for run in runs:
        if run.internal or run.hang:
            print(f"   INTERNAL {run.file}: {run.error}")
        elif run.rc == 2:
            print(f"   exit 2 {run.file}: {run.error}")
    slowest = sorted(runs, key=lambda run: -run.wall)[:5]
    print("   slowest: " + "; ".join(f"{run.file} {run.wall:.2f} s wall, {run.cpu or 0:.2f} s CPU" for run in slowest))
    total_cpu = sum(run.cpu or 0 for run in runs)
    print(f"   CPU per file: mean {total_cpu / max(len(runs), 1):.2f} s; internal errors "
          f"{sum(1 for run in runs if run.internal)}, hangs {codes.get('hang', 0)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir")
    parser.add_argument("revs", nargs="+")
    parser.add_argument("--pin", default="maxtext-0.2.5")
    parser.add_argument("--under", help="only the scripts under this path of the tree")
    args = parser.parse_args()
    for rev in args.revs:
        sweep(args.git_dir, rev, args.pin, args.under)
    return 0


if __name__ == "__main__":
    sys.exit(main())

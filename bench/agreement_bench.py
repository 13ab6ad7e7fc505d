"""flaglint against a MaxText release's own pyconfig on the same generated flag strings, in one
run: time per config on each side, the speed ratio, and the agreement figure (with recall and
specificity: of the configs MaxText rejects, the share flaglint rejects; of those it accepts, the
share flaglint accepts).

    python bench/agreement_bench.py [--version 0.2.5] [--n 2000] [--python PATH]
    python bench/agreement_bench.py --tree GIT_DIR [--commit REV] [--n 2000] [--python PATH]

A release flaglint does not bundle (0.2.1, 0.2.2) has its wheel imported, and a MaxText tree (a git
repository at a commit, main for one) its files at that commit, into a scratch pin store (a
temporary XDG_CACHE_HOME), as `flaglint schema import` does for a user. The oracle is the cached
environment of that release or commit (tests/maxtext_env.py builds it).

The configs are the differential tests' (tests/oracle/differential.py), drawn from the pin's own
keys and rules (with --not-judged-checks, also from the keys of the checks no rule states, which
flaglint reports as not judged: FL016). MaxText runs in one
long-lived process (its import is timed apart, not per config); flaglint reuses one Checker, as
`flaglint check --batch` does, and is timed both with fixes (as --batch) and findings only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from maxtext_env import (  # noqa: E402
    IMPORTED,
    MAXTEXT_VERSION,
    RELEASES,
    oracle_python,
    tree_oracle_python,
    unavailable,
)
from oracle.differential import (  # noqa: E402
    DISAGREEMENTS,
    Case,
    classify,
    draw_configs,
    figures,
    flaglint_verdict,
    load_disagreements,
    release_pin,
    tree_pin,
    write_disagreements,
)

from flaglint.frontends.check.confirm import PyconfigRunner  # noqa: E402
from flaglint.frontends.checker import Checker  # noqa: E402


def timed(fn, items):
    results, seconds = [], []
    for item in items:
        start = time.perf_counter()
        results.append(fn(item))
        seconds.append(time.perf_counter() - start)
    return results, seconds


def summary(seconds: list[float]) -> str:
    return (f"mean {statistics.fmean(seconds) * 1e3:8.2f} ms, median {statistics.median(seconds) * 1e3:8.2f} ms, "
            f"max {max(seconds) * 1e3:9.1f} ms")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="configs to draw (default 2000)")
    parser.add_argument("--version", choices=RELEASES + IMPORTED, default=MAXTEXT_VERSION,
                        help="the release: bundled, or (0.2.1, 0.2.2) its wheel imported (default 0.2.5)")
    parser.add_argument("--tree", metavar="GIT_DIR", help="a MaxText git repository: measure its tree at --commit instead")
    parser.add_argument("--commit", default="HEAD", help="the revision of --tree (default HEAD)")
    parser.add_argument("--python", help="a Python with that maxtext (default: the cached oracle environment)")
    parser.add_argument("--not-judged-checks", action="store_true",
                        help="also draw configs that set the keys of MaxText's checks no rule states (FL016 where set)")
    parser.add_argument("--fix-sample", type=int, default=200, help="configs whose fixes are timed (default 200)")
    parser.add_argument("--write-disagreements", action="store_true",
                        help="rewrite tests/disagreements.yml from this run (classes kept; new entries need one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["XDG_CACHE_HOME"] = scratch  # imports go to a scratch pin store, never the user's
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    if args.tree:
        what = subprocess.run(["git", "-C", args.tree, "log", "-1", "--format=%H", args.commit],
                              capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
        print(f"MaxText tree {args.tree} at {what}")
        pin, python = tree_pin(args.tree, what), args.python or tree_oracle_python(args.tree, what)
    else:
        pin, python = release_pin(args.version), args.python or oracle_python(args.version)
        what = args.version
    if pin is None or python is None:
        why = unavailable("tree" if args.tree else "wheel", what) if pin is None else unavailable("oracle", what)
        print(f"no MaxText to compare with: {why}", file=sys.stderr)
        return 2

    start = time.perf_counter()
    configs = draw_configs(args.n, pin=pin, not_judged_checks=args.not_judged_checks)
    print(f"{len(configs)} configs drawn in {time.perf_counter() - start:.1f} s")

    start = time.perf_counter()
    checker = Checker(pin)
    load = time.perf_counter() - start
    findings_only, flaglint_seconds = timed(lambda flags: flaglint_verdict(checker, flags, fix=False), configs)
    # Fixes cost far more than findings; time them on a sample so the bench stays short.
    with_fixes, batch_seconds = timed(lambda flags: flaglint_verdict(checker, flags), configs[: args.fix_sample])
    flaglint = findings_only

    start = time.perf_counter()
    with PyconfigRunner(python) as runner:
        startup = time.perf_counter() - start
        maxtext, maxtext_seconds = timed(lambda flags: runner.check(flags.split()), configs)

    print(f"flaglint Checker load            {load * 1e3:8.1f} ms (once)")
    print(f"MaxText start + import           {startup * 1e3:8.1f} ms (once)")
    print(f"flaglint, findings only:  {summary(flaglint_seconds)}")
    print(f"flaglint, with fixes:     {summary(batch_seconds)}  (as --batch --fix; first {len(batch_seconds)} configs)")
    print(f"MaxText pyconfig:         {summary(maxtext_seconds)}  (first error only)")
    mean_maxtext = statistics.fmean(maxtext_seconds)
    print(f"speed ratio (mean per config): {mean_maxtext / statistics.fmean(flaglint_seconds):.0f}x findings only, "
          f"{mean_maxtext / statistics.fmean(batch_seconds):.0f}x with fixes")  # fmt: skip
    rejected = [v for v in with_fixes if v.rejects]
    print(f"fixes: {sum(bool(v.fixes) for v in rejected)} of the {len(rejected)} rejected configs in the sample get one; "
          f"{sum('FL090' in v.description for v in rejected)} say no change satisfies a rule (FL090)")  # fmt: skip

    cases = [Case(*row) for row in zip(configs, flaglint, maxtext)]
    print(f"agreement at {pin}: {figures(cases)} "
          f"(MaxText rejects {sum(not c.maxtext.ok for c in cases)}, flaglint rejects {sum(bool(v.rejects) for v in flaglint)})")  # fmt: skip
    not_judged = [c for c in cases if c.flaglint.not_judged]
    print(f"not judged (FL016, a warning; counted apart): {len(not_judged)} configs, of which MaxText rejects "
          f"{sum(not c.maxtext.ok for c in not_judged)} ({sum(not c.maxtext.ok and not c.flaglint.rejects for c in not_judged)} "
          "that flaglint passes with FL016 only)")
    print(f"judged (the configs without FL016): {figures([c for c in cases if not c.flaglint.not_judged])}")
    kinds = Counter(
        ("flaglint crashes" if case.flaglint.rejects is None else "only MaxText rejects" if case.flaglint.rejects is False
         else "only flaglint rejects") for case in cases if not case.agrees
    )  # fmt: skip
    for kind, count in kinds.most_common():
        print(f"  {kind}: {count}")
    classes = load_disagreements(pin=pin).classes
    by_class = Counter(classify(case, classes) or "unclassified" for case in cases if not case.agrees)
    for name, count in by_class.most_common():
        print(f"  class {name}: {count}")
    for case in cases:
        if not case.agrees and classify(case, classes) is None:
            print(f"  unclassified: {case.as_entry()}")
    if args.write_disagreements:
        print(f"wrote {write_disagreements(cases, pin=pin)} disagreements of {pin} to {DISAGREEMENTS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

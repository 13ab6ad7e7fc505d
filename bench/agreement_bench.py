"""flaglint against a MaxText release's own pyconfig on the same generated flag strings, in one
run: time per config on each side, the speed ratio, and the agreement figure (with recall and
specificity: of the configs MaxText rejects, the share flaglint rejects; of those it accepts, the
share flaglint accepts).

    python bench/agreement_bench.py [--version 0.2.5] [--n 2000] [--python PATH]

The configs are the differential tests' (tests/oracle/differential.py). MaxText runs in one
long-lived process (its import is timed apart, not per config); flaglint reuses one Checker, as
`flaglint check --batch` does, and is timed both with fixes (as --batch) and findings only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from maxtext_env import MAXTEXT_VERSION, RELEASES, oracle_python, unavailable  # noqa: E402
from oracle.differential import (  # noqa: E402
    DISAGREEMENTS,
    Case,
    classify,
    draw_configs,
    flaglint_verdict,
    load_disagreements,
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
    parser.add_argument("--version", choices=RELEASES, default=MAXTEXT_VERSION, help="the bundled release (default 0.2.5)")
    parser.add_argument("--python", help="a Python with that maxtext (default: the cached oracle environment)")
    parser.add_argument("--fix-sample", type=int, default=200, help="configs whose fixes are timed (default 200)")
    parser.add_argument("--write-disagreements", action="store_true",
                        help="rewrite tests/disagreements.yml from this run (classes kept; new entries need one)")
    args = parser.parse_args()
    pin = f"maxtext-{args.version}"
    python = args.python or oracle_python(args.version)
    if python is None:
        print(f"no MaxText to compare with: {unavailable('oracle', args.version)}", file=sys.stderr)
        return 2

    start = time.perf_counter()
    configs = draw_configs(args.n, pin=pin)
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
    agreed = sum(case.agrees for case in cases)
    print(f"agreement at {pin}: {agreed}/{len(cases)} = {agreed / len(cases):.2%} "
          f"(MaxText rejects {sum(not c.maxtext.ok for c in cases)}, flaglint rejects {sum(bool(v.rejects) for v in flaglint)})")  # fmt: skip
    rejected_by_maxtext = [c for c in cases if not c.maxtext.ok]
    accepted_by_maxtext = [c for c in cases if c.maxtext.ok]
    recall = sum(c.flaglint.rejects is True for c in rejected_by_maxtext) / max(1, len(rejected_by_maxtext))
    specificity = sum(c.flaglint.rejects is False for c in accepted_by_maxtext) / max(1, len(accepted_by_maxtext))
    print(f"recall {recall:.2%} (of {len(rejected_by_maxtext)} MaxText rejects), "
          f"specificity {specificity:.2%} (of {len(accepted_by_maxtext)} MaxText accepts)")
    not_judged = [c for c in cases if c.flaglint.not_judged]
    print(f"not judged (FL016, a warning; counted apart): {len(not_judged)} configs, of which MaxText rejects "
          f"{sum(not c.maxtext.ok for c in not_judged)} ({sum(not c.maxtext.ok and not c.flaglint.rejects for c in not_judged)} "
          "that flaglint passes with FL016 only)")
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

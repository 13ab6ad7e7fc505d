"""flaglint's Tunix checks against each bundled Tunix release on the same drawn command lines: per
release, the share of cases where both say the same (stops at start-up, stops after downloads,
or starts), and each disagreement with its class (tests/oracle/tunix_differential.py EXPLAINED).

    python bench/tunix_agreement_bench.py [--version 0.1.7 ...] [--n 200] [--seed 0] [--show]

The cases are the oracle tests' (seeded: the same every run); the real side runs in the release's
oracle (tests/tunix_env.py, built once under .cache/).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from oracle.tunix_differential import (  # noqa: E402
    classify,
    draw_cases,
    flaglint_verdicts,
    tunix_verdicts,
)
from tunix_env import RELEASES, tunix_python, unavailable  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="append", help="a bundled release (default: every one)")
    parser.add_argument("--n", type=int, default=200, help="cases per release")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", action="store_true", help="print each disagreement")
    args = parser.parse_args()
    print(f"{'release':8} {'cases':>5} {'agree':>7} {'start-up':>9} {'after':>6} {'neither':>7}  disagreements by class")
    for version in args.version or RELEASES:
        if tunix_python(version) is None:
            print(f"{version:8} skipped: {unavailable(version)}")
            continue
        cases = draw_cases(version, args.n, args.seed)
        ours, theirs = flaglint_verdicts(version, cases), tunix_verdicts(version, cases)
        stages = Counter(t.stage for t in theirs)
        apart = [(c, o, t) for c, o, t in zip(cases, ours, theirs) if o.stage != t.stage]
        classes = Counter(classify(c, o, t) or "UNEXPLAINED" for c, o, t in apart)
        agreement = 1 - len(apart) / len(cases)
        print(f"{version:8} {len(cases):5} {agreement:7.2%} {stages['start-up']:9} {stages['after downloads']:6} "
              f"{stages[None]:7}  {dict(classes) or '-'}")
        if args.show:
            for case, o, t in apart:
                print(f"    {case.entry} [{case.mutation}] {' '.join(case.argv[-3:])} env={case.env}\n"
                      f"      flaglint: {o.stage}: {o.startup or o.after}\n      tunix:    {t.stage}: {t.startup or t.after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

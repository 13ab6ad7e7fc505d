"""flaglint's Tunix checks against each bundled Tunix release on the same drawn command lines: per
release, the share of cases where both say the same (stops at start-up, stops after downloads,
or starts), and each disagreement with its class (tests/oracle/tunix_differential.py EXPLAINED).

    python bench/tunix_agreement_bench.py [--version 0.1.7 ...] [--n 200] [--seed 0] [--examples TUNIX_GIT_DIR] [--show] [-o FILE.md]

Agreement: the share of cases where both name the same stage (or neither stops). Recall: of the
cases Tunix refuses, the share flaglint refuses at the same stage. Specificity: of the cases Tunix
takes, the share where flaglint gives no error.

The cases are the oracle tests' (seeded: the same every run), drawn from clean launches of the
shape of Tunix's example scripts, or with --examples (a clone of google/tunix, a bare one will do)
from the launches of each release tag's own examples/**/run_*.sh (tests/oracle/tunix_examples.py);
the real side runs in the release's oracle (tests/tunix_env.py, built once under .cache/).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from oracle.tunix_differential import (  # noqa: E402
    EXPLAINED,
    classify,
    draw_cases,
    flaglint_verdicts,
    tunix_verdicts,
)
from oracle.tunix_examples import example_launches  # noqa: E402
from tunix_env import RELEASES, tunix_python, unavailable  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="append", help="a bundled release (default: every one)")
    parser.add_argument("--n", type=int, default=200, help="cases per release")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=Path, help="a clone of google/tunix: the clean launches are each release's own examples")
    parser.add_argument("--show", action="store_true", help="print each disagreement")
    parser.add_argument("-o", "--output", type=Path, help="also write the table (Markdown) here")
    args = parser.parse_args()
    header = f"{'release':8} {'cases':>5} {'agree':>7} {'recall':>7} {'spec.':>7} {'start-up':>9} {'after':>6} {'neither':>7}  disagreements by class"
    print(header)
    rows = []
    seen: set[str] = set()
    for version in args.version or RELEASES:
        if tunix_python(version) is None:
            print(f"{version:8} skipped: {unavailable(version)}")
            continue
        clean = example_launches(args.examples, version) if args.examples else None
        if args.examples and not clean:
            print(f"{version:8} skipped: no launch of grpo_main or peft_main read from the tag's examples")
            continue
        cases = draw_cases(version, args.n, args.seed, clean)
        ours, theirs = flaglint_verdicts(version, cases), tunix_verdicts(version, cases)
        stages = Counter(t.stage for t in theirs)
        apart = [(c, o, t) for c, o, t in zip(cases, ours, theirs) if o.stage != t.stage]
        classes = Counter(classify(c, o, t) or "UNEXPLAINED" for c, o, t in apart)
        seen.update(classes)
        agreement = 1 - len(apart) / len(cases)
        refused = [(o, t) for o, t in zip(ours, theirs) if t.stage is not None]
        taken = [(o, t) for o, t in zip(ours, theirs) if t.stage is None]
        recall = sum(o.stage == t.stage for o, t in refused) / len(refused) if refused else 1.0
        specificity = sum(o.stage is None for o, _ in taken) / len(taken) if taken else 1.0
        print(f"{version:8} {len(cases):5} {agreement:7.2%} {recall:7.3f} {specificity:7.3f} {stages['start-up']:9} "
              f"{stages['after downloads']:6} {stages[None]:7}  {dict(classes) or '-'}")
        rows.append(f"| {version} | {len(cases)} | {agreement:.3f} | {recall:.3f} | {specificity:.3f} | {stages['start-up']} | "
                    f"{stages['after downloads']} | {stages[None]} | {', '.join(f'{k}: {v}' for k, v in classes.items()) or '-'} |")
        if args.show:
            for case, o, t in apart:
                print(f"    {case.entry} [{case.mutation}] {' '.join(case.argv[-3:])} env={case.env}\n"
                      f"      flaglint: {o.stage}: {o.startup or o.after}\n      tunix:    {t.stage}: {t.startup or t.after}")
    if args.output:
        source = " --examples TUNIX_GIT_DIR" if args.examples else ""
        drawn = ("the drawn command lines of tests/oracle/tunix_differential.py from the launches of each release tag's own "
                 "examples/**/run_*.sh" if args.examples else "the drawn command lines of tests/oracle/tunix_differential.py")
        args.output.write_text(f"# flaglint against the real Tunix releases\n\n`python bench/tunix_agreement_bench.py --n {args.n} "
                               f"--seed {args.seed}{source}`: {drawn}, each judged "
                               "by flaglint and by the release (HyperParameters, then the entry point's builders, optimizers, "
                               "meshes and, at 0.1.7, max_steps against the data) on 256 CPU devices.\n\n"
                               "| release | cases | agreement | recall | specificity | Tunix: start-up | after downloads | "
                               "runs | disagreements by class |\n|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
                               + "".join(f"\n{name}: {EXPLAINED.get(name, 'a disagreement with no explained cause')}\n"
                                         for name in sorted(seen)),
                               encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Recipe and launcher scripts, linted as a user lints them (`flaglint lint --format json --pin PIN
FILE`, a fresh process each, with the bytecode an installed package has), CPU seconds per file:

- the project's own recipe material: examples/recipes and tests/fixtures/recipes (the recipe family,
  the guard fixtures, and the launcher fixtures with a distributed-RL launcher's constructs: a flags
  function whose output is captured, a --command string of optional parts, an options loop, common
  files sourced beside it);
- every *.sh under each TREE given (a copy of google/tunix's tunix/experimental/examples, say);
- launcher-shaped scripts generated at growing sizes (tests/render/script_shapes): k8s_launcher
  (an options loop, captured flags function output, an `||` guard, a --command string of N optional
  parts), launch_sites (N subcommands reaching the same two launch sites) and options_loop_launcher
  (N options read in a loop), each size with its growth over the size before.

Target: every file <= 1 s. Whether MaxText and Tunix accept the launches the scripts make is
bench/judged_sweep.py's.

    python bench/recipes_bench.py [TREE ...] [--pin bbd0f6f10] [--runs 3]
                                  [--launcher 10 50 100 200] [--sites 4 16 64 256] [--options 4 16 64 256]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests" / "render")]

from appends_bench import add_shape_arguments, best_of, print_shapes, summary  # noqa: E402

OWN = (ROOT / "examples" / "recipes", ROOT / "tests" / "fixtures" / "recipes")
TARGET = 1.0


def lint_files(label: str, root: Path, pin: str, runs: int) -> list[tuple[str, float]]:
    """Each *.sh under `root` linted (the least CPU time of `runs` fresh runs), printed; the files
    over the target, with their time."""
    over = []
    for script in sorted(root.rglob("*.sh")):
        proc, wall, cpu = best_of(runs, "--pin", pin, str(script))
        name = f"{label}/{script.relative_to(root)}"
        mark = "  OVER 1 s" if cpu > TARGET else ""
        print(f"{name}: {cpu:.3f} s CPU ({wall:.3f} s wall), {summary(proc)}{mark}")
        if cpu > TARGET:
            over.append((name, cpu))
    return over


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, help="directories whose *.sh are linted too")
    parser.add_argument("--pin", default="bbd0f6f10")
    parser.add_argument("--runs", type=int, default=1, help="fresh runs of each file: the least time is printed")
    add_shape_arguments(parser)
    args = parser.parse_args()
    for tree in args.trees:
        if not tree.is_dir():
            parser.error(f"{tree}: not a directory")
    with tempfile.TemporaryDirectory() as d:  # the bytecode and the pin's data cache written once, before any time is taken
        warm = Path(d) / "warm.sh"
        warm.write_text("#!/bin/bash\npython3 -m maxtext.train src/maxtext/configs/base.yml steps=1\n")
        best_of(1, "--pin", args.pin, str(warm))
    over = []
    for root in (*OWN, *args.trees):
        label = str(root.relative_to(ROOT)) if root.is_relative_to(ROOT) else str(root)
        over += lint_files(label, root, args.pin, args.runs)
    with tempfile.TemporaryDirectory() as d:
        print_shapes(args, Path(d), args.runs)
    print(f"files over {TARGET:.0f} s: " + (", ".join(f"{name} {cpu:.2f} s" for name, cpu in over) or "none"))


if __name__ == "__main__":
    main()

"""All-paths exploration of a generated recipe with N independent two-way switches (default 12).

Prints the time explore() takes, the paths per second, and the ratio against rendering every one of
the 2**N switch combinations one by one with render(). Target: 12 switches in <= 2 s.

    python bench/paths_bench.py [--switches 12]
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

from flaglint.render import explore, render


# Real MaxText 0.2.5 booleans that no rule forbids either way, so every outcome is checked in full.
SWITCHED_KEYS = [
    "sa_use_base2_exp", "sa_fuse_reciprocal", "enable_checkpointing", "async_checkpointing", "log_config",
    "debug_sharding", "enable_mllog", "save_checkpoint_on_completion", "gcs_metrics", "save_config_to_gcs",
    "enable_tensorboard", "checkpoint_storage_use_ocdbt",
]


def recipe(switches: int, conflict: bool = False) -> str:
    lines = [
        "#!/bin/bash",
        "set -euo pipefail",
        'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
        'export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS:-} scan_layers=true \\',
        '  per_device_batch_size=1"',
        'export TRAINER_MESH_FSDP="${TRAINER_MESH_FSDP:-32}"',
    ]
    for i in range(switches):
        lines += [
            f'if [[ "${{SWITCH_{i}:-false}}" == "true" ]]; then',
            f'  export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {SWITCHED_KEYS[i % len(SWITCHED_KEYS)]}=true"',
            "else",
            f'  export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {SWITCHED_KEYS[i % len(SWITCHED_KEYS)]}=false"',
            "fi",
        ]
    if conflict:  # an error on the half of the paths where SWITCH_0 is on: its witness is solved in Z3
        lines += [
            'if [[ "${SWITCH_0:-false}" == "true" ]]; then',
            '  export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} moe_chunk_pipeline=true num_moe_token_chunks=1"',
            "fi",
        ]
    lines.append("kubectl apply -f jobset.yaml")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--switches", type=int, default=12)
    args = parser.parse_args()
    n = args.switches
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "generated_recipe.sh"
        path.write_text(recipe(n))
        render(path, {})  # parse once, as a linter run over many scripts would have
        start = time.perf_counter()
        result = explore(path, path_cap=2**n)
        explore_s = time.perf_counter() - start
        assert not result.capped and len(result.outcomes) == 2**n, (result.capped, len(result.outcomes))
        start = time.perf_counter()
        renderings = set()
        for combo in itertools.product((None, "true"), repeat=n):
            env = {f"SWITCH_{i}": v for i, v in enumerate(combo) if v is not None}
            renderings.add(render(path, env).exported["MAXTEXT_EXTRA_FLAGS"].text)
        one_by_one_s = time.perf_counter() - start
        assert renderings == {o.rendering.exported["MAXTEXT_EXTRA_FLAGS"].text for o in result.outcomes}
        from flaglint.check import Checker
        from flaglint.lint import check_script

        checker = Checker()
        start = time.perf_counter()
        checked = check_script(path, checker, path_cap=2**n)
        lint_s = time.perf_counter() - start
        conflicted = Path(d) / "generated_recipe_with_conflict.sh"
        conflicted.write_text(recipe(n, conflict=True))
        start = time.perf_counter()
        with_finding = check_script(conflicted, checker, path_cap=2**n)
        conflict_s = time.perf_counter() - start
        witnesses = [f.witness["env"] for f in with_finding.result.findings if f.severity == "error"]
    print(f"switches: {n}  paths explored: {result.paths_explored}  distinct outcomes: {len(result.outcomes)}")
    print(f"lint (explore + check every outcome with the rules): {lint_s:.3f} s for {checked.outcomes} outcomes,"
          f" {len(checked.result.findings)} findings  target <= 2 s")
    print(f"lint with an error on half the paths: {conflict_s:.3f} s, witness {witnesses}  target <= 2 s")
    print(f"explore: {explore_s:.3f} s  ({result.paths_explored / explore_s:,.0f} paths/s)  target <= 2 s")
    print(f"render() of the {2**n} combinations one by one: {one_by_one_s:.3f} s"
          f"  ratio one-by-one / explore: {one_by_one_s / explore_s:.2f}x")


if __name__ == "__main__":
    main()

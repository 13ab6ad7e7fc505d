"""Every branch of generated recipes with N independent two-way switches, and of a recipe family.

Prints, for the 12-switch recipe (4,096 combinations): evaluate() (paths merged where they join),
the reference explorer (one path per combination) and `lint` in process and as a command; for 40
independent switches: `lint` in process; for 40 switches each turned on by a guard over two inputs
(tests/fixtures/recipes/guards/forty_two_input_switches.sh): `lint` in process and as a command;
for the recipe family under tests/fixtures/recipes/family: `flaglint lint` per file as a fresh process (cold: a new interpreter, with the bytecode an installed
package has); for one group of 14 interacting inputs (82,944 combinations, more than path-cap, so
the solver checks it: tests/fixtures/recipes/guards/fourteen_mesh_inputs.sh) and its refusal:
`lint` in process and as a command. Targets: 12 switches lint end to end <= 0.3 s,
40 switches <= 2 s (with one input or two to each), a family file <= 2 s cold, the 14-input
group <= 2 s as a command. Then a GPU launcher's shape, generated with N options (an options loop
in a function handed "$@", the options in an array handed to a function whose locals make a
`bash -c` string), as it is and with the script's last possible argument read (so the loop may go
round once for each option): evaluate() CPU time, paths, and the growth time(N)/time(N/2).
Target: 8 options well under 2 s, each size's time a small multiple of the one before.

    python bench/paths_bench.py [--switches 12] [--many 40] [--options 2 4 8 16]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "render")]

from script_shapes import options_launcher  # noqa: E402

from flaglint.render import evaluate, explore  # noqa: E402

FAMILY = ROOT / "tests" / "fixtures" / "recipes" / "family"
GUARDS = ROOT / "tests" / "fixtures" / "recipes" / "guards"


def free_booleans(count: int) -> list[str]:
    """Real MaxText 0.2.5 booleans that no rule reads, so every switch is independent of the others."""
    from flaglint.frontends.checker import Checker

    checker = Checker()
    read = set().union(*(rule.name_set for rule in checker.ruleset.rules))
    keys = [name for name, key in checker.pin.keys.items() if key.kind == "bool" and name not in read]
    return keys[:count]


def recipe(keys: list[str], conflict: bool = False) -> str:
    lines = [
        "#!/bin/bash",
        "set -euo pipefail",
        'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
        'export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS:-} scan_layers=true \\',
        '  per_device_batch_size=1"',
        'export TRAINER_MESH_FSDP="${TRAINER_MESH_FSDP:-32}"',
    ]
    for i, key in enumerate(keys):
        lines += [
            f'if [[ "${{SWITCH_{i}:-false}}" == "true" ]]; then',
            f'  export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {key}=true"',
            "else",
            f'  export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {key}=false"',
            "fi",
        ]
    if conflict:  # an error where SWITCH_0 is on: its witness is solved in Z3
        lines += [
            'if [[ "${SWITCH_0:-false}" == "true" ]]; then',
            '  export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} moe_chunk_pipeline=true num_moe_token_chunks=1"',
            "fi",
        ]
    lines.append("kubectl apply -f jobset.yaml")
    return "\n".join(lines) + "\n"


def options_growth(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as d:
        for reads_last in (False, True):
            before = None
            for n in sizes:
                path = Path(d) / f"options_{n}_{reads_last}.sh"
                path.write_text(options_launcher(n, reads_last))
                start = time.process_time()
                result = evaluate(path)
                cpu = time.process_time() - start
                growth = f", growth x{cpu / before:.1f}" if before else ""
                print(f"options launcher, {n} options{' (last argument read)' if reads_last else ''}:"
                      f" evaluate {cpu:.3f} s CPU, {result.paths_explored} path(s){growth}")
                before = cpu


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


# A fresh process each run, with the bytecode an installed package has (compiled once, kept here).
PYCACHE = Path(tempfile.gettempdir()) / "flaglint-bench-pycache"


def lint_command(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(PYCACHE)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "flaglint", "lint", "--format", "json", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    return proc, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--switches", type=int, default=12)
    parser.add_argument("--many", type=int, default=40)
    parser.add_argument("--options", type=int, nargs="+", default=[2, 4, 8, 16])
    args = parser.parse_args()
    options_growth(args.options)
    from flaglint.frontends.checker import Checker
    from flaglint.frontends.lint.scripts import check_script

    n = args.switches
    keys = free_booleans(max(n, args.many))
    checker = Checker()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "generated_recipe.sh"
        path.write_text(recipe(keys[:n]))
        evaluate(path)  # parse once, as a linter run over many scripts would have
        merged, evaluate_s = timed(evaluate, path)
        reference, explore_s = timed(explore, path, path_cap=2**n)
        assert len(reference.outcomes) == 2**n and not reference.capped
        checked, lint_s = timed(check_script, path, checker)
        conflicted = Path(d) / "generated_recipe_with_conflict.sh"
        conflicted.write_text(recipe(keys[:n], conflict=True))
        with_finding, conflict_s = timed(check_script, conflicted, checker)
        witnesses = [f.witness["env"] for f in with_finding.result.findings if f.severity == "error"]
        lint_command(str(path))  # writes the bytecode once
        proc, command_s = lint_command(str(path))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        many = Path(d) / "generated_recipe_many.sh"
        many.write_text(recipe(keys[:args.many]))
        many_checked, many_s = timed(check_script, many, checker)
    guarded = GUARDS / "forty_two_input_switches.sh"
    check_script(guarded, checker)  # parse once
    guarded_merged = evaluate(guarded)
    guarded_checked, guarded_s = timed(check_script, guarded, checker)
    proc, guarded_command_s = lint_command(str(guarded))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(f"{n} switches ({2**n} combinations): evaluate {evaluate_s * 1000:.1f} ms, {len(merged.outcomes)} outcome(s),"
          f" {merged.paths_explored} path(s); reference explorer {explore_s:.3f} s for {len(reference.outcomes)} outcomes")
    print(f"  lint in process: {lint_s:.3f} s, {len(checked.result.findings)} findings;"
          f" with an error where SWITCH_0 is on: {conflict_s:.3f} s, witness {witnesses}")
    print(f"  `flaglint lint` as a command (interpreter start included): {command_s:.3f} s  target <= 0.3 s")
    print(f"{args.many} independent switches: lint in process {many_s:.3f} s, {len(many_checked.result.findings)} findings"
          "  target <= 2 s")
    print(f"40 switches each guarded over two inputs ({guarded.name}, 2**80 assignments):"
          f" {len(guarded_merged.outcomes)} outcome(s), {guarded_merged.paths_explored} path(s);"
          f" lint in process {guarded_s:.3f} s, {len(guarded_checked.result.findings)} findings;"
          f" as a command {guarded_command_s:.3f} s  target <= 2 s")
    for name in ("fourteen_mesh_inputs.sh", "fourteen_mesh_inputs_refused.sh"):
        group = GUARDS / name
        check_script(group, checker)  # parse once
        group_checked, group_s = timed(check_script, group, checker)
        proc, group_command_s = lint_command(str(group))
        assert "Traceback" not in proc.stderr, proc.stderr
        print(f"one group of 14 inputs, 82,944 combinations, by the solver ({name}): lint in process {group_s:.3f} s,"
              f" findings {[f.rule for f in group_checked.result.findings]}; as a command {group_command_s:.3f} s"
              f" (exit {proc.returncode})  target <= 2 s")
    if FAMILY.is_dir():
        times = []
        for script in sorted(FAMILY.glob("recipe_*.sh")):
            proc, seconds = lint_command("--pin", "e526ea02", str(script))
            assert "Traceback" not in proc.stderr, proc.stderr
            times.append(seconds)
            print(f"  family {script.name}: {seconds:.3f} s cold, exit {proc.returncode}")
        print(f"family: {len(times)} files, median {sorted(times)[len(times) // 2]:.3f} s, slowest {max(times):.3f} s"
              "  target <= 2 s a file cold")


if __name__ == "__main__":
    main()

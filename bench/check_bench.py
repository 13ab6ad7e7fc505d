"""Cold-start and throughput of `flaglint check`, on the example flag strings.

Prints: the median wall and CPU time of 10 cold runs of each command (the README's check with its
fix, `check 'steps=10'`, `--version`, the 128-chip tuned string, a twelve-axis mesh conflict),
beside a bare `python -c pass` run in turn with them round after round, and each one's ratio to it
(the README's check: at most 6x; `check 'steps=10'`: at most 4x); the README's check again in a project whose
pyproject.toml has a [tool.flaglint] table (as a team's repository does; the table is typed on the
first run and read from the cache after); the fix search's time for the README's conflict (small:
found without Z3, solve/enumeration.py) and Z3's on it, and Z3's work in its units
(rlimit, the same on every machine) beside the limit on it; and the warm `--batch` throughput
(target >= 500 strings/s).

`--instructions` also counts the instructions each cold command executes (valgrind's callgrind,
where valgrind is installed; a private data cache, warmed first, and a fixed hash seed), the same
on a busy machine as on a quiet one: the start-up ratios without the load's noise.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FLAGS = REPO / "examples" / "flags"
MESH_CONFLICT = ("compile_topology=tpu7x-4096 compile_topology_num_slices=1 ici_fsdp_parallelism=-1 ici_diloco_parallelism=2 "
                 "ici_data_parallelism=4 ici_pipeline_parallelism=2 ici_fsdp_transpose_parallelism=2 ici_context_parallelism=2 "
                 "ici_context_autoregressive_parallelism=2 ici_tensor_parallelism=4 ici_tensor_sequence_parallelism=2 "
                 "ici_expert_parallelism=4 ici_autoregressive_parallelism=2")


# As installed by pip: byte-compiled modules (this workplace sets PYTHONDONTWRITEBYTECODE for its shells).
# PYTHONPATH: the checkout's flaglint, also from another working directory.
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(REPO)}


def _run(argv: list[str], stdin: bytes | None = None, cwd: Path = REPO) -> tuple[float, float]:
    """The wall time and the CPU time (user + system) of one run of the command; CPU time does not
    grow when other work shares the machine, wall time does."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=False, cwd=cwd, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _instructions(argv: list[str], cwd: Path, cache: Path) -> int:
    """The instructions one run of the command executes, its cache warm (callgrind's count)."""
    env = {**ENV, "XDG_CACHE_HOME": str(cache), "PYTHONHASHSEED": "0"}
    subprocess.run(argv, capture_output=True, check=False, cwd=cwd, env=env)
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], capture_output=True,
                          text=True, check=False, cwd=cwd, env=env)
    return int(re.search(r"Collected : (\d+)", done.stderr)[1])


def _medians(commands: dict[str, tuple[list[str], Path]], runs: int) -> dict[str, tuple[float, float]]:
    """The median wall and CPU time of each command, run in turn round after round: a bare
    interpreter among them meets the same load as the others."""
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, (argv, cwd) in commands.items():
            times[label].append(_run(argv, cwd=cwd))
    return {label: (statistics.median(w for w, _ in found), statistics.median(c for _, c in found)) for label, found in times.items()}


def _fix_time(runs: int) -> tuple[float, float]:
    """The time of one fix search of the README's conflict, warm, as a check makes it (without Z3,
    the search being small) and as Z3 makes it."""
    sys.path.insert(0, str(REPO))
    from flaglint.frontends.checker import Checker
    from flaglint.read.flags import FlagSource, read_env_assignments
    from flaglint.resolve.resolver import resolve
    from flaglint.solve.rules import applicable, minimal_changes, violated
    from flaglint.solve.smt import FixProblem

    checker = Checker("bbd0f6f10")
    env = read_env_assignments((), str(FLAGS / "tuned-256-64x1x8.env"))
    source = FlagSource((FLAGS / "tuned-256-64x1x8-before.flags").read_text())
    config, _ = resolve(source, checker.pin, env)
    rules = applicable(checker.ruleset, config)
    broken = violated(rules, config)
    FixProblem(config, rules, broken).solve(3)  # z3's import, paid once
    minimal_changes(config, rules, broken, 3)
    start = time.perf_counter()
    for _ in range(runs):
        minimal_changes(config, rules, broken, 3)
    middle = time.perf_counter()
    for _ in range(runs):
        FixProblem(config, rules, broken).solve(3)
    return (middle - start) / runs, (time.perf_counter() - middle) / runs


def _solver_work(pin: str, flags: str, env_file: Path | None = None) -> tuple[int, int]:
    """The Z3 work of a fix search (3 fixes), and the most it may take: FIX_WORK_LIMIT's units,
    the same on every machine, unlike its time."""
    sys.path.insert(0, str(REPO))
    from flaglint.frontends.checker import Checker
    from flaglint.read.flags import FlagSource, read_env_assignments
    from flaglint.solve.rules import applicable, violated
    from flaglint.solve.smt import FixProblem

    checker = Checker(pin)
    env = read_env_assignments((), str(env_file)) if env_file else {}
    config, _ = checker.config(FlagSource(flags), env)
    rules = applicable(checker.ruleset, config)
    problem = FixProblem(config, rules, violated(rules, config))
    problem.solve(3)
    return problem.work.spent(), problem.work.limit


def _batch_lines(count: int) -> bytes:
    base = (FLAGS / "tuned-128.flags").read_text().split()
    mutations = ["num_moe_token_chunks=4", "moe_chunk_pipeline=false", "log_period=1.5", "context=offload query_proj=device", "moe_chunk_pipline=true", ""]
    rng = random.Random(0)
    lines = [" ".join(rng.sample(base, k=len(base) - 3) + [rng.choice(mutations)]) for _ in range(count)]
    return ("\n".join(lines) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--instructions", action="store_true", help="also count each command's instructions (needs valgrind)")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions counts with valgrind, which is not on PATH")
    python = sys.executable
    flaglint = [python, "-m", "flaglint", "check", "--pin", "bbd0f6f10"]
    commands = {
        "python -c pass": ([python, "-c", "pass"], REPO),
        "README's check (FL101 and its fix)": (flaglint + ["--env-file", str(FLAGS / "tuned-256-64x1x8.env"),
                                                           str(FLAGS / "tuned-256-64x1x8-before.flags")], REPO),
        "flaglint check 'steps=10'": ([python, "-m", "flaglint", "check", "steps=10"], REPO),
        "flaglint --version": ([python, "-m", "flaglint", "--version"], REPO),
        "flaglint check, 128-chip tuned (clean)": (flaglint + ["--env-file", str(FLAGS / "tuned-128.env"), "-f", str(FLAGS / "tuned-128.flags")], REPO),
        "flaglint check, 12-axis mesh conflict + fix": ([python, "-m", "flaglint", "check", "--pin", "maxtext-0.2.5", MESH_CONFLICT], REPO),
    }
    targets = {"README's check (FL101 and its fix)": "(target <= 6x)", "flaglint check 'steps=10'": "(target <= 4x)",
               "flaglint check, 12-axis mesh conflict + fix": "(target well under 500 ms cpu)"}
    with tempfile.TemporaryDirectory() as project:
        Path(project, "pyproject.toml").write_text('[project]\nname = "recipes"\n\n[tool.flaglint]\npin = "bbd0f6f10"\nfail-on = "error"\n')
        commands["the README's check with [tool.flaglint] settings"] = (
            [python, "-m", "flaglint", "check", "--env-file", str(FLAGS / "tuned-256-64x1x8.env"), str(FLAGS / "tuned-256-64x1x8-before.flags")],
            Path(project))
        for argv, cwd in commands.values():  # the data cache and the settings table, built once
            _run(argv, cwd=cwd)
        timed = _medians(commands, args.runs)
        counted = {label: _instructions(argv, cwd, Path(project, "cache")) for label, (argv, cwd) in commands.items()} if args.instructions else {}
    per_fix, per_z3_fix = _fix_time(20)
    conflict_work, limit = _solver_work("bbd0f6f10", (FLAGS / "tuned-256-64x1x8-before.flags").read_text(), FLAGS / "tuned-256-64x1x8.env")
    mesh_work, _ = _solver_work("maxtext-0.2.5", MESH_CONFLICT)
    lines = _batch_lines(args.batch)
    start = time.perf_counter()
    subprocess.run(flaglint + ["--batch", "-"], input=lines, capture_output=True, check=False, cwd=REPO, env=ENV)
    batch_seconds = time.perf_counter() - start
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {args.runs} rounds "
          "(wall / cpu, and each over python -c pass in the same rounds)")
    bare = timed["python -c pass"]
    for label, (wall, cpu) in timed.items():
        print(f"{label:50} {wall * 1000:7.1f} / {cpu * 1000:6.1f} ms  {wall / bare[0]:5.1f}x / {cpu / bare[1]:5.1f}x  {targets.get(label, '')}".rstrip())
    if counted:
        print("instructions executed (callgrind, cache warm), and each over python -c pass")
        for label, count in counted.items():
            print(f"{label:50} {count / 1e6:7.1f} M  {count / counted['python -c pass']:5.1f}x  {targets.get(label, '')}".rstrip())
    print(f"fix search of the README's conflict (warm, in process) {per_fix * 1000:7.1f} ms (Z3's search of it: {per_z3_fix * 1000:.1f} ms)")
    print(f"solver work (Z3 rlimit units): 256-chip conflict {conflict_work:,}, 12-axis mesh {mesh_work:,} (limit {limit:,})")
    print(f"--batch: {args.batch} strings in {batch_seconds:.2f} s = {args.batch / batch_seconds:7.0f} strings/s (target >= 500/s, process start included)")


if __name__ == "__main__":
    main()

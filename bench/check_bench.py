"""Cold-start and throughput of `flaglint check`, on the seed's flag strings.

Prints: the median wall time of 10 cold `flaglint check` runs on the 128-chip tuned string, beside
a bare `python -c pass`; the same with the 256-chip conflict added (so a fix is solved), with the
solver's time per fix, and its work in Z3's units (rlimit, the same on every machine) beside the
limit on it; the fixing check again in a project whose pyproject.toml has a [tool.flaglint] table
(as a team's repository does; the table is typed on the first run and read from the cache after);
and the warm `--batch` throughput. Targets: <= 150 ms cold, >= 500 strings/s.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
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


def _median_wall(argv: list[str], runs: int, stdin: bytes | None = None, cwd: Path = REPO) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of the command; CPU time does not
    grow when other work shares the machine, wall time does."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, check=False, cwd=cwd, env=ENV)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def _solver_time_per_fix(runs: int) -> float:
    sys.path.insert(0, str(REPO))
    from flaglint.frontends.checker import Checker
    from flaglint.read.flags import FlagSource, read_env_assignments
    from flaglint.resolve.resolver import resolve
    from flaglint.solve.rules import applicable, minimal_changes, violated

    checker = Checker("bbd0f6f10")
    env = read_env_assignments((), str(FLAGS / "tuned-256-64x1x8.env"))
    source = FlagSource((FLAGS / "tuned-256-64x1x8-before.flags").read_text())
    config, _ = resolve(source, checker.pin, env)
    rules = applicable(checker.ruleset, config)
    broken = violated(rules, config)
    minimal_changes(config, rules, broken, 3)  # z3 import and context, paid once
    start = time.perf_counter()
    for _ in range(runs):
        minimal_changes(config, rules, broken, 3)
    return (time.perf_counter() - start) / runs


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
    args = parser.parse_args()
    python = sys.executable
    flaglint = [python, "-m", "flaglint", "check", "--pin", "bbd0f6f10"]
    _median_wall(flaglint + ["--env-file", str(FLAGS / "tuned-128.env"), "-f", str(FLAGS / "tuned-128.flags")], 1)  # warm the rule cache
    bare = _median_wall([python, "-c", "pass"], args.runs)
    clean = _median_wall(flaglint + ["--env-file", str(FLAGS / "tuned-128.env"), "-f", str(FLAGS / "tuned-128.flags")], args.runs)
    fixing = _median_wall(flaglint + ["--env-file", str(FLAGS / "tuned-256-64x1x8.env"), "-f", str(FLAGS / "tuned-256-64x1x8-before.flags")], args.runs)
    with tempfile.TemporaryDirectory() as project:
        Path(project, "pyproject.toml").write_text('[project]\nname = "recipes"\n\n[tool.flaglint]\npin = "bbd0f6f10"\nfail-on = "error"\n')
        in_project = [python, "-m", "flaglint", "check", "--env-file", str(FLAGS / "tuned-256-64x1x8.env"), "-f", str(FLAGS / "tuned-256-64x1x8-before.flags")]
        subprocess.run(in_project, capture_output=True, check=False, cwd=project, env=ENV)  # types the table once
        configured = _median_wall(in_project, args.runs, cwd=Path(project))
    mesh = _median_wall([python, "-m", "flaglint", "check", "--pin", "maxtext-0.2.5", MESH_CONFLICT], args.runs)
    per_fix = _solver_time_per_fix(20)
    conflict_work, limit = _solver_work("bbd0f6f10", (FLAGS / "tuned-256-64x1x8-before.flags").read_text(), FLAGS / "tuned-256-64x1x8.env")
    mesh_work, _ = _solver_work("maxtext-0.2.5", MESH_CONFLICT)
    lines = _batch_lines(args.batch)
    start = time.perf_counter()
    subprocess.run(flaglint + ["--batch", "-"], input=lines, capture_output=True, check=False, cwd=REPO, env=ENV)
    batch_seconds = time.perf_counter() - start
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {args.runs} runs (wall / cpu)")
    print(f"python -c pass                          {bare[0] * 1000:7.1f} / {bare[1] * 1000:6.1f} ms")
    print(f"flaglint check, 128-chip tuned (clean)   {clean[0] * 1000:7.1f} / {clean[1] * 1000:6.1f} ms   (target <= 150 ms)")
    print(f"flaglint check, 256-chip conflict + fix  {fixing[0] * 1000:7.1f} / {fixing[1] * 1000:6.1f} ms   (target <= 150 ms)")
    print(f"the same, with [tool.flaglint] settings  {configured[0] * 1000:7.1f} / {configured[1] * 1000:6.1f} ms   (target <= 150 ms)")
    print(f"flaglint check, 12-axis mesh conflict + fix {mesh[0] * 1000:4.0f} / {mesh[1] * 1000:6.1f} ms   (target well under 500 ms cpu)")
    print(f"solver time per fix (warm, in process)                 {per_fix * 1000:7.1f} ms")
    print(f"solver work (Z3 rlimit units): 256-chip conflict {conflict_work:,}, 12-axis mesh {mesh_work:,} (limit {limit:,})")
    print(f"--batch: {args.batch} strings in {batch_seconds:.2f} s = {args.batch / batch_seconds:7.0f} strings/s (target >= 500/s, process start included)")


if __name__ == "__main__":
    main()

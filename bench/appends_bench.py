"""Recipes that grow MAXTEXT_EXTRA_FLAGS by conditional appends, each on its own switch, with a
value that is itself an input (`export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} key=${Vi:-d}"`),
linted as a command, cold (a fresh interpreter, with the bytecode an installed package has).

Prints, for N = 8, 64, 256 and 1,024 appends in three shapes (flat ifs; ifs nested two deep, four
appends under each outer switch; `case` arms on a mode input; every value an option of the script's
own, read by a `while [[ $# -gt 0 ]]; case "$1"` loop whose `shift 2` fails on a last lone option), the time of `flaglint lint`, wall
and CPU (user and system: what a busy machine does not inflate), the growth over the size
before it (CPU) and the ratio time(256) / time(64); the same for one pair of switches that breaks a MaxText validator
(moe_roe_packed_routing_gather=true needs moe_chunk_pipeline=true); then the switch
benches (bench/paths_bench.py) and the recipe family (tests/fixtures/recipes/family), unless
--appends-only. Targets: 64 appends <= 1 s, 256 <= 3 s, time(256)/time(64) <= 4, a family file <= 1 s.

Then the shape real recipe families write (tests/render/script_shapes.repeated_appends): N switches
appending the same four keys again (steps, log_period, eval_interval, checkpoint_period), one pair
breaking a validator (use_dpo=true, packing=true), and a MaxText command line that splits the flags
unquoted; flat, nested and case, at N = 8, 16, 32, 64, 256 (`--repeated`), with each size's growth;
and a distributed launcher's shape (script_shapes.k8s_launcher: an options loop, captured flags
function output, an `||` guard, a --command string of N optional parts) at N = 10..200 (`--launcher`);
and its other shape (script_shapes.manifest_launcher: N start functions, each with a `local` in one
arm and an XPK workload piped into a function that runs a filter array of two lengths) at
N = 1, 2, 4, 8 (`--manifests`); and a launcher that reads N options in a loop, each `--oI VALUE` or
`--oI=VALUE`, beside a subcommand word and two options that together break a MaxText validator
(script_shapes.options_loop_launcher) at N = 4, 16, 64, 256 (`--options`); and an XPK submit script's
(script_shapes.required_variables_launcher: a helper that checks N variables by name,
`[ -z "${!v:-}" ] && absent+=("$v")`, and reads the array whole, before a workload whose --command
string runs MaxText) at N = 8, 16, 32, 64, 256 (`--required`); and a distributed launcher's rollout loop
(script_shapes.replica_loop_launcher: `for ((i = 0; i < REPLICAS; i++))` over a replica count that
defaults to N, each pass naming a replica by its counter and calling functions that build its flags
and launch it) at N = 4, 16, 64, 256, 1024 (`--replicas`); and a trainer command whose own words are
built behind N tests (script_shapes.built_command), as an array (`CMD+=(--oI="$OI")`, `"${CMD[@]}"`)
and as a string (`CMD="$CMD --oI=$OI"`, `$CMD`), at N = 4, 8, 16, 32, 64, 256 (`--built`); and a
distributed launcher's node (script_shapes.distributed_node: that array with a part holding blanks
and an empty one, handed to a function that prints it and shifts, run by `exec "${CMD[@]}"` in a
`( … ) &` subshell, once for each of 3 ports in a loop) at N = 4, 8, 16, 32, 64, 256 (`--node`); and a launcher
whose N subcommands each run a step of their own and then reach the same two launch sites (the trainer
with captured flags of optional parts, the rollout's --worker_startup_command string of them;
script_shapes.launch_sites) at N = 4, 16, 64, 256 (`--sites`): each site's command lines are judged
once, however many subcommands reach them; and a distributed launcher's switches
(script_shapes.option_switches_launcher: N switches defaulted from the environment that an options
loop's arms set, read by a function called for each of 3 instances) at N = 2, 4, 8, 16, 32, 64
(`--switches`); and a submit script (script_shapes.subcommand_launcher: a subcommand word read before
an options loop of N options, each value checked and all handed to the script's own launching run
through its environment) at N = 4, 8, 16, 32 (`--subcommand`).

Then N sequential ifs on N inputs setting one variable (`if [ "$Ai" != x ]; then F=bad_key_i=1; fi`)
and a MaxText launch reading it: N findings (a key MaxText does not define, at each if), each
witness naming the inputs after its if, so the output grows as N**2; printed with the growth
ratio time(N)/time(N/2) (CPU) of each size.

    python bench/appends_bench.py [--sizes 8 64 256 1024] [--pin bbd0f6f10] [--appends-only]
                                  [--repeated 8 16 32 64 256] [--launcher 10 50 100 200] [--manifests 1 2 4 8]
                                  [--options 4 16 64 256]
                                  [--required 8 16 32 64 256] [--replicas 4 16 64 256 1024]
                                  [--built 4 8 16 32 64 256] [--node 4 8 16 32 64 256]
                                  [--sites 4 16 64 256]
                                  [--switches 2 4 8 16 32 64]
                                  [--sequential 20 40 80 160] [--runs 3]

`--runs K` lints each repeated-keys recipe K times, each in a fresh process, and prints the least
time (the machine's other work only ever adds to it); the K outputs must be byte-identical.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "render")]

from script_shapes import (  # noqa: E402
    BUILT_FORMS,
    REPEATED_SHAPES,
    built_command,
    distributed_node,
    k8s_launcher,
    launch_sites,
    manifest_launcher,
    option_switches_launcher,
    options_loop_launcher,
    repeated_appends,
    replica_loop_launcher,
    required_variables_launcher,
    subcommand_launcher,
)

SHAPES = ("flat", "nested", "case", "options")
FLAGS = "MAXTEXT_EXTRA_FLAGS"
# Under each outer switch of the nested shape.
NESTED_GROUP = 4
# Keys that MaxText refuses set to their default, whatever the pin (a value the validator checks).
_VALIDATOR_PAIR = ("moe_roe_packed_routing_gather=true", "moe_chunk_pipeline=false")


def append_keys(pin: str, count: int) -> list[tuple[str, str]]:
    """`count` (key, value) pairs of the pin: int and bool keys at their defaults, in name order,
    those that rules read among them; cycled when the pin has fewer."""
    from flaglint.maxtext.values import format_value
    from flaglint.pins.pins import load_pin

    keys = load_pin(pin).keys
    found = [(name, format_value(key.default)) for name, key in sorted(keys.items())
             if key.kind in ("int", "bool") and key.default is not None and not key.nullable
             and name not in ("moe_roe_packed_routing_gather", "moe_chunk_pipeline")]
    return [found[i % len(found)] for i in range(count)]


def _append(text: str) -> str:
    return f'export {FLAGS}="${{{FLAGS}}} {text}"'


def appends_script(pairs: list[tuple[str, str]], shape: str, validator_pair: bool = True) -> str:
    """A recipe of one conditional append per pair, in `shape`, then (with `validator_pair`) the two
    switches TUNED and BIG whose appends together break a MaxText validator, then the launch."""
    lines = ["#!/bin/bash", f'export {FLAGS}="${{{FLAGS}:-}} steps=10"']
    for i, (key, default) in enumerate(pairs):
        token = f"{key}=${{V{i}:-{default}}}"
        if shape == "flat":
            lines += [f'if [[ "${{SW{i}:-false}}" == "true" ]]; then', f"  {_append(token)}", "fi"]
        elif shape == "nested":
            if i % NESTED_GROUP == 0:
                lines.append(f'if [[ "${{GROUP{i // NESTED_GROUP}:-false}}" == "true" ]]; then')
            lines += [f'  if [[ "${{SW{i}:-false}}" == "true" ]]; then', f"    {_append(token)}", "  fi"]
            if i % NESTED_GROUP == NESTED_GROUP - 1 or i == len(pairs) - 1:
                lines.append("fi")
        elif shape == "case":
            lines += [f'case "${{MODE{i}:-off}}" in', f"  on) {_append(token)} ;;",
                      f"  low) {_append(f'{key}={default}')} ;;", "  *) ;;", "esac"]
        elif shape != "options":
            raise ValueError(shape)
    if shape == "options":  # each value an option of the script's own: `--vI VALUE`, in a loop over "$@"
        arms = [f'    --v{i}) V{i}="$2"; shift 2 ;;' for i in range(len(pairs))]
        lines[1:1] = ['while [[ $# -gt 0 ]]; do', '  case "$1" in', *arms, '    *) echo "unknown option $1"; exit 1 ;;',
                      '  esac', 'done']
        lines += [_append(f"{key}=${{V{i}:-{default}}}") for i, (key, default) in enumerate(pairs)]
    if validator_pair:
        tuned, big = _VALIDATOR_PAIR
        lines += [f'if [[ "${{TUNED:-false}}" == "true" ]]; then {_append(tuned)}; fi',
                  f'if [[ "${{BIG:-false}}" == "true" ]]; then {_append(big)}; fi']
    lines.append("python3 -m tunix.launcher")
    return "\n".join(lines) + "\n"


def sequential_script(count: int) -> str:
    """`count` ifs, each on its own input, setting one variable to a key MaxText does not define;
    then a MaxText launch that reads it."""
    lines = ["#!/bin/bash"]
    lines += [f'if [ "$A{i}" != x ]; then F=bad_key_{i}=1; fi' for i in range(count)]
    lines.append("python3 -m MaxText.train MaxText/configs/base.yml $F")
    return "\n".join(lines) + "\n"


# A fresh process each run, with the bytecode an installed package has (compiled once, kept here).
PYCACHE = Path(tempfile.gettempdir()) / "flaglint-bench-pycache"


def lint_command(*args: str) -> tuple[subprocess.CompletedProcess, float, float]:
    """The command's result, its wall time and its CPU time (user and system: what a busy machine
    does not inflate)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(PYCACHE)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "flaglint", "lint", "--format", "json", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return proc, wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def best_of(runs: int, *args: str) -> tuple[subprocess.CompletedProcess, float, float]:
    """lint_command run `runs` times, each a fresh process: the first result, and the least wall
    and CPU time (what the lint costs; the rest is the machine's other work). Every run's output
    must be the first's."""
    proc, wall, cpu = lint_command(*args)
    for _ in range(runs - 1):
        again, seconds, used = lint_command(*args)
        if again.stdout != proc.stdout:
            raise SystemExit(f"lint {' '.join(args)}: two runs gave different output")
        wall, cpu = min(wall, seconds), min(cpu, used)
    return proc, wall, cpu


def summary(proc: subprocess.CompletedProcess) -> str:
    if "Traceback" in proc.stderr or proc.returncode not in (0, 1):
        return f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:] or proc.stdout[-200:]}"
    try:
        findings = json.loads(proc.stdout)["findings"]
    except (ValueError, KeyError):
        return f"exit {proc.returncode}, output not JSON"
    rules = sorted({f["rule"] for f in findings})
    return f"exit {proc.returncode}, {len(findings)} findings {rules}"


def print_sizes(label: str, sizes: list[int], script_of, directory: Path, pin: str, runs: int = 1) -> None:
    """The lint time of the script `script_of(n)` at each size (the least of `runs` runs), with its
    growth over the size before (CPU) and time(256)/time(64)."""
    times: dict[int, tuple[float, float]] = {}
    for n in sizes:
        script = directory / f"{label.replace(' ', '_')}_{n}.sh"
        script.write_text(script_of(n))
        proc, seconds, cpu = best_of(runs, "--pin", pin, str(script))
        growth = f", growth x{cpu / times[max(times)][1]:.2f} over {max(times)} (CPU)" if times else ""
        times[n] = (seconds, cpu)
        print(f"{label} {n:5}: {seconds:.3f} s ({cpu:.3f} s CPU){growth}, {summary(proc)}")
    if 64 in times and 256 in times:
        print(f"{label} growth time(256)/time(64) = {times[256][0] / times[64][0]:.2f}"
              f" (CPU {times[256][1] / times[64][1]:.2f})  targets: 64 <= 1 s, 256 <= 3 s, ratio <= 4")


# The distributed-RL launcher's shapes, printed here and by recipes_bench.py: each option's shape at
# a size, its label, its default sizes and what a size counts.
LAUNCHER_SHAPES = {
    "launcher": (k8s_launcher, "launcher optional parts", [10, 50, 100, 200],
                 "optional parts of the distributed launcher's --command string"),
    "options": (options_loop_launcher, "options loop options", [4, 16, 64, 256], "options the launcher reads in a loop"),
    "sites": (launch_sites, "launch sites subcommands", [4, 16, 64, 256],
              "subcommands of the launcher whose every arm reaches the same launch sites"),
    "subcommand": (subcommand_launcher, "subcommand options", [4, 8, 16, 32],
                   "options of a submit script read after its subcommand word, checked and handed to its launching run"),
}


def add_shape_arguments(parser: argparse.ArgumentParser) -> None:
    for name, (_, _, sizes, counted) in LAUNCHER_SHAPES.items():
        parser.add_argument(f"--{name}", type=int, nargs="*", default=sizes, help=f"{counted} (none: skip it)")


def print_shapes(args: argparse.Namespace, directory: Path, runs: int = 1) -> None:
    """print_sizes of each launcher shape at the sizes its option gives (args.pin's)."""
    for name, (shape, label, _, _) in LAUNCHER_SHAPES.items():
        if getattr(args, name):
            print_sizes(label, getattr(args, name), shape, directory, args.pin, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 64, 256, 1024])
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=SHAPES)
    parser.add_argument("--pin", default="bbd0f6f10")
    parser.add_argument("--appends-only", action="store_true", help="skip the switch benches and the family")
    parser.add_argument("--repeated", type=int, nargs="*", default=[8, 16, 32, 64, 256],
                        help="sizes of the repeated-keys recipes (none: skip them)")
    add_shape_arguments(parser)
    parser.add_argument("--manifests", type=int, nargs="*", default=[1, 2, 4, 8],
                        help="start functions of the manifest launcher (none: skip it)")
    parser.add_argument("--required", type=int, nargs="*", default=[8, 16, 32, 64, 256],
                        help="variables the XPK submit script checks by name (none: skip it)")
    parser.add_argument("--replicas", type=int, nargs="*", default=[4, 16, 64, 256, 1024],
                        help="default replica counts of the rollout loop launcher (none: skip it)")
    parser.add_argument("--built", type=int, nargs="*", default=[4, 8, 16, 32, 64, 256],
                        help="optional parts of the command built behind tests, array and string (none: skip it)")
    parser.add_argument("--node", type=int, nargs="*", default=[4, 8, 16, 32, 64, 256],
                        help="optional parts of the distributed launcher's node, in a loop over 3 ports (none: skip it)")
    parser.add_argument("--switches", type=int, nargs="*", default=[2, 4, 8, 16, 32, 64],
                        help="switches an options loop sets, read per instance (none: skip it)")
    parser.add_argument("--sequential", type=int, nargs="*", default=[20, 40, 80, 160],
                        help="sizes of the sequential-ifs recipe (none: skip it)")
    parser.add_argument("--runs", type=int, default=1,
                        help="runs of each repeated-keys recipe, each a fresh process: the least time is printed")
    args = parser.parse_args()
    pairs = append_keys(args.pin, max(args.sizes))
    with tempfile.TemporaryDirectory() as d:
        warm = Path(d) / "warm.sh"
        warm.write_text(appends_script(pairs[:1], "flat"))
        lint_command("--pin", args.pin, str(warm))  # writes the bytecode once
        pair = Path(d) / "validator_pair.sh"
        pair.write_text(appends_script([], "flat"))
        proc, seconds, cpu = lint_command("--pin", args.pin, str(pair))
        print(f"one pair of switches breaking a MaxText validator: {seconds:.3f} s ({cpu:.3f} s CPU), {summary(proc)}")
        for shape in args.shapes:
            times = {}
            for n in args.sizes:
                script = Path(d) / f"appends_{shape}_{n}.sh"
                script.write_text(appends_script(pairs[:n], shape))
                proc, seconds, cpu = lint_command("--pin", args.pin, str(script))
                previous = times[max(times)] if times else None
                growth = f", growth x{cpu / previous[1]:.2f} over {max(times)} (CPU)" if previous else ""
                times[n] = (seconds, cpu)
                size = script.stat().st_size
                print(f"{shape:6} {n:5} appends ({size / 1024:.0f} KB): {seconds:.3f} s ({cpu:.3f} s CPU){growth}, {summary(proc)}")
            if 64 in times and 256 in times:
                print(f"{shape:6} growth time(256)/time(64) = {times[256][0] / times[64][0]:.2f}"
                      f" (CPU {times[256][1] / times[64][1]:.2f})  targets: 64 <= 1 s, 256 <= 3 s, ratio <= 4")
        for shape in REPEATED_SHAPES if args.repeated else ():
            print_sizes(f"repeated {shape}", args.repeated, lambda n, shape=shape: repeated_appends(n, shape), Path(d), args.pin,
                         args.runs)
        print_shapes(args, Path(d))
        if args.manifests:
            print_sizes("manifest launcher workloads", args.manifests, manifest_launcher, Path(d), args.pin)
        if args.required:
            print_sizes("required variables", args.required, required_variables_launcher, Path(d), args.pin)
        if args.replicas:
            print_sizes("replica loop replicas", args.replicas, replica_loop_launcher, Path(d), args.pin)
        for form in BUILT_FORMS if args.built else ():
            print_sizes(f"built {form} parts", args.built, lambda n, form=form: built_command(n, form), Path(d), args.pin)
        if args.node:
            print_sizes("distributed node parts", args.node, lambda n: distributed_node(n, ports=3), Path(d), args.pin)
        if args.switches:
            print_sizes("option switches", args.switches, option_switches_launcher, Path(d), args.pin)
        previous = None
        for n in args.sequential:
            script = Path(d) / f"sequential_{n}.sh"
            script.write_text(sequential_script(n))
            proc, seconds, cpu = lint_command("--pin", args.pin, str(script))
            growth = f", growth {cpu / previous[1]:.2f} over {previous[0]} ifs (CPU)" if previous else ""
            print(f"sequential {n:4} ifs: {seconds:.3f} s ({cpu:.3f} s CPU){growth}, {summary(proc)}")
            previous = (n, cpu)
    if args.appends_only:
        return
    subprocess.run([sys.executable, str(ROOT / "bench" / "paths_bench.py")], check=True)


if __name__ == "__main__":
    main()

"""A fuzz campaign over every input kind flaglint reads: RUNS seeds of each kind (tests/hostile_inputs.py
makes the input of a seed; the same seeds give the same inputs on every machine), each run in this
process through the command line, each kind in a worker process of its own.

Prints, per kind: the runs, their exit codes, the internal errors (exit 2 with "internal error", a
traceback, an exit code other than 0/1/2, or exit 2 in more than one line), the runs that did not end
within HANG seconds (a hang detector, not a limit on flaglint's work), the runs that failed open
(exit 0 on an input that holds what MaxText or Tunix refuses) and the worker's peak resident memory.
Each is printed with its seed, so `--kind KIND --seed N` runs it again.

The kind "server conversations" talks to `flaglint server` (tests/server_conversations.py): a run is
one conversation, its internal errors a document the server could not check or a request answered
with an internal error, its hangs the documents not diagnosed at their latest text, its fail-open
the flag documents holding an undefined key that got no diagnostic for it.

    python bench/fuzz_campaign.py [--runs 300] [--first-seed 0] [--kind "scripts"] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HANG = 120


SERVER = "server conversations"


class Hung(Exception):
    pass


def _worker(kind: str, seeds: list[int]) -> None:
    sys.path[:0] = [str(REPO / "tests"), str(REPO)]
    from commandline import run_flaglint
    from hostile_inputs import MAKERS

    from flaglint.pins import pins, store

    def hung(*_):
        raise Hung

    signal.signal(signal.SIGALRM, hung)
    exits: Counter = Counter()
    bad, hangs, fail_open = [], [], []
    if kind == SERVER:
        _server_worker(seeds, exits, bad, hangs, fail_open)
        seeds = []
    for seed in seeds:
        for cached in (pins.load_pin, store.project_store):
            cached.cache_clear()
        with tempfile.TemporaryDirectory() as folder:
            case = MAKERS[kind](random.Random(seed), Path(folder))
            signal.alarm(HANG)
            try:
                ran = run_flaglint(*case.args, stdin=case.stdin, env=case.env, cwd=Path(folder))
            except Hung:
                hangs.append(seed)
                continue
            except Exception as err:  # noqa: BLE001 - an escape from the command is what the campaign looks for
                bad.append({"seed": seed, "args": case.args[:6], "stderr": f"{type(err).__name__}: {err}"[:300]})
                continue
            finally:
                signal.alarm(0)
        exits[ran.returncode] += 1
        if case.must_fail and ran.returncode == 0:
            fail_open.append(seed)
        lines = ran.stderr.strip().splitlines()
        if (ran.returncode not in (0, 1, 2) or "internal error" in ran.stderr or "Traceback" in ran.stderr
                or (ran.returncode == 2 and len(lines) != 1)):
            bad.append({"seed": seed, "args": [a[:80] for a in case.args[:6]], "stderr": ran.stderr[-300:]})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"runs": sum(exits.values()), "exits": dict(exits), "bad": bad, "hangs": hangs, "fail_open": fail_open,
                      "peak_mib": round(peak)}))


def _server_worker(seeds: list[int], exits: Counter, bad: list, hangs: list, fail_open: list) -> None:
    from server_conversations import conversation

    for seed in seeds:
        with tempfile.TemporaryDirectory() as folder:
            outcome = conversation(random.Random(seed), Path(folder))
        exits[0 if not (outcome.internal or outcome.hung or outcome.fail_open) else 1] += 1
        if outcome.internal:
            bad.append({"seed": seed, "args": ["server"], "stderr": "; ".join(outcome.internal)[:300]})
        if outcome.hung:
            hangs.append(seed)
        if outcome.fail_open:
            fail_open.append(seed)


def main() -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from hostile_inputs import MAKERS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="seeds of each kind")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--kind", choices=sorted([*MAKERS, SERVER]), action="append", help="only this kind (repeatable)")
    parser.add_argument("--seed", type=int, help="only this seed")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    seeds = [args.seed] if args.seed is not None else list(range(args.first_seed, args.first_seed + args.runs))
    if args.worker:
        _worker(args.worker, seeds)
        return
    totals = Counter()
    print(f"{'kind':26} {'runs':>5} {'exit 0/1/2':>14} {'internal':>8} {'hangs':>5} {'fail-open':>9} {'peak MiB':>8}")
    for kind in args.kind or [*MAKERS, SERVER]:
        command = [sys.executable, __file__, f"--worker={kind}", "--first-seed", str(args.first_seed), "--runs", str(args.runs)]
        if args.seed is not None:
            command += ["--seed", str(args.seed)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{kind:26} worker failed ({done.returncode}): {done.stderr[-500:]}")
            totals["internal"] += 1
            continue
        report = json.loads(done.stdout.strip().splitlines()[-1])
        exits = report["exits"]
        print(f"{kind:26} {report['runs']:5} {exits.get('0', 0):4}/{exits.get('1', 0):4}/{exits.get('2', 0):4} "
              f"{len(report['bad']):8} {len(report['hangs']):5} {len(report['fail_open']):9} {report['peak_mib']:8}")
        for bad in report["bad"]:
            print(f"    internal error: --kind {kind!r} --seed {bad['seed']}: {bad['args']} {bad['stderr']!r}")
        for seed in report["hangs"]:
            print(f"    no end within {HANG} s: --kind {kind!r} --seed {seed}")
        for seed in report["fail_open"]:
            print(f"    failed open: --kind {kind!r} --seed {seed}")
        totals.update(runs=report["runs"], internal=len(report["bad"]), hangs=len(report["hangs"]), fail_open=len(report["fail_open"]))
    print(f"{'all':26} {totals['runs']:5} {'':14} {totals['internal']:8} {totals['hangs']:5} {totals['fail_open']:9}")
    sys.exit(1 if totals["internal"] or totals["hangs"] or totals["fail_open"] else 0)


if __name__ == "__main__":
    main()

"""MaxText's own recipe scripts and config files, checked by flaglint and by MaxText 0.2.5's own
pyconfig: how many command lines lint finds, what it reports, and where the two verdicts agree.

    python bench/recipes_bench.py TREE [--timeout 60]

TREE is an unpacked MaxText wheel or source tree (its *.sh scripts are read, never run). Each
MaxText command line of every branch is checked as `lint` checks it (commands.check_command), and
the same config file, argv words and M_ variables go to MaxText's pyconfig in the oracle
environment (tests/maxtext_env.py). Scripts are evaluated one at a time with a time limit.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from maxtext_env import oracle_python, unavailable  # noqa: E402

from flaglint.frontends.check.confirm import PyconfigInput, verdicts  # noqa: E402
from flaglint.frontends.checker import Checker  # noqa: E402
from flaglint.frontends.commands import (  # noqa: E402
    check_command,
    command_lines,
    config_path,
    not_checked,
)
from flaglint.frontends.lint.script_commands import concrete_commands  # noqa: E402
from flaglint.schema.config_index import load_index  # noqa: E402


def _lines(script: str) -> list[tuple[str, int, str, tuple[str, ...], tuple]]:
    """(script, line, config, argv words, M_ env) of each MaxText command line of each outcome: of
    each concrete command line where its words are symbolic (launch_parts.concrete_argvs)."""
    from flaglint.render import evaluate
    from flaglint.render.bash.types import ScriptError

    index = load_index("0.2.5")
    rule_names = [rule.name_set for rule in Checker("maxtext-0.2.5").ruleset.rules]
    found = []
    try:
        evaluated = evaluate(Path(script))
    except ScriptError:  # lint reports it (FL010); no command line to compare
        return []
    for launch, _ in concrete_commands(evaluated, rule_names):
        for line in command_lines(launch, index):
            if not_checked(line.command):
                continue
            config, _ = config_path(line.command, [Path(script).parent], index)
            words = tuple(line.words[i].text for i in line.command.args)
            found.append((script, line.line, config, words, tuple(sorted(line.env.items()))))
    return found


def _evaluate(script: str, timeout: float):
    with multiprocessing.Pool(1) as pool:
        try:
            return pool.apply_async(_lines, (script,)).get(timeout)
        except multiprocessing.TimeoutError:
            return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    scripts = sorted(str(p) for p in Path(args.tree).rglob("*.sh"))
    started = time.perf_counter()
    lines, slow, seconds = {}, [], {}
    for script in scripts:
        begun = time.perf_counter()
        found = _evaluate(script, args.timeout)
        seconds[script] = time.perf_counter() - begun
        if found is None:
            slow.append(script)
            continue
        for item in found:
            lines.setdefault(item[2:], item[:2])
    print(f"{len(scripts)} scripts, {len(lines)} distinct MaxText command lines, {len(slow)} not evaluated in "
          f"{args.timeout:.0f} s: {', '.join(Path(s).name for s in slow) or '-'} ({time.perf_counter() - started:.1f} s)")
    slowest = sorted(seconds, key=seconds.get, reverse=True)[:5]
    print("slowest (evaluation and command lines, in a fresh process):",
          ", ".join(f"{Path(s).relative_to(args.tree)} {seconds[s]:.2f} s" for s in slowest))
    checker, index = Checker("maxtext-0.2.5"), load_index("0.2.5")
    ours = {key: [f.rule for f in check_command(checker, list(key[1]), key[0], dict(key[2]), index=index) if f.severity == "error"]
            for key in lines}
    print("flaglint errors:", dict(Counter(rule for rules in ours.values() for rule in rules)))
    python = oracle_python()
    if python is None:
        print(f"MaxText not run: {unavailable('oracle')}")
        return
    keys = list(lines)
    answers = verdicts(python, [PyconfigInput(key[1], key[0], dict(key[2])) for key in keys])
    agree = sum(bool(ours[key]) != answer.ok for key, answer in zip(keys, answers))
    print(f"agreement with MaxText 0.2.5: {agree}/{len(keys)}")
    for key, answer in zip(keys, answers):
        script, line = lines[key]
        verdict = "accepts" if answer.ok else f"{answer.error}: {(answer.message or '')[:100]}"
        mark = "" if bool(ours[key]) != answer.ok else "  DISAGREE"
        if ours[key] or not answer.ok:
            print(f"  {Path(script).relative_to(args.tree)}:{line}: flaglint {ours[key] or 'accepts'}; MaxText {verdict}{mark}")


if __name__ == "__main__":
    main()

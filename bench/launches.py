"""The MaxText and Tunix launches flaglint reports for a recipe script: each path's command line as
lint makes it concrete (frontends/lint/script_commands.concrete_commands), with its config file
(as lint finds it: written by the script, beside it, or MaxText's own), its environment, and
flaglint's own verdict on that argv (the errors lint would place on it). The script is evaluated
symbolically, never run; in a child process with a time limit, as a hang must be counted, not wait.

Each launch is a plain dict (JSON), so that the oracle's side and the stored sample can read it.
"""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

from flaglint.frontends.checker import Checker, check_command
from flaglint.frontends.commands import (
    command_lines,
    config_path,
    launched_segments,
    not_checked,
    unknown_command_string,
)
from flaglint.frontends.lint.script_commands import concrete_commands
from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.render.bash.explorer import OTHER
from flaglint.render.bash.types import ScriptError, TooDeep
from flaglint.render.recipes import evaluate
from flaglint.schema.config_index import load_index
from flaglint.tunix.launch import TunixLaunches, recognise_tunix
from flaglint.tunix.maxtext_model import maxtext_model_keys
from flaglint.tunix.pins import load_tunix_pin

UNVERIFIED_RULES = ("FL011", "FL016")
_TUNIX_READS = TunixLaunches()


def _errors(findings) -> list[dict]:
    """The findings that stop a launch (errors), and those that say it is not verified, as lint
    keeps them on a command line (one whose message holds an input's "anything else" is dropped)."""
    return [{"rule": f.rule, "keys": list(f.keys), "message": f.message, "stage": f.stage}
            for f in findings if OTHER not in f.message and (f.severity == "error" or f.rule in UNVERIFIED_RULES)]


def _maxtext(line, script: Path, checker: Checker, index) -> dict:
    words = [line.words[i].text for i in line.command.args]
    config, note = config_path(line.command, [script.parent, Path.cwd()], index, line.written)
    unknown = frozenset(w.split("=", 1)[0] for w in words if OTHER in w)
    judge = line.checker(checker)
    findings = check_command(judge, words, config, line.env, unknown, index, line.written)
    return {"kind": "maxtext", "file": line.file, "line": line.line, "argv": words, "config": config,
            "config_text": line.written[config].text if config in line.written else None, "config_note": note,
            "env": dict(sorted(line.env.items())), "unknown": sorted(unknown),
            "devices": None if judge.devices is None else str(judge.devices), "flaglint": _errors(findings)}


def _tunix(launch, words, command, pin, checker: Checker, script: Path) -> dict:
    args = [w.text for w in words[command.start:]]
    env = {name: value.text for name, value in launch.env.items() if _TUNIX_READS.reads_variable(name)}
    env.update(w.text.split("=", 1) for w in words[:command.start]
               if "=" in w.text and _TUNIX_READS.reads_variable(w.text.split("=", 1)[0]))
    unknown = frozenset(i for i, text in enumerate(args) if OTHER in text)
    done = check_tunix_words(pin, command, args, env, (Path.cwd(), script.parent), unknown, False, None, lambda: checker)
    return {"kind": "tunix", "file": launch.file, "line": launch.line, "entry": command.entry, "argv": args,
            "env": dict(sorted(env.items())), "unknown": sorted(args[i].split("=", 1)[0] for i in unknown),
            "flaglint": _errors(done.findings)}


def launches(script: str, pin: str, tunix_pin: str | None) -> dict:
    """{"launches": [...], "unverified": [{file, line, reason}], "error": str | None} for SCRIPT
    (a path from the working directory, the tree's root)."""
    path = Path(script)
    checker = Checker(pin)
    index = load_index(checker.pin.configs)
    tunix = load_tunix_pin(tunix_pin)
    names = [rule.name_set for rule in checker.ruleset.rules]
    names += [rule.name_set for rule in tunix.rules] + [maxtext_model_keys(tunix.maxtext_model, tunix.merge.get("inherit_from"))]
    try:
        exploration = evaluate(path)
    except (ScriptError, TooDeep) as err:
        return {"launches": [], "unverified": [], "error": str(err)}
    found: dict[str, dict] = {}
    unverified: list[dict] = []

    def not_verified(launch, reason: str) -> None:
        unverified.append({"file": launch.file, "line": launch.line, "reason": reason})

    for launch, _ in concrete_commands(exploration, names, None, not_verified):
        unknown = unknown_command_string(launch)
        if unknown is not None:
            not_verified(launch, unknown)
            continue
        for line in command_lines(launch, index):
            reason = not_checked(line.command)
            if reason is not None:
                not_verified(line, reason)
                continue
            record = _maxtext(line, path, checker, index)
            found.setdefault(repr(sorted(record.items(), key=str)), record)
        for words, _ in launched_segments(launch):
            command = recognise_tunix([w.text for w in words])
            if command is not None:
                record = _tunix(launch, words, command, tunix, checker, path)
                found.setdefault(repr(sorted(record.items(), key=str)), record)
    once = {(u["file"], u["line"], u["reason"]): u for u in unverified}
    return {"launches": list(found.values()), "unverified": list(once.values()), "error": None}


def launches_within(root: Path, script: Path, pin: str, tunix_pin: str | None, timeout: float) -> dict | None:
    """`launches` of SCRIPT in a child process started in ROOT; None when it does not end within TIMEOUT."""
    with multiprocessing.get_context("fork").Pool(1, initializer=os.chdir, initargs=(str(root),)) as pool:
        try:
            return pool.apply_async(launches, (str(script.relative_to(root)), pin, tunix_pin)).get(timeout)
        except multiprocessing.TimeoutError:
            return None
        except Exception as err:  # noqa: BLE001 - flaglint's own failure on this script: counted, the sweep goes on
            return {"launches": [], "unverified": [], "error": f"internal: {type(err).__name__}: {err}"}

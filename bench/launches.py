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
import tempfile
from pathlib import Path

from flaglint.frontends.checker import Checker, check_command
from flaglint.frontends.commands import (
    command_lines,
    config_path,
    launched_segments,
    not_checked,
    unknown_command_string,
)
from flaglint.frontends.lint.script_commands import CommandJudge, concrete_commands
from flaglint.frontends.lint.witnesses import script_location
from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.pins.pins import ROOT_CLASS
from flaglint.render.bash.explorer import OTHER
from flaglint.render.bash.types import ScriptError, TooDeep
from flaglint.render.recipes import evaluate
from flaglint.render.yaml_chain import Written
from flaglint.resolve.topology import DeviceCount
from flaglint.schema.config_index import load_index
from flaglint.tunix.launch import TunixCommand, TunixLaunches, recognise_tunix
from flaglint.tunix.maxtext_model import maxtext_model_keys
from flaglint.tunix.pins import load_tunix_pin

UNVERIFIED_RULES = ("FL011", "FL016")
OVERRIDE = "override_config_file="
PROGRAM = "/usr/lib/python3/site-packages/tunix/cli/{entry}.py"  # argv[0] as Tunix sees it under `python -m tunix.cli.<entry>`
_TUNIX_READS = TunixLaunches()


def _errors(findings) -> list[dict]:
    """The findings that stop a launch (errors), and those that say it is not verified, as lint
    keeps them on a command line (one whose message holds an input's "anything else" is dropped)."""
    return [{"rule": f.rule, "keys": list(f.keys), "message": f.message, "stage": f.stage}
            for f in findings if OTHER not in f.message and (f.severity == "error" or f.rule in UNVERIFIED_RULES)]


def maxtext_errors(checker: Checker, words: list[str], config: str, env: dict, index, written) -> list[dict]:
    """flaglint's verdict on a MaxText argv after its config file, as lint judges a command line."""
    unknown = frozenset(w.split("=", 1)[0] for w in words if OTHER in w)
    return _errors(check_command(checker, words, config, env, unknown, index, written))


def tunix_errors(pin, entry: str, args: list[str], env: dict, search: tuple[Path, ...], checker: Checker) -> list[dict]:
    """flaglint's verdict on a Tunix command line (the words after `-m tunix.cli.ENTRY`)."""
    unknown = frozenset(i for i, text in enumerate(args) if OTHER in text)
    command = TunixCommand(entry, PROGRAM.format(entry=entry), 0)
    return _errors(check_tunix_words(pin, command, args, env, search, unknown, False, None, lambda: checker).findings)


def stored_errors(launch: dict, pin: str, tunix_pin: str | None) -> list[dict]:
    """flaglint's verdict on a launch stored as plain data (a sample of the sweep): its argv, its
    config (MaxText's own, or the text the script wrote), its environment and device count."""
    count = launch.get("devices")
    checker = Checker(pin, devices=DeviceCount(**count) if count else None)
    if launch.get("config_class"):  # train_rl's RLConfig
        checker = checker.for_config_class(launch["config_class"])
    if launch["kind"] == "tunix":
        with tempfile.TemporaryDirectory(prefix="stored-launch-") as tmp:
            for path, text in launch.get("files", {}).items():
                (Path(tmp) / path).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / path).write_text(text)
            return tunix_errors(load_tunix_pin(tunix_pin), launch["entry"], launch["argv"], launch["env"], (Path(tmp),), checker)
    text = launch["config_text"]
    written = {launch["config"]: Written(launch["config"], text, (None,) * len(text))} if text is not None else {}
    return maxtext_errors(checker, launch["argv"], launch["config"], launch["env"], load_index(checker.pin.configs), written)


def _written_at(words) -> list[list]:
    """The [file, line] where the script wrote the first character of each word (a command held in
    a variable is written where the variable is set, not at the launch)."""
    places = {(where.file, where.line) for word in words if word.text and (where := script_location(word, 0, len(word.text)))}
    return sorted([file, line] for file, line in places)


def _maxtext(line, script: Path, checker: Checker, index) -> dict:
    words = [line.words[i].text for i in line.command.args]
    config, note = config_path(line.command, [script.parent, Path.cwd()], index, line.written)
    judge = line.checker(checker)
    count = judge.devices
    entry = line.command.entry
    return {"kind": "maxtext", "file": line.file, "line": line.line, "argv": words, "config": config,
            "config_class": entry.config_class if entry is not None and entry.config_class != ROOT_CLASS else None,
            "config_text": line.written[config].text if config in line.written else None, "config_note": note,
            "env": dict(sorted(line.env.items())), "unknown": sorted(w.split("=", 1)[0] for w in words if OTHER in w),
            "devices": None if count is None else {"devices": count.devices, "slices": count.slices, "source": count.source},
            "flaglint": maxtext_errors(judge, words, config, line.env, index, line.written), "written_at": _written_at(line.words)}


def _tunix(launch, words, command, pin, checker: Checker, script: Path) -> dict:
    args = [w.text for w in words[command.start:]]
    env = {name: value.text for name, value in launch.env.items() if _TUNIX_READS.reads_variable(name)}
    env.update(w.text.split("=", 1) for w in words[:command.start]
               if "=" in w.text and _TUNIX_READS.reads_variable(w.text.split("=", 1)[0]))
    return {"kind": "tunix", "file": launch.file, "line": launch.line, "entry": command.entry, "argv": args,
            "config": args[0] if args else None, "env": dict(sorted(env.items())), "files": _overrides(args, script),
            "unknown": sorted(text.split("=", 1)[0] for text in args if OTHER in text),
            "flaglint": tunix_errors(pin, command.entry, args, env, (Path.cwd(), script.parent), checker),
            "written_at": _written_at(words)}


def _overrides(args: list[str], script: Path) -> dict[str, str]:
    """The text of each override file the command line names (`override_config_file=PATH`), by
    PATH, where it is found (the working directory, then beside the script)."""
    found = {}
    for word in args:
        if word.startswith(OVERRIDE):
            path = word[len(OVERRIDE):]
            on_disk = next((p for p in (Path(path), script.parent / path) if p.is_file()), None)
            if on_disk is not None:
                found[path] = on_disk.read_text(errors="replace")
    return found


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

    # the solver's judge, as lint's: words too many inputs decide give the launches lint checks
    def judge_for(launch):
        return CommandJudge(launch, path, checker, index)

    for launch, _ in concrete_commands(exploration, names, judge_for, not_verified):
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

"""Tunix command lines (`python -m tunix.cli.<entry> BASE.yaml key=value …`) checked at the Tunix
pin, for `check` (an argv), `lint` (a launch in a script) and `gate` (a container's command): the
entry point, absl's flags, then HyperParameters' merge and what Tunix checks of it
(flaglint/tunix/checks.py). Locations in the argv are columns of argv_source(words).text, as for
MaxText's command lines, so the callers place them the same way.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from flaglint.core.findings import Finding, InputError
from flaglint.core.location import Location
from flaglint.core.reading import CONFIG_FILE, Unreadable, read_file
from flaglint.read.flags import read_env_assignments
from flaglint.resolve.topology import DeviceCount
from flaglint.rules.ruleset import built_in
from flaglint.tunix.checks import TunixCheck, check_tunix
from flaglint.tunix.launch import (
    TunixCommand,
    TunixLaunches,
    absl_parse,
    recognise_tunix,
    suggested_override,
)
from flaglint.tunix.merge import STARTUP, TunixArgv, staged
from flaglint.tunix.pins import TunixPin

TUNIX_BASE_SUFFIX = ".yaml"
DOTENV = ".env"  # `flaglint check BASE.yaml k=v …` is a Tunix argv (MaxText's configs end in .yml)


@dataclass
class TunixChecked:
    findings: list[Finding]
    check: TunixCheck | None
    notes: list[str] = field(default_factory=list)


def word_locations(words: list[str]) -> list[Location]:
    """Each word's span in argv_source(words).text (the words shell-quoted, one blank apart)."""
    locations, column = [], 1
    for word in words:
        width = len(shlex.quote(word))
        locations.append(Location(None, 1, column, end_column=column + width))
        column += width + 1
    return locations


def check_tunix_words(pin: TunixPin, command: TunixCommand | None, args: list[str], env: dict[str, str],
                      search: tuple[Path, ...], unknown_words: frozenset[int] = frozenset(),
                      allow_unverified: bool = False, devices: DeviceCount | None = None) -> TunixChecked:
    """The findings on a Tunix argv: `args` are the words after the module (before absl reads
    them); `command` None: a bare argv (BASE.yaml k=v …), its program not known; `devices`: what
    it runs on, when that is known."""
    locations = word_locations(args)
    findings: list[Finding] = []
    notes: list[str] = []
    entry = command.entry if command is not None else None
    if command is None:
        notes.append("the entry point is not given: checked as tunix.cli.grpo_main (give `python -m tunix.cli.peft_main …` "
                     "to check another)")
    elif entry not in pin.entries:
        findings.append(staged(built_in("FL213", (), None, module=f"tunix.cli.{entry}", version=pin.version,
                                        entries=", ".join(sorted(pin.entries))), STARTUP))
        return TunixChecked(findings, None, notes)
    env = _with_dotenv(env, search, notes)
    kept, refused = absl_parse(args, pin.flags.get(entry or "", {}))
    for word in refused:
        findings.append(staged(built_in("FL201", (), locations[word.at], word=args[word.at], flag=word.flag,
                                        override=suggested_override(args[word.at]) or ""), STARTUP))
    if refused:
        return TunixChecked(findings, None, notes)
    argv = TunixArgv(command.program if command is not None else None, tuple(args[i] for i in kept),
                     tuple(locations[i] for i in kept), dict(env), search,
                     frozenset(kept.index(i) for i in unknown_words if i in kept),
                     (devices.devices, devices.source) if devices is not None else None)
    checked = check_tunix(pin, argv, entry, allow_unverified)
    return TunixChecked(findings + checked.findings, checked, notes + checked.merged.notes)


def _with_dotenv(env: dict[str, str], search: tuple[Path, ...], notes: list[str]) -> dict[str, str]:
    """The environment with the `.env` of the working directory loaded under it, as Tunix's
    load_dotenv() finds it from a checkout (a variable already set wins)."""
    dotenv = search[0] / DOTENV if search else None
    if dotenv is None or not os.path.isfile(dotenv):
        return env
    try:
        loaded = read_env_assignments((), str(dotenv))
    except InputError as err:
        notes.append(f"{err}: the .env is not read")
        return env
    return {**{k: v for k, v in loaded.items() if TunixLaunches().reads_variable(k)}, **env}


def is_tunix_argv(args: tuple[str, ...], base_names: Callable[[], frozenset[str]]) -> bool:
    """Whether `flaglint check ARGS` names a Tunix command line: a program that runs tunix.cli, or
    a Tunix base YAML first (`BASE.yaml k=v …`): one of the pin's base files by name, or a file
    with a top-level `model_config:` section. Another `.yaml` is left to MaxText's argv, which
    says that MaxText reads only a `.yml`. `base_names` is called only for a `.yaml` first (it
    loads the Tunix pin)."""
    if not args:
        return False
    if recognise_tunix(list(args)) is not None:
        return True
    first = Path(args[0])
    if not args[0].endswith(TUNIX_BASE_SUFFIX):
        return False
    if first.name in base_names():
        return True
    try:
        return os.path.isfile(first) and re.search(r"^model_config:", read_file(first, CONFIG_FILE).decode("utf-8", "replace"), re.M) is not None
    except Unreadable:
        return False

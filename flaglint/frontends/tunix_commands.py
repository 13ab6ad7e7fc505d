"""Tunix command lines (`python -m tunix.cli.<entry> BASE.yaml key=value …`) checked at the Tunix
pin, for `check` (an argv), `lint` (a launch in a script) and `gate` (a container's command): the
entry point, absl's flags, then HyperParameters' merge and what Tunix checks of it
(flaglint/tunix/checks.py). Locations in the argv are columns of argv_source(words).text, as for
MaxText's command lines, so the callers place them the same way.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from flaglint.core.findings import Finding, Fix, InputError
from flaglint.core.location import Location
from flaglint.frontends.checker import Checker, check_command
from flaglint.read.flags import read_env_assignments
from flaglint.resolve.topology import DeviceCount
from flaglint.rules.ruleset import built_in
from flaglint.schema.config_index import load_index
from flaglint.tunix.checks import DEFAULT_ENTRY, TunixCheck, check_tunix
from flaglint.tunix.launch import (
    TunixCommand,
    TunixLaunches,
    absl_parse,
    suggested_override,
)
from flaglint.tunix.maxtext_model import maxtext_argvs
from flaglint.tunix.merge import AFTER_DOWNLOADS, STARTUP, TunixArgv, staged
from flaglint.tunix.pins import TunixPin

MAXTEXT_CONFIGS = "src/maxtext/configs/"  # where a config of the MaxText pin is named (frontends/commands.py config_path)
DOTENV = ".env"  # `flaglint check BASE.yaml k=v …` is a Tunix argv (MaxText's configs end in .yml)


@dataclass
class TunixChecked:
    findings: list[Finding]
    check: TunixCheck | None
    notes: list[str] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)  # as edits of argv_source(words).text

    @property
    def config(self) -> dict | None:
        """The merged config (None: Tunix merges none: absl or the base file stops it first)."""
        return self.check.merged.config if self.check is not None and not self.check.merged.stopped else None


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
                      allow_unverified: bool = False, devices: DeviceCount | None = None,
                      maxtext: Callable[[], Checker] | None = None, fix: bool = False) -> TunixChecked:
    """The findings on a Tunix argv: `args` are the words after the module (before absl reads
    them); `command` None: a bare argv (BASE.yaml k=v …), its program not known; `devices`: what
    it runs on, when that is known; `maxtext`: the checker at the MaxText pin, for the argv a
    model section with `model_source: maxtext` builds (made only when one does); `fix`: with the
    fixes of the words (fix/tunix_argv.py; none where a word's text is not known)."""
    done = _checked_words(pin, command, args, env, search, unknown_words, allow_unverified, devices, maxtext)
    if fix and not unknown_words and any(f.severity != "info" for f in done.findings):
        from flaglint.fix.tunix_argv import CommandLineCheck, tunix_fixes  # noqa: PLC0415 the fix search: only where a fix is asked

        def recheck(words: list[str]) -> CommandLineCheck:
            again = _checked_words(pin, command, words, env, search, frozenset(), allow_unverified, devices, None)
            return CommandLineCheck(again.findings, again.config)

        merged = done.check.merged if done.check is not None else None
        written_at = {k: o.location for k, o in merged.origins.items()} if merged is not None else {}
        files = frozenset(merged.files) if merged is not None else frozenset()
        done.fixes = tunix_fixes(args, CommandLineCheck(done.findings, done.config, written_at, files), recheck,
                                 pin.entries.get(command.entry if command is not None else DEFAULT_ENTRY, ()),
                                 merged.base if merged is not None else None, merged.base_values if merged is not None else {}, pin)
    return done


def _checked_words(pin: TunixPin, command: TunixCommand | None, args: list[str], env: dict[str, str],
                   search: tuple[Path, ...], unknown_words: frozenset[int], allow_unverified: bool,
                   devices: DeviceCount | None, maxtext: Callable[[], Checker] | None) -> TunixChecked:
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
    findings += checked.findings
    if maxtext is not None and not checked.merged.stopped:
        findings += _maxtext_models(pin, checked, env, maxtext, allow_unverified)
    return TunixChecked(findings, checked, notes + checked.merged.notes)


def _maxtext_models(pin: TunixPin, checked: TunixCheck, env: dict[str, str], maxtext: Callable[[], Checker],
                    allow_unverified: bool) -> list[Finding]:
    """MaxText's verdict on the argv each model section with `model_source: maxtext` builds, each
    finding at the Tunix word or line that set the value it is about (else at model_source's),
    labelled with Tunix's stage: MaxText reads it when Tunix builds the model."""
    facts = pin.maxtext_model
    merged = checked.merged
    checkers: list[Checker] = []

    def checker() -> Checker:
        if not checkers:
            checkers.append(maxtext())
        return checkers[0]

    found: list[Finding] = []
    for argv in maxtext_argvs(facts, merged, checked.entry, env, lambda key: key in checker().pin.keys):
        source = merged.origin(f"{argv.section}.model_source")
        at_source = source.location if source is not None else None
        if argv.naming is not None:
            refused = argv.naming
            at = refused.origin.location if refused.origin is not None and refused.origin.location is not None else at_source
            found.append(staged(built_in("FL215", (refused.key, f"{argv.section}.model_source"), at, key=refused.key,
                                         value=refused.model_id, name=refused.name, reason=refused.reason, version=pin.version),
                                AFTER_DOWNLOADS))
            continue
        where = (f"the MaxText argv Tunix {pin.version} builds for {argv.section} (model_source: maxtext, "
                 f"{facts['site']}) at MaxText {checker().pin.pin}")
        if argv.unknown:
            found.append(staged(built_in("FL011", (f"{argv.section}.model_source",), at_source, allow_unverified=allow_unverified,
                                         reason=f"{where}: {'; '.join(argv.unknown)} cannot be known"), AFTER_DOWNLOADS))
            continue
        index = load_index(checker().pin.configs)
        base = argv.words[0]
        if index is None or index.get(base) is None:
            found.append(staged(built_in("FL011", (f"{argv.section}.model_source",), at_source, allow_unverified=allow_unverified,
                                         reason=f"{where}: MaxText's {base} is not known at this pin"), AFTER_DOWNLOADS))
            continue
        words = argv.words[1:]
        spans = word_locations(words)
        for finding in check_command(checker(), words, f"{MAXTEXT_CONFIGS}{base}", {}, index=index):
            at = _word_of(finding, words, spans)
            origin = argv.origins[at + 1] if at is not None else None
            location = origin.location if origin is not None and origin.location is not None else at_source
            keys = tuple(dict.fromkeys(k for k in (argv.keys[at + 1] if at is not None else None, f"{argv.section}.model_source") if k))
            found.append(staged(finding.replace(message=f"{where}: {finding.message}", location=location, keys=keys,
                                        related=(at_source,) if at_source is not None and at_source != location else ()),
                                AFTER_DOWNLOADS))
    return found


def _word_of(finding: Finding, words: list[str], spans: list[Location]) -> int | None:
    """The index of the derived word a MaxText finding is about: the word its location is in,
    else the first word that sets one of its keys."""
    at = finding.location
    if at is not None and at.file is None:
        for index, span in enumerate(spans):
            if span.column <= at.column < (span.end_column or span.column + 1):
                return index
    for key in finding.keys:
        for index, word in enumerate(words):
            if word.split("=", 1)[0] == key:
                return index
    return None


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

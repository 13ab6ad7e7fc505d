"""An editor's document checked as the command line checks its file: a script as `flaglint lint`, a
manifest as `flaglint gate`, a MaxText config as `flaglint check CONFIG.yml`, a Tunix base config as
`flaglint check BASE.yaml`, anything else as `flaglint check -f FILE`. The text is the editor's
buffer, and the files it sources or its base_config chain are read from open buffers first.

The pin, the model and the rules come from the project's settings for the document's folder, as
the command line finds them from there; the loaded checkers are kept across checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from flaglint.core.edits import Applicability, Edit
from flaglint.core.findings import Finding, Fix, InputError, Result
from flaglint.core.location import Location
from flaglint.core.reading import (
    CONFIG_FILE,
    FLAG_FILE,
    MANIFEST,
    SCRIPT,
    Unreadable,
    buffers_over_files,
    regular_file,
)
from flaglint.fix.config_files import config_fixes
from flaglint.fix.files import text_edits
from flaglint.frontends.check.inputs import config_source
from flaglint.frontends.check.tunix_argv import check_tunix_argv
from flaglint.frontends.checker import Checker
from flaglint.frontends.gate.manifests import check_manifest_text, manifest_edits
from flaglint.frontends.lint.scripts import check_script
from flaglint.read.flags import BOM, FlagSource
from flaglint.rules.ruleset import built_in
from flaglint.settings.applied import apply_settings
from flaglint.settings.settings import Settings, load_settings
from flaglint.tunix.launch import is_tunix_argv
from flaglint.tunix.pins import tunix_base_names

MAX_FIXES = 3  # as the command line's --max-fixes
SCRIPT_SUFFIXES = (".sh", ".bash")
YAML_SUFFIXES = (".yml", ".yaml")
_MANIFEST = re.compile(r"^apiVersion:", re.M)
_KIND = re.compile(r"^kind:", re.M)
_BASE_CONFIG = re.compile(r"^base_config:", re.M)


@dataclass
class FileFix:
    """One fix, as the edits `--fix` makes: byte spans of files (the document's or one it reads)."""

    fix: Fix
    edits: list[Edit]

    @property
    def safe(self) -> bool:
        return self.fix.safe and all(edit.applicability is Applicability.SAFE for edit in self.edits)


@dataclass
class DocumentCheck:
    """What a check of one document found: its findings (located in it or in a file it reads), the
    fixes that can be made by editing files, the notes, and the pin it was checked at."""

    kind: str
    pin: str
    findings: list[Finding] = field(default_factory=list)
    fixes: list[FileFix] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def document_kind(path: str, text: str) -> str:
    """`script`, `manifest`, `tunix-config`, `config` or `flags`, by the file's name and text."""
    if path.endswith(SCRIPT_SUFFIXES) or text.startswith("#!") and "sh" in text.split("\n", 1)[0]:
        return "script"
    if path.endswith(YAML_SUFFIXES):
        if _MANIFEST.search(text) and _KIND.search(text):
            return "manifest"
        if path.endswith(".yaml") and not _BASE_CONFIG.search(text):
            return "tunix-config"
        return "config"
    return "flags"


class Workbench:
    """The checkers, loaded once for each pin, model and rules the settings give, and kept warm."""

    def __init__(self, settings_file: str | None = None):
        self.settings_file = settings_file
        self._checkers: dict[tuple, Checker] = {}

    def settings(self, folder: Path) -> Settings:
        """The settings for the documents of FOLDER: the nearest config file from there up."""
        return load_settings(start=folder, config_file=self.settings_file)

    def checker(self, settings: Settings, fail_closed: bool = False) -> Checker:
        key = (settings["pin"], settings["model"], tuple(settings["extra-rules"]), fail_closed)
        if key not in self._checkers:
            self._checkers[key] = Checker(*key[:3], None, fail_closed)
        return self._checkers[key]

    def check(self, path: str, text: str, buffers: Mapping[str, str]) -> DocumentCheck:
        """The document at PATH holding TEXT, with BUFFERS (path -> text) read in place of files:
        each read up to the limit of its kind, as the command line reads a file. What cannot be
        read or parsed is a finding at its place, never an exception; a buffer that is no text
        of a file (a lone surrogate, a NUL in its name) is not read in place of one."""
        kind = document_kind(path, text)
        problem = _not_a_file_text(path, text)
        if problem:
            return _unreadable(kind, "", path, problem)
        where = Path(path)
        try:
            settings = self.settings(where.parent)
        except InputError as err:
            return _unreadable(kind, "", path, str(err))
        read = {name: content.encode("utf-8") for name, content in {**buffers, path: text}.items()
                if not _not_a_file_text(name, content)}
        with buffers_over_files(read):
            try:
                regular_file(path, _KINDS[kind])
            except Unreadable as err:  # over the limit of its kind
                return _unreadable(kind, settings["pin"], path, err.reason)
            try:
                return _CHECKS[kind](self, where, text, settings)
            except InputError as err:
                return _unreadable(kind, settings["pin"], path, str(err))
            except RecursionError:
                return _unreadable(kind, settings["pin"], path, "input too deeply nested")


def _not_a_file_text(path: str, text: str) -> str | None:
    """Why an editor's buffer cannot stand for a file's text, or None."""
    if "\0" in path:
        return "a file name holds no NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        line = text.count("\n", 0, err.start) + 1
        return f"not UTF-8 (a lone surrogate at line {line}, column {err.start - text.rfind(chr(10), 0, err.start)})"
    return None


def _unreadable(kind: str, pin: str, path: str, reason: str) -> DocumentCheck:
    finding = built_in("FL010", (), Location(path, 1, 1, end_column=1), variant="unreadable", path=path, reason=reason)
    return DocumentCheck(kind, pin, [finding])


def _script(bench: Workbench, path: Path, text: str, settings: Settings) -> DocumentCheck:
    checker = bench.checker(settings)
    found = check_script(path, checker, None, None, settings["path-cap"], MAX_FIXES, text=text,
                         tunix_pin=settings["tunix-pin"])
    result = apply_settings(found.result, settings, str(path))
    return _checked("script", result, [FileFix(fix, [edit for edit in fix.edits if edit.written]) for fix in result.fixes])


def _flags(bench: Workbench, path: Path, text: str, settings: Settings) -> DocumentCheck:
    checker = bench.checker(settings)
    flags = text.removeprefix(BOM)
    offset = len(text[: len(text) - len(flags)].encode("utf-8"))
    result = apply_settings(checker.check(FlagSource(flags, file=str(path)), {}, max_fixes=MAX_FIXES), settings, str(path))
    fixes = [FileFix(fix, text_edits(str(path), flags, [edit for edit in fix.edits if edit.file is None], fix.applicability, offset))
             for fix in result.fixes]
    return _checked("flags", result, fixes)


def _config(bench: Workbench, path: Path, text: str, settings: Settings) -> DocumentCheck:
    checker = bench.checker(settings)
    source = config_source(str(path), (), checker.pin.configs)
    result = apply_settings(checker.check(source, {}, max_fixes=MAX_FIXES), settings, str(path))
    made = config_fixes(checker.config(source, {})[0], result, checker.meant)
    return _checked("config", result, [FileFix(fix, [edit for edit in fix.edits if edit.written]) for fix in made])


def _tunix_config(bench: Workbench, path: Path, text: str, settings: Settings) -> DocumentCheck:
    if not is_tunix_argv((str(path),), lambda: tunix_base_names(settings["tunix-pin"])):
        return _config(bench, path, text, settings)  # a `.yaml` that is no Tunix base: MaxText's argv says what it reads
    _, result = check_tunix_argv((str(path),), settings["tunix-pin"], {})
    return _checked("tunix-config", apply_settings(result, settings, str(path)), [])


def _manifest(bench: Workbench, path: Path, text: str, settings: Settings) -> DocumentCheck:
    checker = bench.checker(settings, fail_closed=True)
    items = check_manifest_text(text, str(path), env={}, checker=checker, fix=True, max_fixes=MAX_FIXES,
                                allow_unverified=False, tunix_pin=settings["tunix-pin"])
    checked = DocumentCheck("manifest", checker.pin.pin)
    for item in items:
        result = apply_settings(item.result, settings, item.label)
        checked.findings += result.findings
        checked.notes += result.notes
        checked.fixes += [FileFix(fix, edits) for fix in result.fixes if (edits := manifest_edits(item.text, fix, item.label))]
    return checked


def _checked(kind: str, result: Result, fixes: list[FileFix]) -> DocumentCheck:
    return DocumentCheck(kind, result.pin, list(result.findings), [fix for fix in fixes if fix.edits], list(result.notes))


# Each kind of document is read up to the limit the command line reads its file with.
_KINDS = {"script": SCRIPT, "flags": FLAG_FILE, "config": CONFIG_FILE, "tunix-config": CONFIG_FILE, "manifest": MANIFEST}
_CHECKS = {"script": _script, "flags": _flags, "config": _config, "tunix-config": _tunix_config, "manifest": _manifest}

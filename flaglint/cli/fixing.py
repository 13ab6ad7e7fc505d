"""`--fix`, `--diff`, `--unsafe-fixes`, `--show-fixes`: the one way check, lint and gate apply fixes.

Each command gives its inputs as `Checked` items that carry the fix to apply and its byte edits;
files are written (atomically, and only while they hold what was checked: see flaglint/fix/files.py;
one that changed meanwhile is left as it is, and the run ends with exit 2 naming it), inputs read from the command line or
stdin are printed fixed. Fixes can interact (two branches of a script, two launches of a
manifest), so the inputs are checked again after each round, until a round changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from flaglint.cli.console import echo
from flaglint.core.edits import Edit
from flaglint.core.findings import Fix, InputError
from flaglint.fix.files import apply_file_edits, apply_to_bytes, write_if_unchanged
from flaglint.report import Checked, describe_fix

_ROUNDS = 10


def choose(fixes: list[Fix], unsafe: bool) -> Fix | None:
    """The fix --fix applies: the first safe one, else (with --unsafe-fixes) the first of any kind."""
    return next((fix for fix in fixes if fix.safe), None) or (fixes[0] if unsafe and fixes else None)


def _in_memory(item: Checked, unsafe: bool) -> bytes | None:
    """The fixed bytes of an input that is not a file (a flag string, stdin); None when unchanged."""
    edits = [edit for edit in item.edits if edit.applicability.allowed(unsafe)]
    old = item.text.encode("utf-8")
    new = apply_to_bytes(old, edits)
    return new if edits and new != old else None


def apply_fixes(checked: list[Checked], rerun: Callable[[dict[str | None, str]], list[Checked]], *, unsafe: bool,
                diff: bool, show_fixes: bool, quiet: bool) -> tuple[list[Checked], dict[str | None, str], bool]:
    """Apply (or with `diff` only show) the fixes, round after round.

    Returns the inputs checked after the last round, the fixed text of each input that is not a
    file (by label), and whether anything changed (with `diff`: whether there was a diff)."""
    fixed: dict[str | None, str] = {}
    applied: dict[str | None, list[Fix]] = {}
    changed_any = False
    for _ in range(_ROUNDS):
        files = apply_file_edits([edit for item in checked for edit in _file_edits(item)], unsafe,
                                 {item.label: item.text for item in checked if item.in_file and item.label})
        memory = {item.label: new for item in checked if not item.in_file and (new := _in_memory(item, unsafe)) is not None}
        if diff:
            shown: set[str | None] = set()
            for item in checked:
                # the files an input's fix edits besides itself: a config an argv starts from, a Tunix
                # override file or base YAML a script's command line reads
                for file in dict.fromkeys(edit.file for edit in _file_edits(item) if edit.file in files and edit.file != item.label):
                    if file not in shown:
                        shown.add(file)
                        _print_diff(file, *files[file])
                if item.in_file and item.label in files:
                    _print_diff(item.label, *files[item.label])
                elif item.label in memory:
                    _print_diff(item.name, item.text.encode("utf-8"), memory[item.label])
            if not files and not memory and not quiet:
                _tell_held_back(checked, unsafe, "--unsafe-fixes --diff shows them")
            return checked, fixed, bool(files or memory)
        if not files and not memory:
            break
        changed_any = True
        for file, (old, new) in files.items():
            try:
                write_if_unchanged(Path(file), old, new)
            except OSError as err:
                raise InputError(f"{file}: cannot write the fix ({err.strerror})") from None
        for item in checked:
            if item.fix is not None and (item.label in memory or any(edit.file in files for edit in [*item.edits, *item.config_edits])):
                applied.setdefault(item.label, []).append(item.fix)
        fixed.update((label, new.decode("utf-8")) for label, new in memory.items())
        checked = rerun(fixed)
        if memory and not files:
            break  # an input that is not a file is fixed in one round: its fix was checked clean
    for item in checked:
        item.applied = applied.get(item.label, [])
    _tell(checked, applied, unsafe, show_fixes, quiet)
    return checked, fixed, changed_any


def _file_edits(item: Checked) -> list[Edit]:
    """The edits --fix writes to files: those of an input that is a file, and those of the config
    files an argv starts from."""
    return [*(item.edits if item.in_file else []), *item.config_edits]


def _edited(name: str, fix: Fix) -> str:
    """What the fix edited: the files (a config file an argv starts from), and the input named NAME
    where it edits the input's own text."""
    written = [edit for edit in fix.edits if edit.written]
    edited = dict.fromkeys(edit.location.file if edit.location is not None and edit.location.file else name for edit in written)
    return ", ".join(edited) or name


def _print_diff(label: str, old: bytes, new: bytes) -> None:
    import difflib  # noqa: PLC0415 --diff only: not on the path of every run

    lines = difflib.unified_diff(old.decode("utf-8").splitlines(True), new.decode("utf-8").splitlines(True), f"a/{label}", f"b/{label}")
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    echo(text, nl=False)


def _tell(checked: list[Checked], applied: dict[str | None, list[Fix]], unsafe: bool, show_fixes: bool, quiet: bool) -> None:
    """What was fixed, and what is left for a person, on stderr (stdout holds the report)."""
    if quiet:
        return
    if show_fixes:
        names = {item.label: item.name for item in checked}
        for label, fixes in applied.items():
            for fix in fixes:
                echo(f"fixed {_edited(names.get(label) or '<flags>', fix)}: {describe_fix(fix)}", err=True)
    elif applied:
        count = sum(len(fixes) for fixes in applied.values())
        echo(f"flaglint: applied {count} fix(es) to {len(applied)} input(s); --show-fixes lists them", err=True)
    by_hand = [(label, fix) for label, fixes in applied.items() for fix in fixes]
    by_hand += [(item.label, item.fix) for item in checked if item.fix is not None and not item.edits and not item.config_edits]  # nothing to edit
    for label, fix in by_hand:
        for line in _by_hand(fix):
            echo(f"to fix by hand in {label or 'the environment'}: {line}", err=True)
    _tell_held_back(checked, unsafe, "--unsafe-fixes applies them (--diff shows them)")


def _tell_held_back(checked: list[Checked], unsafe: bool, how: str) -> None:
    """The inputs whose every fix is unsafe: --fix and --diff leave them as they are, and say so."""
    held_back = sum(1 for item in checked if not unsafe and item.result.fixes and not any(fix.safe for fix in item.result.fixes))
    if held_back:
        echo(f"flaglint: {held_back} input(s) have only unsafe fixes; {how}", err=True)


def _by_hand(fix: Fix) -> list[str]:
    """The parts of an applied fix no edit could make: lines to add, Tunix variables to set or unset."""
    return [edit.new if not edit.variable else f"set {edit.variable}={edit.new}" if edit.new else f"unset {edit.variable}"
            for edit in fix.edits if not edit.written]

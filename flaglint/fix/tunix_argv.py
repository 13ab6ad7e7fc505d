"""Fixes of a Tunix command line (`BASE.yaml key=value …` after `python -m tunix.cli.<entry>`), as
edits of its words in argv_source(words).text, the text MaxText's argv is fixed in; a script's
words are then edited by fix/command_lines.py, as for MaxText's command lines.

One edit a finding, of the word that set the value, or of the line of the user's file that did
(the override file, a base YAML read from disk: fix/tunix_override.py; a `T_` variable's value is
left to a person):
- a word absl refuses (FL201), a top-level key the base does not define (FL204), a nested key
  Tunix ignores (FL208), a key a builder refuses (FL210): the word is dropped (in a file: a
  top-level key's lines);
- a key set by a word and by its `T_` variable (FL205): the word is dropped, so the variable's
  value counts;
- a value Tunix retypes (FL207): the value as Tunix types it (`batch_size=1.5` is 1);
- a value Tunix cannot type (FL206): a number written as a float for an int (`1e3`), or a yes/no
  word for a bool, in the base value's type;
- a mesh whose shape and axis names differ in length (FL212): the shape with its 1s dropped or
  1s added, to as many axes as it names (the devices it takes stay the same);
- an optimizer name Tunix cannot find (FL218): the one name the release takes that is nearest.

An edit is safe when Tunix then runs with the config it would have merged apart from the key the
finding is about (a dropped key Tunix refuses or ignores; a section an override replaced stays as
it was), and with that key's value unchanged where the key stays (a retyped value written as it
becomes; the `T_` variable and the word agreeing): the merge is done again to tell. A yes/no word
read as a bool, a mesh shape and an optimizer name are guesses, so unsafe. Beside the fix, as
MaxText's argv gets, the same fix with each misspelt key renamed to the one key "did you mean"
names (and a word absl refuses written as the config override it spells) is offered, unsafe: the
renamed key's value now counts.
A fix of words is offered only when the command line it makes no longer has the findings it fixes
and has no error the original did not have.
"""

from __future__ import annotations

import copy
import math
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable

from flaglint.core.edits import Applicability, Edit
from flaglint.core.findings import Change, Finding, Fix
from flaglint.core.location import Location
from flaglint.core.numbers import int_text
from flaglint.fix.config_files import REMOVE, Renamed
from flaglint.fix.flags import apply_edits, drop_token
from flaglint.fix.tunix_override import (
    FileChange,
    file_edits,
    written_lines,
    written_value,
)
from flaglint.read.argv import argv_source, shell_words
from flaglint.rules.ruleset import load_ruleset
from flaglint.tunix.checks import close_siblings, matching_shape
from flaglint.tunix.launch import suggested_override
from flaglint.tunix.merge import close_keys
from flaglint.tunix.optimizer import nearest_optimizer
from flaglint.tunix.pins import Builder, TunixPin

_YES = ("yes", "y", "on", "1")
_NO = ("no", "n", "off", "0")
# The kinds of finding whose word is dropped (rules' tunix_fix).
_DROPPED = ("absl-word", "unknown-key", "env-conflict", "nested-key", "builder-key")


@dataclass(frozen=True)
class CommandLineCheck:
    """A Tunix command line's findings and, where Tunix merges it, its merged config, where each
    dotted key's value was written (a role's value inherited from model_config: where that was)
    and the user's files among those places (the override file, a base read from disk)."""

    findings: list[Finding]
    config: dict[str, Any] | None
    written_at: dict[str, Location | None] = field(default_factory=dict)
    files: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Option:
    finding: Finding
    at: int  # the word
    new: str | None  # the new word; None: dropped
    key: str
    kept_apart: bool  # the finding's key is left out when the merged configs are compared
    guess: bool = False  # a coercion that guesses what the word means: never safe


def tunix_fixes(words: list[str], checked: CommandLineCheck, recheck: Callable[[list[str]], CommandLineCheck],
                builders: tuple[Builder, ...], base: dict | None, base_values: dict[str, Any],
                pin: TunixPin | None = None) -> list[Fix]:
    """The fixes of the findings of `words` (a safe one first, then the unsafe ones).
    `recheck`: the findings and merged config of other words; `builders`: those of the entry
    point; `base`, `base_values`: the base YAML's keys and top-level values; `pin`: the Tunix pin
    (the optimizer names it takes)."""
    text = argv_source(words).text
    tokens = shell_words(text)
    starts = {token.offset + 1: i for i, token in enumerate(tokens)}
    options: dict[int, _Option] = {}
    renames: dict[int, str] = {}
    for finding in checked.findings:
        at = finding.location
        index = starts.get(at.column) if at is not None and at.file is None and at.line == 1 else None
        if index is None or index in options:
            continue
        option = _option(finding, index, words[index], checked.config, base_values, pin)
        if option is None:
            continue
        options[index] = option
        rename = _rename(option, words, builders, base, base_values)
        if rename is not None:
            renames[index] = rename
    in_files = {applicability: file_edits(changes, applicability)
                for applicability, changes in zip((Applicability.SAFE, Applicability.UNSAFE), _file_changes(checked, base_values, pin))}
    if not options and not any(edits for edits, _ in in_files.values()):
        return []
    safe = {i: o.new for i, o in options.items() if _same_merge([o], words, checked, recheck)}
    if safe and not _same_merge([options[i] for i in safe], words, checked, recheck):
        safe = {}  # safe one by one, not together (two words of one section)
    every = {i: renames.get(i, o.new) for i, o in options.items()}
    fixes: list[Fix] = []
    for chosen, applicability in ((safe, Applicability.SAFE), (every, Applicability.UNSAFE)):
        edits, changes = in_files[applicability]
        fix = _fix(text, tokens, words, chosen, [options[i] for i in chosen], applicability) if chosen else None
        if fix is not None and not _removes(fix, [options[i].finding for i in chosen], checked, recheck):
            fix = None
        if fix is None and not edits:
            continue
        # the files' edits read back as meant (fix/tunix_override.py)
        made = Fix([*(fix.changes if fix else ()), *changes], fix.flags if fix else text, applicability,
                   [*(fix.edits if fix else ()), *edits])
        if not any(_same_edits(made, other) for other in fixes):
            fixes.append(made)
    return fixes


def _same_edits(one: Fix, other: Fix) -> bool:
    return [(e.location, e.old, e.new) for e in one.edits] == [(e.location, e.old, e.new) for e in other.edits]


def _file_changes(checked: CommandLineCheck, base_values: dict[str, Any],
                  pin: TunixPin | None) -> tuple[list[FileChange], list[FileChange]]:
    """The changes of the user's files (safe, then unsafe: the guesses, and a misspelt top-level key
    renamed to the one key it may mean instead of removed), each at the line the finding is at."""
    safe: dict[tuple[str, str], FileChange] = {}
    unsafe: dict[tuple[str, str], FileChange] = {}
    for finding in checked.findings:
        at = finding.location
        if at is None or at.file not in checked.files or not finding.keys:
            continue
        kind, key = _kind(finding), _written_key(finding, at)
        if key is None:
            continue
        where = (at.file, key)
        if kind == "unknown-key" and "." not in key:
            safe[where] = unsafe[where] = FileChange(at.file, key, REMOVE)
            names = close_keys(key, base_values)
            if len(names) == 1 and names[0] not in written_lines(at.file):
                unsafe[where] = FileChange(at.file, key, Renamed(names[0]))
        elif kind == "retype" and "." not in key:
            typed = (checked.config or {}).get(key)
            if isinstance(typed, (bool, int, float)):
                safe[where] = unsafe[where] = FileChange(at.file, key, typed)
        elif kind == "coerce" and "." not in key:
            coerced = _coerced(str(written_value(at.file, key)), base_values.get(key))
            if coerced is not None:
                value = coerced == "true" if isinstance(base_values.get(key), bool) else int(coerced)
                unsafe[where] = FileChange(at.file, key, value)
                if not isinstance(value, bool):  # a yes/no word read as a bool is a guess
                    safe[where] = unsafe[where]
        elif (guessed := _guessed(finding, kind, checked.config, pin)) is not None:
            unsafe[where] = FileChange(at.file, key, guessed)
    return list(safe.values()), list(unsafe.values())


def _written_key(finding: Finding, at: Location) -> str | None:
    """The key the finding is about as the file at its location writes it (a role's mesh inherited
    from model_config, a section merged in with `<<: *anchor`: the key at that line), or None where
    the file does not set it at that line."""
    lines = written_lines(at.file)
    key = finding.keys[0]
    if lines.get(key) == at.line:
        return key
    found = [k for k, line in lines.items() if line == at.line and k.rsplit(".", 1)[-1] == key.rsplit(".", 1)[-1]]
    return found[0] if len(found) == 1 else None


def _guessed(finding: Finding, kind: str | None, config: dict[str, Any] | None, pin: TunixPin | None) -> str | None:
    """The value a mesh shape (FL212: the axis names' length) or an optimizer name (FL218: the
    nearest the release takes) is guessed to mean; None where there is no one guess."""
    if kind == "mesh" and len(finding.keys) == 2 and finding.keys[0].endswith(".mesh.shape"):
        return matching_shape(_value_at(config, finding.keys[0]), _value_at(config, finding.keys[1]))
    if kind == "optimizer" and finding.keys[0].endswith(".opt_type") and pin is not None:
        return nearest_optimizer(pin, _value_at(config, finding.keys[0]))
    return None


def _value_at(config: dict[str, Any] | None, key: str) -> Any:
    node: Any = config
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _option(finding: Finding, at: int, word: str, config: dict[str, Any] | None,
            base_values: dict[str, Any], pin: TunixPin | None) -> _Option | None:
    kind = _kind(finding)
    if kind == "absl-word":
        return _Option(finding, at, None, word, kept_apart=True)
    key = finding.keys[0] if finding.keys else None
    name, eq, value = word.partition("=")
    if eq and kind == "mesh" and key is not None and name != key and name.split(".", 1)[-1] == key.split(".", 1)[-1]:
        key = name  # a role's mesh inherited from model_config's word
    if not eq or name != key:
        return None  # the word sets a section the finding's key is in, or is not the key's
    if (guessed := _guessed(finding, kind, config, pin)) is not None:
        return _Option(finding, at, f"{key}={guessed}", key, kept_apart=True, guess=True)
    if kind in _DROPPED:
        # the variable's value stands in for the dropped word's, so that key is compared too
        return _Option(finding, at, None, key, kept_apart=kind != "env-conflict")
    if kind == "retype":
        typed = _typed_text(config, key)
        return _Option(finding, at, f"{key}={typed}", key, kept_apart=False) if typed is not None else None
    if kind == "coerce":
        coerced = _coerced(value, base_values.get(key))
        if coerced is not None:
            return _Option(finding, at, f"{key}={coerced}", key, kept_apart=True, guess=isinstance(base_values.get(key), bool))
    return None


def _kind(finding: Finding) -> str | None:
    rule = load_ruleset().by_id(finding.rule)
    return rule.tunix_fix if rule is not None else None


def _coerced(value: str, base: Any) -> str | None:
    """The value in the base value's type where the reading is plain: an integral number for an
    int (`1e3`, `8.0`), a yes/no word for a bool."""
    if isinstance(base, bool):
        lowered = value.lower()
        return "true" if lowered in _YES else "false" if lowered in _NO else None
    if isinstance(base, int):
        try:
            number = float(value)
        except ValueError:
            return None
        return str(int(number)) if math.isfinite(number) and number == int(number) else None
    return None


def _rename(option: _Option, words: list[str], builders: tuple[Builder, ...], base: dict | None,
            base_values: dict[str, Any]) -> str | None:
    """The word with its key renamed to the one key the finding's key may mean (None: not one, or
    another word sets that key)."""
    key, word, kind = option.key, words[option.at], _kind(option.finding)
    if kind == "absl-word":
        renamed = suggested_override(word)
    else:
        if kind == "unknown-key":
            names = close_keys(key, base_values)
        elif kind == "nested-key" and base is not None:
            names = close_siblings(key, base)
        elif kind == "builder-key":
            section, _, name = key.rpartition(".")
            names = [f"{section}.{n}" for n in close_keys(name, _fields_of(section, builders))]
        else:
            return None
        renamed = f"{names[0]}={word.partition('=')[2]}" if len(names) == 1 else None
    if renamed is None or any(w.partition("=")[0] == renamed.partition("=")[0] for w in words[1:]):
        return None
    return renamed


def _fields_of(section: str, builders: tuple[Builder, ...]) -> dict[str, Any]:
    """The fields of the class a section is handed to: a builder's, or (`training_config.
    checkpointing_options`) those of the options class the builder's section hands a key to."""
    for builder in builders:
        if builder.section == section:
            return builder.fields
        parent, _, option = section.partition(".")
        if builder.section == parent and option in builder.options:
            return builder.options[option].get("fields") or {}
    return {}


def _same_merge(options: list[_Option], words: list[str], checked: CommandLineCheck, recheck: Callable[[list[str]], CommandLineCheck]) -> bool:
    """Whether Tunix merges the words the options make into the config it merges now, apart from
    the keys a dropped or coerced word is about (see the module's docstring): their fix is safe."""
    if any(option.guess for option in options):
        return False
    if checked.config is None:  # absl refused a word: Tunix has merged nothing, and the word sets nothing
        return True
    after = recheck(_applied(words, {option.at: option.new for option in options})).config
    if after is None:
        return False
    before, after = copy.deepcopy(checked.config), copy.deepcopy(after)
    for option in options:
        if option.kept_apart:
            for key in {option.key} | _inherited_copies(option.key, option.finding.location, checked.written_at):
                _delete(before, key)
                _delete(after, key)
    return before == after


def _inherited_copies(key: str, at: Location | None, written_at: dict[str, Location | None]) -> set[str]:
    """The same key in the roles' sections, where the merge copied the word's value (model_config's
    value inherited by actor_model_config); not the sections the word is in."""
    if "." not in key or at is None:
        return set()
    tail = key.split(".", 1)[1]
    return {k for k, where in written_at.items() if where == at and "." in k and k.split(".", 1)[1] == tail}


def _typed_text(config: dict[str, Any] | None, key: str) -> str | None:
    """A top-level scalar as a word sets it (bool as true/false)."""
    value = config.get(key) if config is not None else None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int_text(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    return None


def _delete(config: dict[str, Any], key: str) -> None:
    *parents, name = key.split(".")
    node: Any = config
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(name, None)


def _applied(words: list[str], new: dict[int, str | None]) -> list[str]:
    return [new[i] if i in new else word for i, word in enumerate(words) if not (i in new and new[i] is None)]


def _fix(text: str, tokens, words: list[str], chosen: dict[int, str | None], options: list[_Option],
         applicability: Applicability) -> Fix:
    edits, changes = [], []
    for option in options:
        new = chosen[option.at]
        token = tokens[option.at]
        if new is None:
            edits.append(drop_token(text, token))
        else:
            edits.append(Edit.in_text(text, token.offset, token.end_offset, shlex.quote(new)))
        name, _, old = words[option.at].partition("=")
        new_name, _, new_value = (new or "").partition("=")
        if new_name != name:
            changes.append(Change(name, old, None))
        if new is not None:
            changes.append(Change(new_name, old if new_name == name else None, new_value))
    edits = [Edit(e.location, e.old, e.new, applicability) for e in sorted(edits, key=lambda e: e.start)]
    return Fix(changes=changes, flags=apply_edits(text, edits), applicability=applicability, edits=edits)


def _removes(fix: Fix, fixed: list[Finding], checked: CommandLineCheck, recheck: Callable[[list[str]], CommandLineCheck]) -> bool:
    """Whether the fixed command line has none of the findings the fix is for, and no error the
    command line did not have (where Tunix got as far as a merged config: a command line absl
    refuses shows nothing else)."""
    after = recheck([token.text for token in shell_words(fix.flags)]).findings
    gone = {_about(f) for f in fixed}
    before = {(f.rule, f.keys) for f in checked.findings}
    if any(_about(f) in gone for f in after):
        return False
    return checked.config is None or not any(f.severity == "error" and (f.rule, f.keys) not in before for f in after)


def _about(finding: Finding) -> tuple:
    """What a finding is about, wherever its word now is (a word absl refuses: its message names it)."""
    return finding.rule, finding.keys, "" if finding.keys else finding.message

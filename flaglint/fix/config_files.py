"""A fix of MaxText's argv with a config file, made where each value was set: a key a file of the
chain sets is changed in that file (only the characters of its value, or the lines of a key
removed: every other byte stays, comments, layout, CRLF line breaks and a missing final newline
included), a value MaxText refuses in a file is removed from it (its parent's or the default comes
back, as dropping a refused token does), and every other change stays on argv. MaxText's own
config files are never edited. Each file's new text becomes byte edits of the file, which --fix
writes as it writes every fix (flaglint/fix/files.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from os.path import commonprefix
from typing import Any, Callable

from flaglint.core.edits import Applicability, Edit
from flaglint.core.findings import Change, Fix, InputError, Result
from flaglint.core.reading import CONFIG_FILE
from flaglint.fix.files import text_edits
from flaglint.fix.flags import apply_edits, case_corrected
from flaglint.read.config_chain import PIN_LABEL
from flaglint.read.flags import bom_length, read_text_file
from flaglint.resolve.resolver import Config
from flaglint.rules.ruleset import load_ruleset

REMOVE = object()  # the key is deleted from the file
UNDEFINED_KEY = "FL004"


@dataclass(frozen=True)
class Renamed:
    """The key is renamed in the file (its value and everything after its name stay)."""

    key: str


def _user_file(file: str | None) -> bool:
    return bool(file) and not file.startswith(f"{PIN_LABEL}/")


def config_fixes(config: Config, result: Result, suggestions: Callable[[str], list[str]]) -> list[Fix]:
    """The fixes of MaxText's argv with a config file (config_fix of each fix the check offered,
    or of none), then, as for a flag string, the first of them with each key the user's files set
    that the pin does not define renamed to the one key `suggestions` names (unsafe: a guess)."""
    made = [fix for candidate in result.fixes or [None] if (fix := config_fix(config, result, candidate)) is not None]
    first = result.fixes[0] if result.fixes else None
    renamed = config_fix(config, result, first, suggestions)
    if renamed is not None and (not made or renamed.changes != made[0].changes):
        made.append(renamed)
    return made


def config_fix(config: Config, result: Result, fix: Fix | None, suggestions: Callable[[str], list[str]] | None = None) -> Fix | None:
    """`fix` (the fix of argv --fix chose, or None) made where each value was set, with what the
    user's config files set that MaxText refuses made right in them: a Fix whose edits are edits of
    argv's characters and byte edits of the files; None when there is nothing to do.

    As a flag string's tokens are: a key the pin does not define is removed (safe: it set nothing),
    or with `suggestions`, renamed to the one key they name (unsafe); a value that is one of the
    key's choices in another case is that choice (safe); any other refused value is removed
    whether or not a fix was chosen (MaxText does not start with it). What comes back in its
    place (a parent's value, the default) is a value the user did not choose, so a fix that
    removes one is unsafe; otherwise it has `fix`'s applicability."""
    files: dict[str, dict[str, Any]] = {}  # file -> key -> new value, REMOVE or Renamed
    changes = list(fix.changes) if fix else []
    argv_edits = []
    for index, change in enumerate(changes):
        assignment = config.explicit.get(change.key)
        where = assignment.where if assignment is not None else None
        if assignment is not None and assignment.origin.startswith("yaml:") and where is not None and _user_file(where.file):
            files.setdefault(where.file, {})[change.key] = REMOVE if change.to is None else change.to
        elif index < len(fix.edits):
            argv_edits.append(fix.edits[index])
    unsafe = suggestions is not None
    renames = False
    rules = load_ruleset()
    for finding in result.findings:  # what a file sets that MaxText refuses
        where, rule = finding.location, rules.by_id(finding.rule)
        if where is None or not _user_file(where.file) or not finding.keys:
            continue
        key, keys = finding.keys[0], files.setdefault(where.file, {})
        setting = config.chain.settings.get(key) if config.chain is not None else None
        old = setting.value if setting is not None and setting.file == where.file else None
        if key in keys:
            continue
        if finding.rule == UNDEFINED_KEY:
            names = suggestions(key) if suggestions is not None else []
            keys[key] = Renamed(names[0]) if len(names) == 1 else REMOVE
            renames = renames or len(names) == 1
            changes += [Change(key, old, None), *([Change(names[0], None, old)] if len(names) == 1 else [])]
        elif rule is not None and rule.refused_value:
            choice = case_corrected(config.pin.keys.get(key), old if isinstance(old, str) else None)
            keys[key] = REMOVE if choice is None else choice
            unsafe = unsafe or choice is None
            changes.append(Change(key, old, choice))
    files = {file: keys for file, keys in files.items() if keys}
    if fix is None and not files or suggestions is not None and not renames:
        return None
    applicability = Applicability.UNSAFE if unsafe else fix.applicability if fix else Applicability.SAFE
    argv = config.source.text
    flags = apply_edits(argv, argv_edits)
    edits = [*_edits_making(argv, flags), *(edit for edit in argv_edits if not edit.written)]
    for file, keys in files.items():
        text = read_text_file(file, CONFIG_FILE)
        made = yaml_edits(text, keys, file)
        if made is None:  # a config written as one flow mapping: a person edits it
            edits += [Edit(None, "", f"in {file}, " + _by_hand(key, value), Applicability.BY_HAND) for key, value in keys.items()]
        else:
            edits += text_edits(file, text, made, applicability, bom_length(file, CONFIG_FILE))
    return Fix(changes, flags, applicability, edits)


def _by_hand(key: str, value: Any) -> str:
    if value is REMOVE:
        return f"remove {key}"
    if isinstance(value, Renamed):
        return f"rename {key} to {value.key}"
    return f"set {key}: {_rendered(value, None)}"


def _edits_making(text: str, new: str) -> list[Edit]:
    """Edits of `text` (argv) that make it `new`: one for each run of lines that differ, less the
    characters at its ends that stay."""
    import difflib  # noqa: PLC0415 only when a config file is fixed: not on the path of every check

    lines, new_lines = text.splitlines(True), new.splitlines(True)
    starts, new_starts = [*accumulate(map(len, lines), initial=0)], [*accumulate(map(len, new_lines), initial=0)]
    edits = []
    for tag, first, last, new_first, new_last in difflib.SequenceMatcher(None, lines, new_lines, autojunk=False).get_opcodes():
        old, replacement = text[starts[first]:starts[last]], new[new_starts[new_first]:new_starts[new_last]]
        if tag == "equal" or old == replacement:
            continue
        kept_before = len(commonprefix([old, replacement]))
        kept_after = len(commonprefix([old[kept_before:][::-1], replacement[kept_before:][::-1]]))
        edits.append(Edit.in_text(text, starts[first] + kept_before, starts[last] - kept_after,
                                  replacement[kept_before:len(replacement) - kept_after]))
    return edits


def yaml_edits(text: str, changes: dict[str, Any], name: str) -> list[Edit] | None:
    """Edits of a YAML config's text that set each top-level key to its new value, remove it
    (REMOVE) or rename it (Renamed: a plain key's characters): a value's own characters are replaced (its anchor and the comment after it stay), a
    removed key's lines go with their line break, and a key the file does not set is added as a
    last line. Every other character stays, CRLF line breaks and a missing final newline included.
    None when the config is not a block mapping (`{steps: 10}`), whose edits are left to a person."""
    import yaml  # noqa: PLC0415 yaml: only when a config file is fixed

    try:
        entries = _top_level_entries(text)
    except yaml.YAMLError as err:
        raise InputError(f"{name}: cannot edit: {str(err).splitlines()[0]}") from None
    if entries is None:
        return None
    newline = "\r\n" if "\r\n" in text[: text.find("\n") + 1] else "\n"
    removed = [entry for entry in entries if changes.get(entry.key) is REMOVE]
    edits = [Edit.in_text(text, start, end, "") for start, end in _removals(text, removed, entries)]
    for key, value in changes.items():
        found = [entry for entry in entries if entry.key == key]
        if value is REMOVE:
            continue  # removed above, with its neighbours
        if isinstance(value, Renamed):
            edits += [Edit.in_text(text, entry.key_start, entry.key_start + len(key), value.key) for entry in found
                      if text.startswith(key, entry.key_start)]
            continue
        if found:
            edits += [Edit.in_text(text, entry.value_start, entry.value_end, _rendered(value, entry)) for entry in found]
        elif not text or text.endswith("\n"):
            edits.append(Edit.in_text(text, len(text), len(text), f"{key}: {_rendered(value, None)}{newline}"))
        else:  # the file ends without a line break, and still does
            edits.append(Edit.in_text(text, len(text), len(text), f"{newline}{key}: {_rendered(value, None)}"))
    return sorted(edits, key=lambda edit: edit.start)


@dataclass(frozen=True)
class _Entry:
    """A top-level `key: value` of a config: where its key starts, and where its value's characters
    start and end (its last character written, not the comments or blank lines after it)."""

    key: str | None  # None: a key that is not a scalar
    key_start: int
    value_start: int
    value_end: int
    style: str | None  # a scalar value's style: its quotes, `|` or `>` (a block scalar), None (plain, or a collection)
    anchor: str | None


def _top_level_entries(text: str) -> list[_Entry] | None:
    """The top-level entries of a config; None when it is not a block mapping."""
    import yaml  # noqa: PLC0415 yaml, as above

    entries: list[_Entry] = []
    flows: list[bool] = []  # each open collection: whether it is written in flow style
    key: tuple[str | None, int] | None = None  # the key of the entry being read
    value: list = []  # its value: [start, end, style, anchor]
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        depth = len(flows)
        if isinstance(event, yaml.CollectionStartEvent):
            if depth == 0 and (isinstance(event, yaml.SequenceStartEvent) or event.flow_style):
                return None
            if depth == 1 and key is not None:
                value = [event.start_mark.index, event.end_mark.index, None, event.anchor]
            flows.append(bool(event.flow_style))
        elif isinstance(event, yaml.CollectionEndEvent):
            if flows.pop() and value:  # a block collection's end is where the next key starts: not its own
                value[1] = max(value[1], event.end_mark.index)
            if len(flows) == 1:
                key, value = _entry_read(text, entries, key, value, event.start_mark.index)
        elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            start, end = event.start_mark.index, event.end_mark.index
            if depth > 1 and value:
                value[1] = max(value[1], end)
            elif depth == 1 and key is None:
                key = (event.value if isinstance(event, yaml.ScalarEvent) else None, start)
            elif depth == 1:
                scalar = isinstance(event, yaml.ScalarEvent)
                value = [start, end, event.style if scalar else None, event.anchor if scalar else None]
                key, value = _entry_read(text, entries, key, value, start)
    return entries


def _entry_read(text: str, entries: list[_Entry], key: tuple[str | None, int] | None, value: list,
                at: int) -> tuple[None, list]:
    """The entry whose value just ended, added (a collection used as a key is read as a key); a
    block scalar's value ends at its last character, before the line breaks it keeps or clips."""
    if key is None:
        return (None, at), []
    start, end, style, anchor = value
    entries.append(_Entry(key[0], key[1], start, start + len(text[start:end].rstrip()), style, anchor))
    return None, []


def _removals(text: str, removed: list[_Entry], entries: list[_Entry]) -> list[tuple[int, int]]:
    """The spans of the removed entries' lines, each with the line break that ends it, neighbours
    joined. At the end of a file without a final line break, the breaks before the last span go
    instead, so that the file still ends without one (unless a block scalar's value ends with that
    break: the value is kept, and the file ends with a break)."""
    spans: list[tuple[int, int]] = []
    for entry in sorted(removed, key=lambda entry: entry.key_start):
        start, end = text.rfind("\n", 0, entry.key_start) + 1, text.find("\n", entry.value_end) + 1 or len(text)
        if spans and start <= spans[-1][1]:
            start = spans[-1][0]
            spans.pop()
        spans.append((start, end))
    if spans and spans[-1][1] == len(text) and not text.endswith("\n"):
        start = spans[-1][0]
        before = max((entry for entry in entries if entry.key_start < start), key=lambda entry: entry.key_start, default=None)
        if before is None or before.style not in ("|", ">") or text[before.value_end:start].strip():
            spans[-1] = (len(text[:start].rstrip()), len(text))  # and the blank lines before: the last line left ends the file
            while len(spans) > 1 and spans[-2][1] >= spans[-1][0]:
                spans[-2:] = [(spans[-2][0], len(text))]
    return spans


def _rendered(value: Any, entry: _Entry | None) -> str:
    """A value as YAML reads it back, in the quotes the value it replaces was written in; with the
    anchor that value had, and after a blank where it was empty (`key:`)."""
    import yaml  # noqa: PLC0415 yaml, as above

    quotes = entry.style if entry is not None and entry.style in ("'", '"') and isinstance(value, str) else None
    text = yaml.safe_dump(value, default_flow_style=True, default_style=quotes, allow_unicode=True, width=float("inf"))
    text = text.removesuffix("\n").removesuffix("\n...").removesuffix("\n")
    if entry is not None and entry.anchor:
        text = f"&{entry.anchor} {text}"
    return " " + text if entry is not None and entry.value_start == entry.value_end else text

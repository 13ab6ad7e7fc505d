"""Fixes made in the user's files a Tunix command line reads: the override file it names
(`override_config_file=over.yaml`) and a base YAML read from disk (never the installed package's).
Each change is made in the characters of the line that set the value (fix/config_files.py's YAML
edits for a top-level key; the value's or the key's own characters for a nested one: comments,
layout and line breaks stay): a key removed with its lines, renamed, or given a new value.

The edited text is read back to tell that it says what the fix means; a file written as one flow
mapping, a value reached through an alias or a merge key (`<<: *base`: editing it would change the
other sections that share it), or one that cannot be read back is left to a person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flaglint.core.edits import Applicability, Edit
from flaglint.core.findings import Change, InputError
from flaglint.core.reading import CONFIG_FILE, Unreadable
from flaglint.fix.config_files import REMOVE, Renamed, yaml_edits
from flaglint.fix.files import text_edits
from flaglint.read.flags import bom_length, read_text_file

_MISSING = object()


@dataclass(frozen=True)
class FileChange:
    """A dotted key of a file changed: a new value, REMOVE, or Renamed (to a key of the same section)."""

    file: str
    key: str
    value: Any


def file_edits(changes: list[FileChange], applicability: Applicability) -> tuple[list[Edit], list[Change]]:
    """The byte edits of the files, and the changes they make (a file whose edits cannot be made as
    meant gets none)."""
    wanted: dict[str, dict[str, Any]] = {}
    for change in changes:
        wanted.setdefault(change.file, {})[change.key] = change.value
    edits, made_changes = [], []
    for file, keys in wanted.items():
        made = _made(file, keys)
        if made is None:
            continue
        text, file_edits_, offset, old = made
        edits += text_edits(file, text, file_edits_, applicability, offset)
        for key, value in keys.items():
            before = _shown(_get(old, key))
            if isinstance(value, Renamed):
                made_changes += [Change(key, before, None), Change(value.key, None, before)]
            else:
                made_changes.append(Change(key, before, None if value is REMOVE else value))
    return edits, made_changes


def written_lines(file: str) -> dict[str, int]:
    """Each dotted key the file writes under its own name (not through an alias or a merge key)
    -> the line of its name; none where the file cannot be read."""
    import yaml  # noqa: PLC0415 yaml, as above

    try:
        root = yaml.compose(read_text_file(file, CONFIG_FILE), Loader=yaml.SafeLoader)
    except (InputError, Unreadable, yaml.YAMLError):
        return {}
    lines: dict[str, int] = {}

    def walk(node: Any, prefix: str, after: int) -> None:
        if not isinstance(node, yaml.MappingNode) or node.start_mark.index < after:
            return
        for name, value in node.value:
            if isinstance(name, yaml.ScalarNode) and name.value != "<<" and value.start_mark.index > name.start_mark.index:
                lines[prefix + name.value] = name.start_mark.line + 1
                walk(value, f"{prefix}{name.value}.", name.start_mark.index)

    walk(root, "", -1)
    return lines


def written_value(file: str, key: str) -> Any:
    """The value the file gives a dotted key as YAML reads it; None where it gives none."""
    import yaml  # noqa: PLC0415 yaml, as above

    try:
        found = _get(yaml.safe_load(read_text_file(file, CONFIG_FILE)), key)
    except (InputError, Unreadable, yaml.YAMLError):
        return None
    return None if found is _MISSING else found


def _made(file: str, keys: dict[str, Any]) -> tuple[str, list[Edit], int, dict] | None:
    """The file's text, its edits, the bytes before the text (a BOM) and the values it held; None
    where they cannot be made or do not read back as meant."""
    import yaml  # noqa: PLC0415 yaml: only when a file is fixed

    try:
        text = read_text_file(file, CONFIG_FILE)
        offset = bom_length(file, CONFIG_FILE)
        top = {k: v for k, v in keys.items() if "." not in k}
        made = yaml_edits(text, top, file) if top else []
        nested = _nested_edits(text, {k: v for k, v in keys.items() if "." in k})
    except (InputError, Unreadable, yaml.YAMLError):
        return None
    if made is None or nested is None:
        return None
    made = sorted([*made, *nested], key=lambda e: e.start)
    new = text
    for edit in reversed(made):
        new = new[:edit.start] + edit.new + new[edit.end:]
    try:
        old, data = yaml.safe_load(text), yaml.safe_load(new)
    except yaml.YAMLError:
        return None
    data = {} if data is None else data  # every key of the file removed
    if not isinstance(old, dict) or not isinstance(data, dict):
        return None
    for key, value in keys.items():
        if value is REMOVE:
            if _get(data, key) is not _MISSING:
                return None
        elif isinstance(value, Renamed):
            if _get(data, key) is not _MISSING or _get(data, value.key) != _get(old, key):
                return None
        elif (found := _get(data, key)) != value or type(found) is not type(value):
            return None
    return text, made, offset, old


def _nested_edits(text: str, keys: dict[str, Any]) -> list[Edit] | None:
    """Edits of nested keys' values (a scalar's characters, in its quotes) or names (Renamed);
    None where one is not a block scalar written under its own key."""
    import yaml  # noqa: PLC0415 yaml, as above

    if not keys:
        return []
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    edits = []
    for key, value in keys.items():
        found = _node(root, key.split("."))
        if found is None or value is REMOVE:
            return None
        name, node = found
        if isinstance(value, Renamed):
            section, _, new_name = value.key.rpartition(".")
            if section != key.rpartition(".")[0] or name.style is not None:
                return None
            edits.append(Edit.in_text(text, name.start_mark.index, name.end_mark.index, new_name))
            continue
        if not isinstance(node, yaml.ScalarNode) or node.style in ("|", ">"):
            return None
        edits.append(Edit.in_text(text, node.start_mark.index, node.end_mark.index, _scalar(value, node.style)))
    return edits


def _node(root: Any, parts: list[str]) -> tuple[Any, Any] | None:
    """The key node and value node at a dotted path, each written after the one before it (not
    an alias of a node written elsewhere); None where the path is not there so."""
    import yaml  # noqa: PLC0415 yaml, as above

    node, found, at = root, None, -1
    for part in parts:
        if not isinstance(node, yaml.MappingNode):
            return None
        pairs = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part]
        if len(pairs) != 1 or pairs[0][0].start_mark.index <= at or pairs[0][1].start_mark.index <= pairs[0][0].start_mark.index:
            return None
        found, node = pairs[0]
        at = found.start_mark.index
    return found, node


def _scalar(value: Any, style: str | None) -> str:
    """A value as YAML reads it back, in the quotes the value it replaces had."""
    import yaml  # noqa: PLC0415 yaml, as above

    quotes = style if style in ("'", '"') and isinstance(value, str) else None
    text = yaml.safe_dump(value, default_flow_style=True, default_style=quotes, allow_unicode=True, width=float("inf"))
    return text.removesuffix("\n").removesuffix("\n...").removesuffix("\n")


def _get(data: Any, key: str) -> Any:
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return _MISSING
        data = data[part]
    return data


def _shown(value: Any) -> Any:
    """A value as the file wrote it, where the report would show it as another (2.0 as 2)."""
    return None if value is _MISSING else repr(value) if isinstance(value, float) else value

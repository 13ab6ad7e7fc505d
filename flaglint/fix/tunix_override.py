"""A fix of the override file a Tunix command line names (`override_config_file=over.yaml`), made in
the file: a top-level key the base config does not define (FL204) is removed with its lines, and a
top-level value Tunix retypes (FL207) is written as Tunix types it (`num_batches: 2.0` becomes
`num_batches: 2`), each only in its own characters (fix/config_files.py's YAML edits: comments,
layout and line breaks stay). Both are safe: Tunix merges the same config from the file after
them. The edited text is read back to tell that it says what the fix means; a nested key, a file
written as one flow mapping, or one that cannot be read back is left to a person.
"""

from __future__ import annotations

from typing import Any

from flaglint.core.edits import Applicability, Edit
from flaglint.core.findings import Change, Finding, InputError
from flaglint.core.reading import CONFIG_FILE, Unreadable
from flaglint.fix.config_files import REMOVE, yaml_edits
from flaglint.fix.files import text_edits
from flaglint.read.flags import bom_length, read_text_file
from flaglint.rules.ruleset import load_ruleset


def override_edits(findings: list[Finding], config: dict[str, Any] | None) -> tuple[list[Edit], list[Change]]:
    """The byte edits of the override files, and the changes they make."""
    wanted: dict[str, dict[str, Any]] = {}
    rules = load_ruleset()
    for finding in findings:
        where = finding.location
        rule = rules.by_id(finding.rule)
        kind = rule.tunix_fix if rule is not None else None
        if kind not in ("unknown-key", "retype") or where is None or where.file is None or len(finding.keys) != 1 or "." in finding.keys[0]:
            continue
        key = finding.keys[0]
        value = REMOVE if kind == "unknown-key" else (config or {}).get(key, REMOVE)
        if value is REMOVE and kind == "retype" or not isinstance(value, (bool, int, float)) and value is not REMOVE:
            continue
        wanted.setdefault(where.file, {})[key] = value
    edits, changes = [], []
    for file, keys in wanted.items():
        made = _made(file, keys)
        if made is None:
            continue
        text, file_edits, offset, old = made
        edits += text_edits(file, text, file_edits, Applicability.SAFE, offset)
        changes += [Change(key, _shown(old.get(key)), None if value is REMOVE else value) for key, value in keys.items()]
    return edits, changes


def _made(file: str, keys: dict[str, Any]) -> tuple[str, list[Edit], int, dict] | None:
    """The file's text, its edits, the bytes before the text (a BOM) and the values it held; None
    where they cannot be made or do not read back as meant."""
    import yaml  # noqa: PLC0415 yaml: only when an override file is fixed

    try:
        text = read_text_file(file, CONFIG_FILE)
        made = yaml_edits(text, keys, file)
        offset = bom_length(file, CONFIG_FILE)
    except (InputError, Unreadable):
        return None
    if made is None:
        return None
    new = text
    for edit in sorted(made, key=lambda e: e.start, reverse=True):
        new = new[:edit.start] + edit.new + new[edit.end:]
    try:
        old, data = yaml.safe_load(text), yaml.safe_load(new)
    except yaml.YAMLError:
        return None
    if not isinstance(old, dict) or not isinstance(data, dict):
        return None
    for key, value in keys.items():
        if value is REMOVE and key in data or value is not REMOVE and (key not in data or data[key] != value
                                                                        or type(data[key]) is not type(value)):
            return None
    return text, made, offset, old


def _shown(value: Any) -> Any:
    """A value as the file wrote it, where the report would show it as another (2.0 as 2)."""
    return repr(value) if isinstance(value, float) else value

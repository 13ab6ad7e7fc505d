"""A fix of MaxText's argv with a config file, written where each value was set: a key a file of
the chain sets is changed in that file (comments, order and layout kept, with ruamel.yaml's
round-trip mode), a value MaxText refuses in a file is removed from it (its parent's or the
default comes back, as dropping a refused token does), and every other change stays on argv.
MaxText's own config files are never edited.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flaglint.core.findings import Fix, InputError, Result
from flaglint.read.config_chain import PIN_LABEL
from flaglint.resolve.resolver import Config
from flaglint.rules.ruleset import load_ruleset

REMOVE = object()  # the key is deleted from the file


@dataclass
class FileFix:
    """The fix as edits of the user's config files and the argv left to change."""

    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # file -> key -> new value or REMOVE
    argv: str = ""


def _user_file(file: str | None) -> bool:
    return bool(file) and not file.startswith(f"{PIN_LABEL}/")


def file_fix(config: Config, result: Result, fix: Fix | None) -> FileFix:
    from flaglint.fix.flags import apply_edits

    out = FileFix()
    kept_edits = []
    for index, change in enumerate(fix.changes if fix else []):
        assignment = config.explicit.get(change.key)
        where = assignment.where if assignment is not None else None
        if assignment is not None and assignment.origin.startswith("yaml:") and where is not None and _user_file(where.file):
            out.files.setdefault(where.file, {})[change.key] = REMOVE if change.to is None else change.to
        elif index < len(fix.edits):
            kept_edits.append(fix.edits[index])
    rules = load_ruleset()
    for finding in result.findings:  # a value a file sets that MaxText refuses
        where, rule = finding.location, rules.by_id(finding.rule)
        if rule is not None and rule.refused_value and where is not None and _user_file(where.file) and finding.keys:
            out.files.setdefault(where.file, {}).setdefault(finding.keys[0], REMOVE)
    out.argv = apply_edits(config.source.text, kept_edits) if fix else config.source.text
    return out


def edit_yaml(text: str, changes: dict[str, Any], name: str) -> str:
    """The file's text with each key set to its new value (or removed), everything else as written."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a long line
    try:
        data = yaml.load(text)
    except YAMLError as err:
        raise InputError(f"{name}: cannot edit: {str(err).splitlines()[0]}") from None
    for key, value in changes.items():
        if value is REMOVE:
            data.pop(key, None)
        else:
            data[key] = value
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def write_file_fix(fixed: FileFix) -> list[str]:
    """Write each edited config file atomically; the files written."""
    from flaglint.fix.files import write_atomically
    from flaglint.read.flags import bom_length, read_text_file

    for file, changes in fixed.files.items():
        bom = Path(file).read_bytes()[: bom_length(file)]  # kept, as every fix keeps the file's encoding
        write_atomically(Path(file), bom + edit_yaml(read_text_file(file), changes, file).encode("utf-8"))
    return list(fixed.files)

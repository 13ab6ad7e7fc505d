"""A fix of MaxText's argv with a config file, made where each value was set: a key a file of the
chain sets is changed in that file (comments, order and layout kept, with ruamel.yaml's round-trip
mode), a value MaxText refuses in a file is removed from it (its parent's or the default comes
back, as dropping a refused token does), and every other change stays on argv. MaxText's own
config files are never edited. Each file's new text becomes byte edits of the file, which --fix
writes as it writes every fix (flaglint/fix/files.py).
"""

from __future__ import annotations

import io
from itertools import accumulate
from os.path import commonprefix
from typing import Any

from flaglint.core.edits import Applicability, Edit
from flaglint.core.findings import Change, Fix, InputError, Result
from flaglint.core.reading import CONFIG_FILE
from flaglint.fix.files import text_edits
from flaglint.fix.flags import apply_edits
from flaglint.read.config_chain import PIN_LABEL
from flaglint.read.flags import bom_length, read_text_file
from flaglint.resolve.resolver import Config
from flaglint.rules.ruleset import load_ruleset

REMOVE = object()  # the key is deleted from the file


def _user_file(file: str | None) -> bool:
    return bool(file) and not file.startswith(f"{PIN_LABEL}/")


def config_fix(config: Config, result: Result, fix: Fix | None) -> Fix | None:
    """`fix` (the fix of argv --fix chose, or None) made where each value was set, with the values
    the user's config files set that MaxText refuses removed from them: a Fix whose edits are
    edits of argv's characters and byte edits of the files; None when there is nothing to do.

    A refused value is removed whether or not a fix was chosen, as every fix drops a refused token
    (MaxText does not start with it): the edits have `fix`'s applicability, or are SAFE without one."""
    files: dict[str, dict[str, Any]] = {}  # file -> key -> new value or REMOVE
    changes = list(fix.changes) if fix else []
    argv_edits = []
    for index, change in enumerate(changes):
        assignment = config.explicit.get(change.key)
        where = assignment.where if assignment is not None else None
        if assignment is not None and assignment.origin.startswith("yaml:") and where is not None and _user_file(where.file):
            files.setdefault(where.file, {})[change.key] = REMOVE if change.to is None else change.to
        elif index < len(fix.edits):
            argv_edits.append(fix.edits[index])
    rules = load_ruleset()
    for finding in result.findings:  # a value a file sets that MaxText refuses
        where, rule = finding.location, rules.by_id(finding.rule)
        if rule is not None and rule.refused_value and where is not None and _user_file(where.file) and finding.keys:
            key, keys = finding.keys[0], files.setdefault(where.file, {})
            if key not in keys:
                keys[key] = REMOVE
                setting = config.chain.settings.get(key) if config.chain is not None else None
                changes.append(Change(key, setting.value if setting is not None and setting.file == where.file else None, None))
    if fix is None and not files:
        return None
    applicability = fix.applicability if fix else Applicability.SAFE
    argv = config.source.text
    flags = apply_edits(argv, argv_edits)
    edits = [*_edits_making(argv, flags), *(edit for edit in argv_edits if not edit.written)]
    for file, keys in files.items():
        text = read_text_file(file, CONFIG_FILE)
        edits += text_edits(file, text, _edits_making(text, edit_yaml(text, keys, file)), applicability, bom_length(file, CONFIG_FILE))
    return Fix(changes, flags, applicability, edits)


def _edits_making(text: str, new: str) -> list[Edit]:
    """Edits of `text` that make it `new`: one for each run of lines that differ, less the
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


def edit_yaml(text: str, changes: dict[str, Any], name: str) -> str:
    """The file's text with each key set to its new value (or removed), everything else as written."""
    from ruamel.yaml import YAML  # noqa: PLC0415 ruamel: only when a config file is fixed
    from ruamel.yaml.error import YAMLError  # noqa: PLC0415 ruamel, as above

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

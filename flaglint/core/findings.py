"""What every stage hands to the reporters: findings, their locations, and fixes.

The JSON contract (version 1) is built from these types by `Result.to_json`.
"""

from __future__ import annotations

from flaglint.core.edits import Applicability, Edit
from flaglint.core.location import Location
from flaglint.core.numbers import int_text
from flaglint.core.records import FrozenRecord, Record

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

SEVERITIES = ("info", "warning", "error")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


class Finding(Record):
    """One problem found: the rule, its wording, the keys and places involved.

    `reached_from`: a finding in a file several linted scripts source: those scripts. `stage`: a
    Tunix finding: when Tunix stops on it (start-up, after downloads) or that it never does."""

    __slots__ = field_names = ("rule", "severity", "message", "keys", "location", "related", "witness", "reached_from", "stage")

    def __init__(self, rule: str, severity: str, message: str, keys: tuple[str, ...] = (), location: Location | None = None,
                 related: tuple[Location, ...] = (), witness: dict[str, Any] | None = None, reached_from: tuple[str, ...] = (),
                 stage: str | None = None):
        self.rule = rule
        self.severity = severity
        self.message = message
        self.keys = keys
        self.location = location
        self.related = related
        self.witness = witness
        self.reached_from = reached_from
        self.stage = stage

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "keys": list(self.keys),
            "location": self.location.to_json() if self.location else None,
        }
        if self.related:
            out["related"] = [loc.to_json() for loc in self.related]
        if self.witness is not None:
            out["witness"] = self.witness
        if self.reached_from:
            out["reached_from"] = list(self.reached_from)
        if self.stage is not None:
            out["stage"] = self.stage
        return out


class Change(FrozenRecord):
    """One key's edit; `to` None means the token is dropped, `from_` None means it is appended."""

    __slots__ = field_names = ("key", "from_", "to")

    def __init__(self, key: str, from_: Any, to: Any):
        self.key = key
        self.from_ = from_
        self.to = to

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "from": _json_value(self.from_), "to": _json_value(self.to)}


_JSON_INT_BITS = 14_000  # about 4,200 decimal digits: json writes an int with str(), which stops at 4,300


def _json_value(value: Any) -> Any:
    """A key's value as JSON holds it: a YAML `!!binary` or `!!set` in a config (bytes, a set) as
    the text report shows it, since JSON has no such type."""
    if isinstance(value, (bytes, set, frozenset)):
        return repr(sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value)
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json_value(item) for key, item in value.items()}
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _JSON_INT_BITS:
        return int_text(value)  # past the digits Python writes: the YAML text of it, hexadecimal where it must be
    return value


class Fix(Record):
    """One way to remove findings: the key changes, the flag string after them, how --fix may make
    them (SAFE or UNSAFE, by the README's definition), and the edits that make them."""

    __slots__ = field_names = ("changes", "flags", "applicability", "edits")

    def __init__(self, changes: list[Change], flags: str, applicability: Applicability, edits: list[Edit] | None = None):
        self.changes = changes
        self.flags = flags
        self.applicability = applicability
        # Where the changes are made: in the checked flag string, or (lint, gate, a config file of
        # `check`) in the files that wrote it, with what must be done by hand.
        self.edits = [] if edits is None else edits

    def field_values(self) -> tuple:
        """The fields two equal fixes share: the same changes are the same fix, wherever its edits are made."""
        return self.changes, self.flags, self.applicability

    @property
    def safe(self) -> bool:
        """Whether --fix makes it without --unsafe-fixes (the JSON contract's `safe`)."""
        return self.applicability is Applicability.SAFE

    @property
    def placed(self) -> bool:
        """Whether the edits are of the file that wrote the flags (a script, a manifest), not of the flag string itself."""
        return any(edit.file is not None or not edit.written and edit.variable is None for edit in self.edits)

    def to_json(self) -> dict[str, Any]:
        out = {"changes": [c.to_json() for c in self.changes], "flags": self.flags, "safe": self.safe}
        if self.edits:
            out["edits"] = [edit.to_json() for edit in self.edits]
        return out


# The JSON contract of check, lint and gate (README "The JSON contract"). 2: a witness's branches
# are {"file", "line"} objects (1 gave a line number, or "file:line" for another file).
JSON_CONTRACT_VERSION = 2


class Result(Record):
    """What a check of one flag string found, and the fixes it offers."""

    __slots__ = field_names = ("pin", "findings", "fixes", "notes")

    def __init__(self, pin: str, findings: list[Finding] | None = None, fixes: list[Fix] | None = None, notes: list[str] | None = None):
        self.pin = pin
        self.findings = [] if findings is None else findings
        self.fixes = [] if fixes is None else fixes
        self.notes = [] if notes is None else notes

    def worst(self) -> int:
        return max((severity_rank(f.severity) for f in self.findings), default=-1)

    def fails(self, fail_on: str) -> bool:
        return self.worst() >= severity_rank(fail_on)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": JSON_CONTRACT_VERSION,
            "pin": self.pin,
            "findings": [f.to_json() for f in self.findings],
            "fixes": [f.to_json() for f in self.fixes],
        }
        if self.notes:
            out["notes"] = self.notes
        return out


class InputError(Exception):
    """Unreadable or unusable input: reported as one line, exit code 2."""

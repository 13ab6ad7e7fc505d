"""SARIF 2.1.0 for code scanning: one run, the rules that fired in tool.driver.rules, one result per finding."""

from __future__ import annotations

import hashlib
import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path, PurePath, PurePosixPath
from typing import Any
from urllib.parse import quote

from flaglint.core.findings import Finding
from flaglint.core.location import Location
from flaglint.report import Checked
from flaglint.report.rule_docs import rule_url, rules_by_id

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _version() -> str:
    try:
        return version("flaglint")
    except PackageNotFoundError:
        return "0+unknown"


def artifact_uri(path: str | None) -> str:
    """A URI reference for a path: relative paths stay relative (code scanning resolves them against the checkout)."""
    if path is None:
        return quote("<flags>")
    pure = PurePath(path)
    if pure.is_absolute():
        return "file://" + quote(pure.as_posix())
    return quote(PurePosixPath(*pure.parts).as_posix())


def _artifact(path: str | None) -> dict[str, Any]:
    """A relative path is relative to the checkout: %SRCROOT%, which code scanning resolves."""
    uri = artifact_uri(path)
    return {"uri": uri} if path is None or PurePath(path).is_absolute() else {"uri": uri, "uriBaseId": SRCROOT}


def _physical(location: Location, fallback: str | None) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": location.line, "startColumn": location.column}
    if location.end_line is not None and location.end_line != location.line:
        region["endLine"] = location.end_line
    if location.end_column > location.column or location.end_line not in (None, location.line):
        region["endColumn"] = location.end_column
    return {"artifactLocation": _artifact(location.file or fallback), "region": region}


def _fingerprint(finding: Finding, label: str | None) -> str:
    """Stable across runs and across edits elsewhere in the file: the rule, the file, the keys and
    the message, not the line number (code scanning follows a moved finding with it)."""
    file = (finding.location.file if finding.location else None) or label or ""
    text = "\0".join([finding.rule, file, ",".join(finding.keys), finding.message])
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _result(finding: Finding, label: str | None, rule_index: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index[finding.rule],
        "level": _LEVELS[finding.severity],
        "message": {"text": finding.message},
    }
    if finding.location is not None:
        out["locations"] = [{"physicalLocation": _physical(finding.location, label)}]
    else:
        out["locations"] = [{"physicalLocation": {"artifactLocation": _artifact(label)}}]
    out["partialFingerprints"] = {"flaglint/v1": _fingerprint(finding, label)}
    if finding.related:
        out["relatedLocations"] = [
            {"id": number, "physicalLocation": _physical(loc, label)} for number, loc in enumerate(finding.related, 1)
        ]
    return out


def _rule_entry(rule_id: str, docs: dict[str, Any], docs_url: str | None) -> dict[str, Any]:
    rule = docs.get(rule_id)
    if rule is None:
        return {"id": rule_id, "shortDescription": {"text": rule_id}}
    return {
        "id": rule_id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": rule.rationale + (f"\nFix: {rule.fix}" if rule.fix else "")},
        "helpUri": rule_url(rule_id, docs_url),
        "defaultConfiguration": {"level": _LEVELS[rule.severity]},
    }


def sarif_log(checked: list[Checked], docs_url: str | None = None) -> dict[str, Any]:
    """`docs_url`: the `docs-url` setting, where each rule's helpUri points."""
    pin = next((item.result.pin for item in checked if item.result.pin), "")
    fired = sorted({f.rule for item in checked for f in item.result.findings})
    docs = rules_by_id(pin) if fired else {}
    rule_index = {rule_id: number for number, rule_id in enumerate(fired)}
    results = [_result(f, item.label, rule_index) for item in checked for f in item.result.findings]
    notes = [note for item in checked for note in item.result.notes]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "flaglint", "version": _version(), "rules": [_rule_entry(r, docs, docs_url) for r in fired]}},
        "results": results,
        "invocations": [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [{"level": "note", "message": {"text": note}} for note in notes],
        }],
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri() + "/"}},
        "properties": {"pin": pin},
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(checked: list[Checked], docs_url: str | None = None) -> str:
    return json.dumps(sarif_log(checked, docs_url), indent=2)

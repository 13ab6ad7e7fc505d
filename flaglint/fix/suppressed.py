"""A suppressed finding gets no fix: `--ignore`, per-file ignores and a script's
`# flaglint: disable=RULE` leave a finding out of the report, and a fix that would change what it
is about is left out with it, so that --fix applies only what the report lists."""

from __future__ import annotations

from flaglint.core.edits import Edit
from flaglint.core.findings import Finding, Fix, Result
from flaglint.core.location import Location


def withhold_fixes_of(result: Result, suppressed: list[Finding]) -> None:
    """Take out of `result` every fix that edits a suppressed finding's span, or changes a key only
    suppressed findings are about; a note says which, and why, where a reported finding is left
    without it (with none reported, no fix is offered at all)."""
    if not suppressed or not result.fixes:
        return
    if not result.findings:
        result.fixes = []
        return
    reported_keys = {key for finding in result.findings for key in finding.keys}
    kept = []
    for fix in result.fixes:
        touched = next((finding for finding in suppressed if _touches(fix, finding, reported_keys)), None)
        if touched is None:
            kept.append(fix)
            continue
        where = f" at line {touched.location.line}" if touched.location else ""
        result.notes.append(f"a fix is not offered: it would change what the suppressed {touched.rule}{where} is about")
    result.fixes = kept


def _touches(fix: Fix, finding: Finding, reported_keys: set[str]) -> bool:
    if any(change.key in finding.keys and change.key not in reported_keys for change in fix.changes):
        return True
    return finding.location is not None and any(_overlaps(edit, finding.location) for edit in fix.edits)


def _overlaps(edit: Edit, span: Location) -> bool:
    shown = edit.shown().location
    if shown is None or shown.file and span.file and shown.file != span.file:
        return False
    start, end = (shown.line, shown.column), (shown.end_line or shown.line, shown.end_column or shown.column + 1)
    other_start = (span.line, span.column)
    other_end = (span.end_line or span.line, span.end_column or span.column + 1)
    return start < other_end and other_start < end or start == end and other_start <= start < other_end

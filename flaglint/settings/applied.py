"""The settings applied to a result: the rules selected (per file) and their severities, as every
front end reports them."""

from __future__ import annotations

from flaglint.fix.suppressed import withhold_fixes_of
from flaglint.settings.settings import rule_enabled


def apply_settings(result, settings, file: str | None = None):
    """Drop the findings the configuration does not select (per-file-ignores by the file each finding
    is in: a shared fragment a script sources is judged by its own path), and give each its
    configured severity."""

    selected = [f for f in result.findings if rule_enabled(settings, f.rule, _file_of(f, file))]
    suppressed = [f for f in result.findings if not any(f is kept for kept in selected)]
    result.findings = selected
    withhold_fixes_of(result, suppressed)
    for finding in result.findings:
        finding.severity = settings["severity"].get(finding.rule, finding.severity)
    if not result.findings:
        result.fixes = []  # a fix of findings the configuration does not report is not one to offer
    return result


def _file_of(finding, label: str | None) -> str | None:
    file = finding.location.file if finding.location and finding.location.file else label
    return None if file is None or file.startswith("<") else file

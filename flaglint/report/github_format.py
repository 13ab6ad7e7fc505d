"""GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation per finding.

Escaping follows the runner's rules: in the message `%`, CR and LF are percent-encoded; in a
property value `:` and `,` are too, since they separate properties.
"""

from __future__ import annotations

from flaglint.core.findings import Finding, Fix
from flaglint.report import Checked, describe_fix

_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _properties(finding: Finding, label: str | None) -> str:
    props: list[tuple[str, str]] = []
    loc = finding.location
    file = (loc.file if loc else None) or label
    if file:
        props.append(("file", file))
    if loc is not None:
        props += [("line", str(loc.line)), ("col", str(loc.column))]
        if loc.end_line is not None and loc.end_line != loc.line:
            props.append(("endLine", str(loc.end_line)))
        if loc.end_column > loc.column:
            props.append(("endColumn", str(loc.end_column)))
    props.append(("title", finding.rule))
    return ",".join(f"{key}={escape_property(value)}" for key, value in props)


def _fix_text(fixes: list[Fix]) -> str:
    if not fixes:
        return ""
    return "\n" + describe_fix(fixes[0])


def annotation(finding: Finding, label: str | None, fixes: list[Fix] = ()) -> str:
    relevant = [fix for fix in fixes if {c.key for c in fix.changes} & set(finding.keys)]
    message = finding.message + _fix_text(relevant)
    return f"::{_COMMANDS[finding.severity]} {_properties(finding, label)}::{escape_data(message)}"


def render(checked: list[Checked]) -> str:
    out: list[str] = []
    counts = {"error": 0, "warning": 0, "info": 0}
    for item in checked:
        for finding in item.result.findings:
            counts[finding.severity] += 1
            out.append(annotation(finding, item.label, item.result.fixes))
        out.extend(f"::notice title=flaglint::{escape_data(note)}" for note in item.result.notes)
    out.append(f"flaglint: {counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    return "\n".join(out)

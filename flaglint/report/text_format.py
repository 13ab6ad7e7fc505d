"""Text for people: each finding with its source line and a caret under the span, then the fixes."""

from __future__ import annotations

from ..findings import Finding, Fix, PlacedEdit, severity_rank
from . import Checked, describe_fix


def _excerpt(text: str, finding: Finding) -> list[str]:
    loc = finding.location
    lines = text.splitlines()
    if loc is None or not 1 <= loc.line <= len(lines):
        return []
    line = lines[loc.line - 1]
    start = loc.column - 1
    width = max(1, min(loc.end_column, len(line) + 1) - loc.column)
    # Long flag strings: show a window around the span, not the whole line.
    left = max(0, start - 40)
    right = min(len(line), start + width + 40)
    prefix = "..." if left else ""
    suffix = "..." if right < len(line) else ""
    shown = prefix + line[left:right] + suffix
    caret = " " * (len(prefix) + start - left) + "^" * min(width, right - start)
    return [f"    {shown}", f"    {caret}"]


def _fix_lines(number: int, fix: Fix, hint: str | None) -> list[str]:
    if fix.placed:
        return [f"  {number}. {describe_fix(fix)}", *(f"    {_placed_line(edit)}" for edit in fix.placed),
                *([f"    {hint}"] if hint else [])]
    return [f"  {number}. {describe_fix(fix)}", f"    {hint}" if hint else f"    fixed flags: {fix.flags}"]


def _placed_line(edit: PlacedEdit) -> str:
    if edit.location is None and not edit.name:
        return f"by hand: {edit.new}"
    if edit.location is None:
        return f"set {edit.name}={edit.new} (it is not set in the file)" if edit.new else f"unset {edit.name}"
    where = f"{edit.location.file}:{edit.location.line}:{edit.location.column}"
    if edit.name:
        return f"{where}: {edit.name}: {edit.old!r} -> {edit.new!r}" if edit.new else f"{where}: unset {edit.name} (remove its entry)"
    if not edit.old:
        return f"{where}: insert {edit.new!r}"
    if not edit.new:
        return f"{where}: delete {edit.old!r}"
    return f"{where}: {edit.old!r} -> {edit.new!r}"


def render(checked: list[Checked]) -> str:
    out: list[str] = []
    counts = {"error": 0, "warning": 0, "info": 0}
    for item in checked:
        label = item.label or "<flags>"
        for finding in sorted(item.result.findings, key=lambda f: (-severity_rank(f.severity), f.location.line if f.location else 0)):
            counts[finding.severity] += 1
            where = f"{finding.location.file or label}:{finding.location.line}:{finding.location.column}" if finding.location else label
            out.append(f"{where}: {finding.severity} {finding.rule} {finding.message}")
            out.extend(_excerpt(item.text, finding) if not finding.location or not finding.location.file or finding.location.file == item.label else [])
            for related in finding.related:
                out.append(f"    also at {related.file or label}:{related.line}:{related.column}")
            if finding.witness:
                out.append(_witness_line(finding.witness))
        for number, fix in enumerate(item.result.fixes, 1):
            out.extend(_fix_lines(number, fix, item.fix_hint))
        out.extend(f"  note: {note}" for note in item.result.notes)
    total = sum(counts.values())
    out.append("no findings" if total == 0 else f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    return "\n".join(out)


def _witness_line(witness: dict) -> str:
    env = " ".join(f"{k}={'(unset)' if v is None else v}" for k, v in witness.get("env", {}).items())
    branches = ", ".join(str(b) for b in witness.get("branches", [])) or "none"
    return f"    when: {env or '(any environment)'}; branches taken at lines {branches}"

"""Stage 5, report: one formatter module per output format, all reading the same `Checked` list."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from ..findings import Change, Fix, Result

FORMATS = ("text", "json", "sarif", "github", "junit")


@dataclass
class Checked:
    """One checked input: its label (a file path, or None for a command-line string), its text, and the result.
    `fix_hint`: how the fixes reach a file, said instead of the whole fixed flag string (scripts)."""

    label: str | None
    text: str
    result: Result
    fix_hint: str | None = None


def merged(checked: list[Checked]) -> Result:
    if len(checked) == 1:
        return checked[0].result
    result = Result(pin=checked[0].result.pin if checked else "")
    for item in checked:
        result.findings.extend(item.result.findings)
        result.fixes.extend(item.result.fixes)
        result.notes.extend(item.result.notes)
    return result


def render(format_name: str, checked: list[Checked]) -> str:
    return import_module(f"{__name__}.{format_name}_format").render(checked)


def describe_fix(fix: Fix) -> str:
    """`fix (safe): a: true -> false, drop b=1, add c=2`, the changes as a user would write them."""
    return f"fix ({'safe' if fix.safe else 'unsafe'}): " + ", ".join(_describe_change(c) for c in fix.changes)


def _describe_change(change: Change) -> str:
    from ..solve import format_value

    if change.to is None:
        return f"drop {change.key}" + ("" if change.from_ is None else f"={format_value(change.from_)}")
    if change.from_ is None:
        return f"add {change.key}={format_value(change.to)}"
    return f"{change.key}: {format_value(change.from_)} -> {format_value(change.to)}"

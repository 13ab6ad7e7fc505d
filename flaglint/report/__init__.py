"""Stage 5, report: one formatter module per output format, all reading the same `Checked` list."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

from ..findings import Result

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

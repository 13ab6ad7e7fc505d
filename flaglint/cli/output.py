"""Settings applied to results, and the report printed with its exit code."""

from __future__ import annotations

import sys

import click

from ..report import Checked, render


def apply_settings(result, settings, file: str | None = None):
    """Drop the findings the configuration does not select (per-file-ignores by the file each finding
    is in: a shared fragment a script sources is judged by its own path), and give each its
    configured severity."""
    from ..config import rule_enabled

    result.findings = [f for f in result.findings if rule_enabled(settings, f.rule, _file_of(f, file))]
    for finding in result.findings:
        finding.severity = settings["severity"].get(finding.rule, finding.severity)
    return result


def emit(output_format: str, checked: list[Checked], settings) -> None:
    click.echo(render(output_format, checked))
    if any(item.result.fails(settings["fail-on"]) for item in checked):
        sys.exit(1)


def _file_of(finding, label: str | None) -> str | None:
    file = finding.location.file if finding.location and finding.location.file else label
    return None if file is None or file.startswith("<") else file

"""Settings applied to results, and the report printed with its exit code."""

from __future__ import annotations

import sys

import click

from ..report import Checked, render


def apply_settings(result, settings, file: str | None = None):
    """Drop the findings the configuration does not select, and give each its configured severity."""
    from ..config import rule_enabled

    result.findings = [f for f in result.findings if rule_enabled(settings, f.rule, file)]
    for finding in result.findings:
        finding.severity = settings["severity"].get(finding.rule, finding.severity)
    return result


def emit(output_format: str, checked: list[Checked], settings) -> None:
    click.echo(render(output_format, checked))
    if any(item.result.fails(settings["fail-on"]) for item in checked):
        sys.exit(1)

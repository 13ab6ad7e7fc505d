"""`flaglint rules`: every rule as a table sorted by id (id, severity, pins, title), or JSON."""

from __future__ import annotations

import json

import click

from flaglint.pins.pins import load_pin
from flaglint.report.rule_docs import pins_cell, rule_catalogue
from flaglint.report.tables import table


@click.command("rules")
@click.option("--pin", help="Only the rules that apply at this pin.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def list_rules(pin, output_format):
    """List every rule, sorted by id: its severity, the pins it applies at and its title."""

    pin_schema = load_pin(pin) if pin else None
    listed = [entry for entry in rule_catalogue(pin_schema).values()
              if pin_schema is None or entry.pins is None or any(p in pin_schema.chain for p in entry.pins)]
    if output_format == "json":
        rows = [{"id": e.rule.id, "severity": e.rule.severity, "pins": list(e.pins) if e.pins else None, "title": e.rule.title}
                for e in listed]
        click.echo(json.dumps({"version": 1, "pin": pin_schema.pin if pin_schema else None, "rules": rows}, indent=2))
        return
    for line in table(("id", "severity", "pins", "title"),
                      [(e.rule.id, e.rule.severity, pins_cell(e.pins), e.rule.title) for e in listed]):
        click.echo(line)


"""`flaglint rules`: every rule, one line each."""

from __future__ import annotations

import click

from flaglint.pins.pins import load_pin
from flaglint.rules.ruleset import load_ruleset


@click.command("rules")
@click.option("--pin", help="Only the rules that apply at this pin.")
def list_rules(pin):
    """List every rule: id, severity, title."""

    pin_schema = load_pin(pin) if pin else None
    ruleset = load_ruleset(pin_schema.rules if pin_schema else "0.2.5")
    for rule in ruleset.rules:
        if pin_schema is None or rule.applies_to(pin_schema.chain):
            click.echo(f"{rule.id:8} {rule.severity:8} {rule.title}")

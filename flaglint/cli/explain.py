"""`flaglint explain RULE`: one rule's documentation, from the registry (rules/*.yml) or a Tunix pin's rules."""

from __future__ import annotations

import json

import click

from flaglint.core.findings import InputError
from flaglint.report.rule_docs import explain_rule, rule_json
from flaglint.rules.ruleset import load_ruleset
from flaglint.tunix.pins import known_tunix_pins, load_tunix_pin


@click.command()
@click.argument("rule_id")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def explain(rule_id, output_format):
    """Show a rule's title, rationale, examples, fix and source."""

    rule = load_ruleset("0.2.5").by_id(rule_id.upper())
    if rule is None and rule_id.upper().startswith("TX"):  # a Tunix release's imported check: the newest that has it
        rule = next((r for pin in reversed(known_tunix_pins()) for r in load_tunix_pin(pin).rules if r.id == rule_id.upper()), None)
    if rule is None:
        raise InputError(f"no rule {rule_id!r}; `flaglint rules` lists them")
    click.echo(json.dumps(rule_json(rule), indent=2) if output_format == "json" else explain_rule(rule))

"""`flaglint explain RULE`: one rule's documentation, from the registry (rules/*.yml)."""

from __future__ import annotations

import json

import click

from flaglint.core.findings import InputError
from flaglint.report.rule_docs import explain_rule, rule_json
from flaglint.rules.ruleset import load_ruleset


@click.command()
@click.argument("rule_id")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def explain(rule_id, output_format):
    """Show a rule's title, rationale, examples, fix and source."""

    rule = load_ruleset("0.2.5").by_id(rule_id.upper())
    if rule is None:
        raise InputError(f"no rule {rule_id!r}; `flaglint rules` lists them")
    click.echo(json.dumps(rule_json(rule), indent=2) if output_format == "json" else explain_rule(rule))

"""`flaglint explain RULE`: one rule's documentation."""

from __future__ import annotations

import click

from ..findings import InputError


@click.command()
@click.argument("rule_id")
def explain(rule_id):
    """Show a rule's title, rationale, examples, fix and source."""
    from ..docs import explain_rule
    from ..ruleset import load_ruleset

    rule = load_ruleset("0.2.5").by_id(rule_id.upper())
    if rule is None:
        raise InputError(f"no rule {rule_id!r}; `flaglint rules` lists them")
    click.echo(explain_rule(rule))

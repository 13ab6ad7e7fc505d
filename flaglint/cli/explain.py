"""`flaglint explain RULE [--pin PIN]`: one rule's documentation, from the registry (rules/*.yml),
MaxText's imported validators or a Tunix pin's rules."""

from __future__ import annotations

import json
import re

import click

from flaglint.core.findings import InputError
from flaglint.pins.pins import load_pin
from flaglint.report.rule_docs import (
    explain_not_judged,
    explain_rule,
    not_judged_check,
    not_judged_json,
    pins_cell,
    rule_at,
    rule_catalogue,
    rule_json,
)
from flaglint.rules.ruleset import RENUMBERED_ID, Renumbering, renumbered_ids
from flaglint.settings.settings import load_settings, renumbering
from flaglint.tunix.pins import known_tunix_pins, load_tunix_pin


@click.command()
@click.argument("rule_id")
@click.option("--pin", help="The rule as it is at this MaxText pin (default: the newest pin that has it).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def explain(rule_id, pin, output_format):
    """Show a rule's title, rationale, condition, examples, fix and source."""

    rule_id = rule_id.upper()
    pin_schema = load_pin(pin) if pin else None
    if re.fullmatch(RENUMBERED_ID, rule_id):
        table = (Renumbering(renumbered_ids(pin_schema.rules), pin_schema.pin) if pin_schema is not None and rule_id.startswith("MX")
                 else renumbering(load_settings(), rule_id))
        if rule_id in table.ids:
            click.echo(f"flaglint: warning: explain: {table.warning(rule_id)}", err=True)
            rule_id = table.ids[rule_id]
    listed = rule_catalogue(pin_schema).get(rule_id)
    if listed is not None and pin_schema is not None:
        elsewhere = listed
        listed = rule_at(rule_id, pin_schema)
        if listed is None:
            raise InputError(f"{rule_id} is not a rule at {pin_schema.pin}: it is at {pins_cell(elsewhere.pins)}; "
                             f"`flaglint rules --pin {pin_schema.pin}` lists the rules there")
    rule = listed.rule if listed else None
    if rule is None and rule_id.startswith("TX"):  # a Tunix release's imported check: the newest that has it
        rule = next((r for tunix in reversed(known_tunix_pins()) for r in load_tunix_pin(tunix).rules if r.id == rule_id), None)
    if rule is None and (unstated := not_judged_check(rule_id, pin_schema)) is not None:  # named by FL016
        entry, pins = unstated
        click.echo(json.dumps(not_judged_json(entry, pins), indent=2) if output_format == "json" else explain_not_judged(entry, pins))
        return
    if rule is None:
        raise InputError(f"no rule {rule_id!r}; `flaglint rules` lists them")
    click.echo(json.dumps(rule_json(rule, listed), indent=2) if output_format == "json" else explain_rule(rule, listed))

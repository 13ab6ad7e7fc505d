"""`flaglint schema`: `schema import` lives with the pins it registers; `schema export` writes a
pin's config files as a JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import click

from flaglint.cli.group import WholeSentenceGroup
from flaglint.cli.pins import schema_import
from flaglint.core.findings import InputError
from flaglint.pins.pins import load_pin
from flaglint.report.json_schema import maxtext_schema, tunix_schema
from flaglint.settings.settings import load_settings
from flaglint.tunix.pins import known_tunix_pins, load_tunix_pin


@click.group(cls=WholeSentenceGroup)
def schema():
    """Typed key schemas: import a MaxText or Tunix tree as a pin, export a pin as a JSON Schema."""


schema.add_command(schema_import)


@schema.command("export")
@click.option("--pin", help="The MaxText pin (default: the project's), or a Tunix pin (tunix-0.1.7).")
@click.option("--tunix-pin", help="The Tunix pin whose base config to export (tunix-0.1.0 ... tunix-0.1.7).")
@click.option("--format", "output_format", type=click.Choice(["json-schema"]), default="json-schema", show_default=True,
              help="Output format: JSON Schema, draft 2020-12.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the schema to this file instead of stdout.")
def schema_export(pin, tunix_pin, output_format, output):
    """Write the pin's config files as a JSON Schema, for YAML editors: every key with its type,
    choices and default; a key the pin does not define is refused."""
    if pin and tunix_pin:
        raise InputError("--pin and --tunix-pin each name the pin to export; give one")
    settings = load_settings()
    if tunix_pin or (pin and pin in known_tunix_pins()):
        document = tunix_schema(load_tunix_pin(tunix_pin or pin))
    else:
        document = maxtext_schema(load_pin(pin or settings["pin"]))
    text = json.dumps(document, indent=2) + "\n"
    if not output:
        click.echo(text, nl=False)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"{output}: cannot write ({err.strerror or err})") from None
    click.echo(f"wrote {output}")

"""`flaglint schema`: typed key schemas; `schema import` lives with the pins it registers."""

from __future__ import annotations

import click

from flaglint.cli.group import WholeSentenceGroup
from flaglint.cli.pins import schema_import


@click.group(cls=WholeSentenceGroup)
def schema():
    """Typed key schemas."""


schema.add_command(schema_import)

"""`flaglint schema import`: typed key schemas (and MaxText's validators as rules) from a MaxText tree."""

from __future__ import annotations

import click


@click.group()
def schema():
    """Typed key schemas."""


@schema.command("import")
@click.argument("path", type=click.Path(exists=True))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the schema JSON here.")
@click.option("--rules", "rules_dir", type=click.Path(file_okay=False), help="Also write MaxText's validators as rules into this folder (rules/maxtext/<version>).")
def schema_import(path, output, rules_dir):
    """Read a MaxText source tree, wheel or installed package (without importing it)."""
    from ..schema.importer import import_schema, schema_summary, write_schema

    imported = import_schema(path)
    click.echo(schema_summary(imported))
    if output:
        write_schema(imported, output)
        click.echo(f"wrote {output}")
    if rules_dir:
        from ..schema.validators import summary, write_rules

        click.echo(summary(write_rules(path, rules_dir)))
        click.echo(f"wrote {rules_dir}")

"""`flaglint schema import`, `flaglint pins` and `flaglint pins diff`: MaxText versions as pins."""

from __future__ import annotations

import click

from flaglint.pins.pindiff import diff_pins
from flaglint.pins.pins import known_pins, load_pin
from flaglint.settings.settings import load_settings


@click.command("import")
@click.argument("path", type=click.Path(exists=True))
@click.option("--store", "where", type=click.Choice(["user", "project"]), default="user", show_default=True,
              help="user: $XDG_CACHE_HOME/flaglint/pins; project: the folder pin-store names in [tool.flaglint].")
@click.option("--name", help="Register under this name instead of maxtext-X.Y.Z or the git commit.")
@click.option("--replace", is_flag=True, help="Replace a different import already registered under the name.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Only write the schema JSON here (no store).")
@click.option("--rules", "rules_dir", type=click.Path(file_okay=False),
              help="Only write MaxText's validators as rules into this folder (rules/maxtext/<version>; no store).")
def schema_import(path, where, name, replace, output, rules_dir):
    """Read a MaxText source tree, wheel or installed package (never importing it) and register it as a pin."""
    if output or rules_dir:
        _write_files(path, output, rules_dir)
        return
    load_settings()  # a bad [tool.flaglint] is exit 2 here too: the project store is one of its settings
    from flaglint.pins.register import register  # noqa: PLC0415 the importer: only for `schema import`

    for line in register(path, where, name=name, replace=replace).lines:
        click.echo(line)


def _write_files(path: str, output: str | None, rules_dir: str | None) -> None:
    from flaglint.importer.importer import import_schema, schema_summary, write_schema  # noqa: PLC0415 the importer: only for `schema import`

    imported = import_schema(path)
    click.echo(schema_summary(imported))
    if output:
        write_schema(imported, output)
        click.echo(f"wrote {output}")
    if rules_dir:
        from flaglint.importer.validators import summary, write_rules  # noqa: PLC0415 the importer: only for `schema import`

        click.echo(summary(write_rules(path, rules_dir, schema=imported)))
        click.echo(f"wrote {rules_dir}")


@click.group(invoke_without_command=True)
@click.pass_context
def pins(ctx):
    """List every pin (bundled releases, fork overlays, imports in the pin stores) and where it comes from."""
    load_settings()  # as for `schema import`: the project's pin store is one of its settings
    if ctx.invoked_subcommand is not None:
        return

    names = known_pins()
    width = max(map(len, names))
    for name in names:
        click.echo(f"{name:{width}}  {load_pin(name).origin}")


@pins.command("diff")
@click.argument("old")
@click.argument("new")
def pins_diff(old, new):
    """What changes from pin OLD to pin NEW: keys added, removed and retyped, defaults, validators."""

    for line in diff_pins(old, new):
        click.echo(line)

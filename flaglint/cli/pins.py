"""`flaglint schema import`, `flaglint pins` and `flaglint pins diff`: MaxText and Tunix versions as pins."""

from __future__ import annotations

import click

from flaglint.core.findings import InputError
from flaglint.pins.pindiff import diff_pins
from flaglint.pins.pins import known_pins, load_pin
from flaglint.settings.settings import load_settings
from flaglint.tunix.pins import (
    bundled_tunix_pins,
    known_tunix_pins,
    load_tunix_pin,
    tunix_store,
)


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
    """Read a MaxText source tree, wheel or installed package, or a Tunix source tree (never
    importing it), and register it as a pin."""
    from flaglint.importer.tunix import is_tunix_tree  # noqa: PLC0415 the importer: only for `schema import`

    if is_tunix_tree(path):
        _import_tunix(path, name, replace, output, rules_dir)
        return
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


def _import_tunix(path: str, name: str | None, replace: bool, output: str | None, rules_dir: str | None) -> None:
    """A Tunix source tree: its files (-o, --rules), else an entry of the Tunix pin store."""
    import shutil  # noqa: PLC0415 shutil: only to replace a store entry

    from flaglint.importer.tunix import import_tunix, tunix_summary, write_tunix  # noqa: PLC0415 the importer: only for `schema import`

    imported = import_tunix(path)
    click.echo(tunix_summary(imported))
    if output or rules_dir:
        write_tunix(imported, output, rules_dir)
        click.echo(f"wrote {', '.join(p for p in (output, rules_dir) if p)}")
        return
    pin = name or f"tunix-{imported.version}"
    if pin in bundled_tunix_pins():
        raise InputError(f"{pin} is bundled; register this tree under another name (--name)")
    entry = tunix_store() / pin
    if entry.exists() and not replace:
        raise InputError(f"{entry} exists; --replace replaces it")
    shutil.rmtree(entry, ignore_errors=True)
    write_tunix(imported, entry / "schema.json", entry / "rules")
    click.echo(f"registered Tunix pin {pin} ({entry}); use it with --tunix-pin {pin}")


@click.group(invoke_without_command=True)
@click.pass_context
def pins(ctx):
    """List every pin (bundled releases, fork overlays, imports in the pin stores) and where it comes from."""
    load_settings()  # as for `schema import`: the project's pin store is one of its settings
    if ctx.invoked_subcommand is not None:
        return

    names = known_pins()
    tunix = known_tunix_pins()
    width = max(map(len, [*names, *tunix]))
    for name in names:
        click.echo(f"{name:{width}}  {load_pin(name).origin}")
    for name in tunix:
        click.echo(f"{name:{width}}  {load_tunix_pin(name).origin}")


@pins.command("diff")
@click.argument("old")
@click.argument("new")
def pins_diff(old, new):
    """What changes from pin OLD to pin NEW: keys added, removed and retyped, defaults, validators."""

    for line in diff_pins(old, new):
        click.echo(line)

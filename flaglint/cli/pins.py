"""`flaglint schema import`, `flaglint pins` and `flaglint pins diff`: MaxText and Tunix versions as pins."""

from __future__ import annotations

import json
import re

import click

from flaglint.cli.group import WholeSentenceGroup
from flaglint.core.findings import InputError
from flaglint.core.progress import Progress
from flaglint.pins.pindiff import PinDiff, diff_pins
from flaglint.pins.pins import known_pins, load_pin
from flaglint.report.tables import table
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

    with Progress() as progress:
        progress.step(f"reading the config keys of {path}")
        imported = import_schema(path)
    click.echo(schema_summary(imported))
    if output:
        write_schema(imported, output)
        click.echo(f"wrote {output}")
    if rules_dir:
        from flaglint.importer.validators import summary, write_rules  # noqa: PLC0415 the importer: only for `schema import`

        with Progress() as progress:
            progress.step(f"importing MaxText's validators from {path}")
            counts = write_rules(path, rules_dir, schema=imported)
        click.echo(summary(counts))
        click.echo(f"wrote {rules_dir}")


def _import_tunix(path: str, name: str | None, replace: bool, output: str | None, rules_dir: str | None) -> None:
    """A Tunix source tree: its files (-o, --rules), else an entry of the Tunix pin store."""
    import shutil  # noqa: PLC0415 shutil: only to replace a store entry

    from flaglint.importer.tunix import import_tunix, tunix_summary, write_tunix  # noqa: PLC0415 the importer: only for `schema import`

    with Progress() as progress:
        progress.step(f"importing the Tunix tree {path}")
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


@click.group(cls=WholeSentenceGroup, invoke_without_command=True)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
@click.pass_context
def pins(ctx, output_format):
    """List every pin (bundled releases, fork overlays, imports in the pin stores) and where it comes from."""
    load_settings()  # as for `schema import`: the project's pin store is one of its settings
    if ctx.invoked_subcommand is not None:
        return

    rows = [("MaxText", name, load_pin(name).version, load_pin(name).origin) for name in known_pins()]
    rows += [("Tunix", name, load_tunix_pin(name).version, load_tunix_pin(name).origin) for name in known_tunix_pins()]
    listed = [{"pin": name, "program": program, "version": version, **_origin(origin)} for program, name, version, origin in rows]
    if output_format == "json":
        click.echo(json.dumps({"version": 1, "pins": listed}, indent=2))
        return
    for line in table(("pin", "program", "version", "kind", "extends", "about"),
                      [(p["pin"], p["program"], p["version"], p["kind"], p["extends"] or "", p["about"]) for p in listed]):
        click.echo(line)


_OVERLAY = re.compile(r"overlay \((?P<file>.+?)\) on (?P<extends>\S+): (?P<title>.*)")
_BUNDLED = re.compile(r"bundled \((?P<file>.+)\)")


def _origin(origin: str) -> dict[str, str | None]:
    """A pin's origin (PinSchema.origin) as the table's columns: its kind, the pin it extends, and
    what it is (an overlay's title, a bundled file, a store's import)."""
    if overlay := _OVERLAY.fullmatch(origin):
        return {"kind": "fork overlay", "extends": overlay["extends"], "about": overlay["title"], "file": overlay["file"]}
    if bundled := _BUNDLED.fullmatch(origin):
        return {"kind": "release", "extends": None, "about": f"bundled ({bundled['file']})", "file": bundled["file"]}
    store, _, about = origin.partition(": ")
    return {"kind": store, "extends": None, "about": about, "file": None}


@pins.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def pins_diff(old, new, output_format):
    """What changes from pin OLD to pin NEW (two MaxText pins, or two Tunix pins tunix-X.Y.Z): keys
    added, removed and retyped, defaults, validators."""

    changes = diff_pins(old, new)
    if output_format == "json":
        click.echo(json.dumps(changes.to_json(), indent=2, default=str))
        return
    for line in _diff_lines(changes):
        click.echo(line)


def _diff_lines(changes: PinDiff) -> list[str]:
    """The counts first, then each list as a table of its own."""
    lines = [f"{changes.old} -> {changes.new}", ""]
    lines += table(("change", "count"), [(name, str(count)) for name, count in changes.counts().items()])
    sections = [
        ("keys added", ("key",), [(k,) for k in changes.keys_added]),
        ("keys removed", ("key",), [(k,) for k in changes.keys_removed]),
        ("keys retyped", ("key", "field", "change"), [(k, c.field, c.text()) for k, cs in changes.keys_retyped for c in cs]),
        ("defaults changed", ("key", "change"), [(k, c.text()) for k, c in changes.defaults_changed]),
        ("validators added", ("id", "function", "title"), [(v.id, v.source, v.title) for v in changes.validators_added]),
        (f"validators changed ({changes.changed_means})", ("old id", "new id", "function", "title"),
         [(old.id, new.id, new.source, new.title) for old, new in changes.validators_changed]),
        ("validators removed", ("id", "function", "title"), [(v.id, v.source, v.title) for v in changes.validators_removed]),
    ]
    for title, headers, rows in sections:
        if rows:
            lines += ["", f"{title}:", *table(headers, rows, indent="  ")]
    return lines

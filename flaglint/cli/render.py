"""`flaglint render SCRIPT`: the variables a recipe exports for one environment (never run)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from flaglint.core.findings import InputError
from flaglint.read.flags import read_env_assignments
from flaglint.render.bash.types import OTHER, ScriptError
from flaglint.render.recipes import render as render_bash


@click.command("render")
@click.argument("script", type=click.Path(dir_okay=False))
@click.option("--env", "env_items", multiple=True, metavar="K=V", help="An input variable (repeatable).")
@click.option("--env-file", type=click.Path(dir_okay=False), help="KEY=VALUE lines of input variables.")
@click.option("--arg", "script_args", multiple=True, metavar="VALUE", help="An argument of the script, in order (repeatable).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def render_script(script, env_items, env_file, script_args, output_format):
    """Print the variables SCRIPT exports for one environment and arguments, without running it."""

    env = read_env_assignments(env_items, env_file)
    try:
        rendering = render_bash(Path(script), env, args=script_args)
    except ScriptError as err:
        raise InputError(str(err)) from None
    # a value this script leaves unknown (an input's other values, a command substitution's output)
    exported = {name: value.text.replace(OTHER, "<unknown>") for name, value in sorted(rendering.exported.items())}
    if output_format == "json":
        click.echo(json.dumps({"version": 1, "env": exported}, indent=2))
    else:
        for name, value in exported.items():
            click.echo(f"{name}={value}")
    for note in rendering.notes:
        click.echo(f"note: {note.file}:{note.line}: {note.message}", err=True)
    for note in rendering.unfound:
        click.echo(f"note: {note.file}:{note.line}: not followed: {note.message}", err=True)

"""`flaglint render SCRIPT`: the variables a recipe exports for one environment (never run)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import click

from flaglint.cli.inputs import STDIN
from flaglint.core.findings import InputError
from flaglint.core.reading import SCRIPT, read_file, read_stdin
from flaglint.read.flags import read_env_assignments
from flaglint.render.bash.types import OTHER, ScriptError
from flaglint.render.recipes import render as render_bash


@click.command("render")
@click.argument("script")
@click.option("--env", "env_items", multiple=True, metavar="K=V", help="An input variable (repeatable).")
@click.option("--env-file", metavar="FILE", help="KEY=VALUE lines of input variables.")
@click.option("--arg", "script_args", multiple=True, metavar="VALUE", help="An argument of the script, in order (repeatable).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def render_script(script, env_items, env_file, script_args, output_format):
    """Print the variables SCRIPT (`-`: stdin) exports for one environment and arguments, without
    running it, as `export NAME=VALUE` lines a shell can source."""

    env = read_env_assignments(env_items, env_file)
    text = read_stdin(SCRIPT) if script == STDIN else read_file(script, SCRIPT)
    try:
        rendering = render_bash(Path("<stdin>" if script == STDIN else script), env, text, args=script_args)
    except ScriptError as err:
        raise InputError(str(err)) from None
    # a value this script leaves unknown (an input's other values, a command substitution's output)
    exported = {name: value.text.replace(OTHER, "<unknown>") for name, value in sorted(rendering.exported.items())}
    if output_format == "json":
        click.echo(json.dumps({"version": 1, "env": exported}, indent=2))
    else:
        for name, value in sorted(rendering.exported.items()):
            if OTHER in value.text:  # sourced, a made-up value would pass for the script's
                click.echo(f"# {name}={exported[name]}: not known without running the script")
            else:
                click.echo(f"export {name}={shlex.quote(value.text)}")
    for note in rendering.notes:
        click.echo(f"note: {note.file}:{note.line}: {note.message}", err=True)
    for note in rendering.unfound:
        click.echo(f"note: {note.file}:{note.line}: not followed: {note.message}", err=True)

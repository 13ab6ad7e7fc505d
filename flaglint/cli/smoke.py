"""`flaglint smoke`: the bundled trainer core at toy sizes, with the settings some variables select."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from flaglint.core.findings import InputError
from flaglint.core.progress import Progress
from flaglint.read.flags import read_env_assignments
from flaglint.render.bash.types import ScriptError
from flaglint.render.recipes import render as render_bash


@click.command()
@click.argument("flags", nargs=-1)
@click.option("--env", "env_items", multiple=True, metavar="K=V", help="A Tunix variable that selects a head or packer setting (repeatable).")
@click.option("--env-file", type=click.Path(dir_okay=False), help="KEY=VALUE lines of Tunix variables.")
@click.option("--recipe", type=click.Path(dir_okay=False), help="Take the variables this recipe exports with --env (rendered, never run).")
def smoke(flags, env_items, env_file, recipe):
    """Run the bundled trainer core at toy sizes with the settings these variables select.

    The head and packer settings are Tunix variables (TUNIX_LOGPS_SHARDED_HEAD,
    COMPUTE_LOGPS_CHUNK_SIZE, PACK_PAD_POSITION, PACK_PAD_ALIGN, ...); FLAGS are accepted for
    symmetry with `check` and do not change them.
    """

    env = read_env_assignments(env_items, env_file)
    if recipe:
        try:
            env = {name: value.text for name, value in render_bash(Path(recipe), env).exported.items()}
        except ScriptError as err:
            raise InputError(str(err)) from None
    with Progress() as progress:
        progress.step("loading JAX")
        try:
            from flaglint.trainer.smoke import run_smoke  # noqa: PLC0415 jax: the trainer core runs on it
        except ImportError as err:
            raise InputError(f"flaglint smoke needs the trainer extra (pip install 'flaglint[trainer]'): {err}") from None
        progress.step("running the log-prob head and the packer at toy sizes")
        problems = run_smoke(env)
    for problem in problems:
        click.echo(f"smoke: {problem}")
    if problems:
        sys.exit(1)
    click.echo("smoke: head and packer pass with these settings")

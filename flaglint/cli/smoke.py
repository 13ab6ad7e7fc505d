"""`flaglint smoke`: the bundled trainer core at toy sizes, with the settings some variables select."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from flaglint.cli.output import shown_path
from flaglint.core.findings import InputError, Result
from flaglint.core.location import Location
from flaglint.core.progress import Progress
from flaglint.core.reading import ENV_FILE, SCRIPT, read_file
from flaglint.read.flags import dotenv_lines, read_env_assignments, read_text_file
from flaglint.render.bash.types import ScriptError
from flaglint.render.recipes import render as render_bash
from flaglint.report import FORMATS, Checked, render
from flaglint.rules.ruleset import built_in
from flaglint.trainer.settings import read_settings


@click.command()
@click.option("--env", "env_items", multiple=True, metavar="K=V", help="A Tunix variable that selects a head or packer setting (repeatable).")
@click.option("--env-file", metavar="FILE", help="KEY=VALUE lines of Tunix variables.")
@click.option("--recipe", metavar="FILE", help="Take the variables this recipe exports with --env (rendered, never run).")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format.")
def smoke(env_items, env_file, recipe, output_format):
    """Run the bundled trainer core at toy sizes with the settings these variables select.

    The head and packer settings are Tunix variables (TUNIX_LOGPS_SHARDED_HEAD,
    COMPUTE_LOGPS_CHUNK_SIZE, PACK_PAD_POSITION, PACK_PAD_ALIGN, ...). A value that cannot be read
    is FL008 and stops before the trainer core is loaded; what the core finds is FL017, each at
    the line that set the variable.
    """

    env = read_env_assignments(env_items, env_file)
    where = _where_set(env_items, env_file)
    if recipe:
        try:
            exported = render_bash(Path(recipe), env, read_file(recipe, SCRIPT)).exported
        except ScriptError as err:
            raise InputError(str(err)) from None
        env = {name: value.text for name, value in exported.items()}
        where |= {name: _written_at(value) for name, value in exported.items() if name not in where}
    settings, unreadable = read_settings(env)
    findings = [built_in("FL008", (problem.variable,), where.get(problem.variable), reason=problem.reason) for problem in unreadable]
    if settings is not None:
        with Progress() as progress:
            progress.step("loading JAX")
            try:
                from flaglint.trainer.smoke import run_smoke  # noqa: PLC0415 jax: the trainer core runs on it
            except ImportError as err:
                raise InputError(f"flaglint smoke needs the trainer extra (pip install '.[trainer]' in a clone of flaglint): {err}") from None
            progress.step("running the log-prob head and the packer at toy sizes")
            problems = run_smoke(env)
        findings = [built_in("FL017", (problem.variable,), where.get(problem.variable), reason=problem.reason) for problem in problems]
    result = Result(pin="", findings=findings)
    if not findings:
        result.notes.append("the bundled head and packer ran at toy sizes with these settings and pass")
    click.echo(render(output_format, [Checked(shown_path(recipe) or "<env>", _shown_text(recipe, env_file), result)]))
    if findings:
        sys.exit(1)


def _where_set(env_items: tuple[str, ...], env_file: str | None) -> dict[str, Location | None]:
    """Where each variable was set: an --env-file line; None for --env, which has no file."""
    lines = dotenv_lines(read_text_file(env_file, ENV_FILE), env_file) if env_file else {}
    where: dict[str, Location | None] = {name: Location(shown_path(env_file), line, 1) for name, line in lines.items()}
    where |= {item.partition("=")[0]: None for item in env_items}
    return where


def _written_at(value) -> Location | None:
    """The first character of a rendered value that a script wrote, as a location."""
    origin = next((origin for origin in value.origins if origin is not None), None)
    return None if origin is None else Location(shown_path(origin.file), origin.line, origin.column)


def _shown_text(recipe: str | None, env_file: str | None) -> str:
    """The text excerpts are taken from (text output): the recipe's, else the env file's."""
    return read_text_file(recipe, SCRIPT) if recipe else read_text_file(env_file, ENV_FILE) if env_file else ""

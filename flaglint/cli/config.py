"""`flaglint config`: the effective settings and where each came from."""

from __future__ import annotations

import json

import click

from flaglint.settings.settings import SETTINGS, check_rule_ids, load_settings


@click.command("config")
@click.option("--config", "config_file", metavar="FILE", help="Read this flaglint.toml or pyproject.toml instead of the nearest one.")
def show_config(config_file):
    """Print the effective settings and where each came from."""

    settings = load_settings(config_file=config_file)
    for warning in check_rule_ids(settings):
        click.echo(f"flaglint: warning: {warning}", err=True)
    click.echo(f"# config file: {settings.file or '(none found)'}")
    for name in SETTINGS:
        click.echo(f"{name} = {json.dumps(settings[name])}    # {settings.origins[name]}")

"""`flaglint config`: the effective settings and where each came from."""

from __future__ import annotations

import json

import click


@click.command("config")
def show_config():
    """Print the effective settings and where each came from."""
    from ..config import SETTINGS, load_settings

    settings = load_settings()
    click.echo(f"# config file: {settings.file or '(none found)'}")
    for name in SETTINGS:
        click.echo(f"{name} = {json.dumps(settings[name])}    # {settings.origins[name]}")

"""`flaglint server`: the language server, for editors (over stdio)."""

from __future__ import annotations

import click

from flaglint.server import serve


@click.command()
@click.option("--stdio", is_flag=True, help="Talk over stdin and stdout (the only transport; editors pass it).")
@click.option("--config", "config_file", metavar="FILE",
              help="Read the settings from this flaglint.toml or pyproject.toml instead of the nearest one to each document.")
def server(stdio, config_file):
    """Run the language server for editors: diagnostics, quick fixes, hover and completion."""
    serve(config_file)

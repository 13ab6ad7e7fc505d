"""`flaglint check`, declared to click: flag strings, flag files and `--batch` lines (the work: cli/checking.py)."""

from __future__ import annotations

import click

from flaglint.cli.checking import check_command
from flaglint.cli.options import common_options
from flaglint.cli.shared import Options


@click.command()
@click.argument("flags", nargs=-1)
@common_options
@click.option("-f", "--file", "flag_file", metavar="FILE", help="Read the flag string from this file.")
@click.option("--files", "as_files", is_flag=True, help="FLAGS are paths of flag files (one flag string each), as pre-commit passes them.")
@click.option("--batch", metavar="FILE", help="One flag string per line; one JSON result per line (fixes only with --fix).")
@click.option("--confirm-with", metavar="PYTHON",
              help="Also run the pinned MaxText's pyconfig with this Python interpreter (one that has that MaxText installed).")
def check(flags, options: Options, flag_file, as_files, batch, confirm_with):
    """Check FLAGS: a MAXTEXT_EXTRA_FLAGS string, `-` for stdin, the NAME of a set variable,
    MaxText's own argv (CONFIG.yml key=value …, each word whole), or a Tunix command line
    (BASE.yaml key=value …, or `-- python -m tunix.cli.grpo_main BASE.yaml …`)."""
    check_command(flags, options, flag_file, as_files, batch, confirm_with)

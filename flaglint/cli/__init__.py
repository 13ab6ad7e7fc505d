"""The `flaglint` command: one module per command, registered on one group and imported only when
that command runs (a cold `flaglint check` does not pay for `lint` and `gate`).

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 bad usage or input.
"""

from __future__ import annotations

import click

from flaglint.cli.group import FlaglintGroup, end_of_process
from flaglint.core.version import __version__

# command name -> (module under flaglint.cli, the click command in it)
COMMANDS = {
    "check": ("check", "check"),
    "rules": ("rules", "list_rules"),
    "explain": ("explain", "explain"),
    "config": ("config", "show_config"),
    "schema": ("schema", "schema"),
    "smoke": ("smoke", "smoke"),
    "render": ("render", "render_script"),
    "lint": ("lint", "lint"),
    "gate": ("gate", "gate"),
    "pins": ("pins", "pins"),
    "show": ("show", "show"),
}


@click.group(cls=FlaglintGroup, commands=COMMANDS)
@click.version_option(__version__, prog_name="flaglint")
def main() -> None:
    """Check MaxText/Tunix training flags, recipe scripts and JobSets before launch."""


def run() -> None:
    """The program, `flaglint …` or `python -m flaglint …` (main() is the group, for callers that
    run commands in their own process)."""
    try:
        main()
    finally:
        end_of_process()

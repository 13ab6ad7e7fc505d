"""The `flaglint` command: one module per command, registered on one group.

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 bad usage or input.
"""

from __future__ import annotations

import click

from .. import __version__
from .check import check
from .config import show_config
from .explain import explain
from .gate import gate
from .group import FlaglintGroup
from .lint import lint
from .pins import pins
from .render import render_script
from .rules import list_rules
from .schema import schema
from .show import show
from .smoke import smoke


@click.group(cls=FlaglintGroup)
@click.version_option(__version__, prog_name="flaglint")
def main() -> None:
    """Check MaxText/Tunix training flags, recipe scripts and JobSets before launch."""


for _command in (check, list_rules, explain, show_config, schema, smoke, render_script, lint, gate, pins, show):
    main.add_command(_command)

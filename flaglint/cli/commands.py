"""The `flaglint` command group: one module per command, registered on one group and imported only
when that command runs (a cold `flaglint lint` does not pay for `check` and `gate`)."""

from __future__ import annotations

import click

from flaglint.cli.console import echo
from flaglint.cli.group import FlaglintGroup
from flaglint.core.version import described_version

# command name -> (module under flaglint.cli, the click command in it, its line in `flaglint --help`)
COMMANDS = {
    "check": ("check", "check", "Check flag strings, flag files, MaxText's or Tunix's argv."),
    "lint": ("lint", "lint", "Check recipe scripts on every branch, without running them."),
    "gate": ("gate", "gate", "Check the JobSets of a manifest before kubectl apply."),
    "show": ("show", "show", "Show each key's effective value and where it came from."),
    "render": ("render", "render_script", "Print the variables a script exports for one environment."),
    "rules": ("rules", "list_rules", "List the rules of a pin."),
    "explain": ("explain", "explain", "Show one rule: title, rationale, examples, fix and source."),
    "pins": ("pins", "pins", "List the MaxText and Tunix pins, or diff two."),
    "schema": ("schema", "schema", "Import a source tree as a pin, or export a pin as a JSON Schema."),
    "config": ("config", "show_config", "Print the effective settings and where each came from."),
    "smoke": ("smoke", "smoke", "Run the bundled trainer core at toy sizes with these settings."),
    "memory": ("memory", "memory", "Say whether the compiled train step fits in the chips' HBM."),
    "server": ("server", "server", "Run the language server for editors (over stdio)."),
}


@click.group(cls=FlaglintGroup, commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=lambda ctx, _, given: _version(ctx, given),
              help="Show the version and the commit it was built from, and exit.")
def main() -> None:
    """Check MaxText/Tunix training flags, recipe scripts and JobSets before launch."""


def _version(ctx: click.Context, given: bool) -> None:
    if given and not ctx.resilient_parsing:
        echo(f"flaglint, version {described_version()}")
        ctx.exit()

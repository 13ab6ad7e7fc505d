"""The options `check`, `lint` and `gate` share, declared to click: the command receives them as
one Options (cli/shared.py)."""

from __future__ import annotations

import functools
from typing import Callable

import click
from click.core import ParameterSource

from flaglint.cli.shared import Options, refuse_what_does_nothing
from flaglint.report import FORMATS

_OPTIONS = [
    click.option("--env", "env_items", multiple=True, metavar="K=V", help="A Tunix variable (repeatable)."),
    click.option("--env-file", metavar="FILE", help="KEY=VALUE lines of Tunix variables."),
    click.option("--pin", help="MaxText pin: a release (maxtext-0.1.0 ... maxtext-0.2.5), a fork or imported commit (7+ characters), or installed; `flaglint pins` lists them."),
    click.option("--tunix-pin", help="Tunix pin for tunix.cli command lines: a release (tunix-0.1.0 ... tunix-0.1.7); `flaglint pins` lists them."),
    click.option("--requirements", metavar="FILE", help="Take the pin (and the Tunix pin, from google-tunix==X.Y.Z) from this requirements file."),
    click.option("--model", help="Apply this MaxText model config (configs/models/NAME.yml) first."),
    click.option("--format", "--output-format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format."),
    click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), help="Lowest severity that fails (default: error)."),
    click.option("--max-fixes", type=click.IntRange(0, 50), default=3, show_default=True, help="Fixes of the smallest size to list."),
    click.option("--config", "config_file", metavar="FILE", help="Read the settings from this flaglint.toml or pyproject.toml instead of the nearest one."),
    click.option("--isolated", is_flag=True, help="Ignore every config file."),
    click.option("--select", multiple=True, metavar="IDS", help="Only these rules (ids or prefixes, comma-separated); replaces the config's `select`."),
    click.option("--extend-select", multiple=True, metavar="IDS", help="Rules to select in addition to `select`."),
    click.option("--ignore", multiple=True, metavar="IDS", help="Rules never to report, in addition to the config's `ignore`."),
    click.option("--fix", is_flag=True, help="Apply the safe fixes to every input file (an input from the command line or stdin is printed fixed), then report what remains."),
    click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, also apply the unsafe fixes."),
    click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing; exit 1 when there is one."),
    click.option("--show-fixes", is_flag=True, help="With --fix, list each fix applied."),
    click.option("-o", "--output-file", type=click.Path(dir_okay=False, writable=True), help="Write the report to this file instead of stdout."),
    click.option("-q", "--quiet", is_flag=True, help="No messages about fixes on stderr (every format); the text report without its summary and notes."),
    click.option("-e", "--exit-zero", is_flag=True, help="Exit 0 even when there are findings (2 still means bad usage or input)."),
    click.option("--statistics", is_flag=True, help="Print how many findings each rule has (and how many a fix covers) instead of the findings."),
    click.option("--stdin-filename", metavar="PATH", help="The name of the file `-` reads from stdin: for the report and per-file-ignores."),
    click.option("--topology", help="The devices it runs on: a compile topology (v5p-8, v6e-64) or a TPU slice (tpu7x:4x4x8)."),
    click.option("--slices", type=click.IntRange(1), default=1, show_default=True, help="Slices of --topology."),
]
_NAMES = Options.field_names
_GIVEN = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def common_options(command: Callable) -> Callable:
    """Adds the shared options; the command receives them as one `options: Options` argument."""

    @functools.wraps(command)
    def wrapper(**kwargs):
        context = click.get_current_context()
        given = frozenset(name for name in _NAMES if name in kwargs and context.get_parameter_source(name) in _GIVEN)
        options = Options(**{name: kwargs.pop(name) for name in _NAMES if name != "given"}, given=given)
        refuse_what_does_nothing(options)
        return command(options=options, **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper

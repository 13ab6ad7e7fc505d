"""The options `check`, `lint` and `gate` share, as one frozen dataclass, and the settings they give."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Callable

import click
from click.core import ParameterSource

from flaglint.core.findings import InputError
from flaglint.core.reading import REQUIREMENTS
from flaglint.core.startup import end_of_startup
from flaglint.frontends.checker import Checker
from flaglint.pins.pins import load_pin, names_maxtext, pin_from_requirements
from flaglint.read.flags import read_env_assignments, read_text_file
from flaglint.report import FORMATS, STATISTICS_FORMATS
from flaglint.resolve.topology import from_option
from flaglint.settings.settings import check_rule_ids, load_settings


@dataclass(frozen=True)
class Options:
    """The options every checking command shares, as click parsed them."""

    env_items: tuple[str, ...] = ()
    env_file: str | None = None
    pin: str | None = None
    tunix_pin: str | None = None
    requirements: str | None = None
    model: str | None = None
    output_format: str = "text"
    fail_on: str | None = None
    max_fixes: int = 3
    config_file: str | None = None
    isolated: bool = False
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    show_fixes: bool = False
    output_file: str | None = None
    quiet: bool = False
    exit_zero: bool = False
    statistics: bool = False
    stdin_filename: str | None = None
    topology: str | None = None
    slices: int = 1
    given: frozenset[str] = frozenset()  # the options the command line gave (not their defaults)

    def settings(self):
        """The project configuration, overridden by these options."""

        if self.config_file and self.isolated:
            raise InputError("--config and --isolated exclude each other")
        settings = load_settings(config_file=self.config_file, isolated=self.isolated)
        settings.override("requirements", self.requirements, "--requirements")
        if self.requirements:
            from flaglint.tunix.pins import tunix_pin_from_requirements  # noqa: PLC0415 Tunix's pins: only with --requirements

            tunix = tunix_pin_from_requirements(read_text_file(self.requirements, REQUIREMENTS), self.requirements)
            settings.override("tunix-pin", tunix, f"--requirements {self.requirements}")
            if tunix is None or names_maxtext(self.requirements):
                settings.override("pin", pin_from_requirements(self.requirements), f"--requirements {self.requirements}")
        settings.override("pin", self.pin, "--pin")
        settings.override("tunix-pin", self.tunix_pin, "--tunix-pin")
        settings.override("model", self.model, "--model")
        settings.override("fail-on", self.fail_on, "--fail-on")
        settings.override("select", _ids(self.select), "--select")
        settings.extend("extend-select", _ids(self.extend_select), "--extend-select")
        settings.extend("ignore", _ids(self.ignore), "--ignore")
        for warning in check_rule_ids(settings):
            click.echo(f"flaglint: warning: {warning}", err=True)
        return settings

    def env(self) -> dict[str, str]:
        return read_env_assignments(self.env_items, self.env_file)

    def devices(self, pin: str):
        """The device count --topology and --slices give, or None: then the config's own counts."""
        if not self.topology:
            return None

        pinned = load_pin(pin)
        return from_option(self.topology, self.slices, pinned.version, pinned.topologies)


def _refuse_what_does_nothing(options: Options) -> None:
    """An option no output would honour is refused in one line: a run must not look as if it did."""
    if options.show_fixes and not options.fix:
        raise InputError("--show-fixes lists the fixes --fix applies; add --fix (--diff shows the fixes without writing them)")
    if options.unsafe_fixes and not (options.fix or options.diff):
        raise InputError("--unsafe-fixes changes what --fix and --diff apply; add one of them")
    if options.fix and options.diff:
        raise InputError("--fix writes the fixes and --diff only prints them; give one")
    if options.diff and (options.output_file or options.statistics or options.output_format != "text"):
        shown = "-o" if options.output_file else "--statistics" if options.statistics else f"--format {options.output_format}"
        raise InputError(f"--diff prints a unified diff on stdout; {shown} does not apply to it")
    if options.statistics and options.output_format not in STATISTICS_FORMATS:
        raise InputError(f"--statistics prints a table ({' or '.join(STATISTICS_FORMATS)}); --format {options.output_format} has no place for it")


def load_checker(settings, devices=None, fail_closed=False):
    """The checker of the settings' pin, model and extra rules: the end of a command's start-up."""

    checker = Checker(settings["pin"], settings["model"], tuple(settings["extra-rules"]), devices, fail_closed,
                      settings.origins["pin"])
    end_of_startup()
    return checker


def _ids(values: tuple[str, ...]) -> list[str]:
    """`--select FL1,FL004 --select FL2`: comma-separated and repeatable."""
    return [part.strip().upper() for value in values for part in value.split(",") if part.strip()]


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
_NAMES = tuple(f.name for f in fields(Options))
_GIVEN = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def common_options(command: Callable) -> Callable:
    """Adds the shared options; the command receives them as one `options: Options` argument."""

    @functools.wraps(command)
    def wrapper(**kwargs):
        context = click.get_current_context()
        given = frozenset(name for name in _NAMES if name in kwargs and context.get_parameter_source(name) in _GIVEN)
        options = Options(**{name: kwargs.pop(name) for name in _NAMES if name != "given"}, given=given)
        _refuse_what_does_nothing(options)
        return command(options=options, **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper

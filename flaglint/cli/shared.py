"""The options `check`, `lint` and `gate` share, as one record, and the settings they give;
without click (cli/options.py declares them to click; cli/fast.py reads `check`'s without it)."""

from __future__ import annotations

from flaglint.cli.console import echo
from flaglint.core.findings import InputError
from flaglint.core.reading import REQUIREMENTS
from flaglint.core.records import FrozenRecord
from flaglint.core.startup import end_of_startup
from flaglint.frontends.checker import Checker
from flaglint.pins.pins import load_pin, names_maxtext, pin_from_requirements
from flaglint.read.flags import read_env_assignments, read_text_file
from flaglint.report import STATISTICS_FORMATS
from flaglint.resolve.topology import from_option
from flaglint.settings.settings import check_rule_ids, load_settings


class Options(FrozenRecord):
    """The options every checking command shares, as click parsed them."""

    __slots__ = field_names = ("env_items", "env_file", "pin", "tunix_pin", "requirements", "model", "output_format", "fail_on",
                               "max_fixes", "config_file", "isolated", "select", "extend_select", "ignore", "fix", "unsafe_fixes",
                               "diff", "show_fixes", "output_file", "quiet", "exit_zero", "statistics", "stdin_filename",
                               "topology", "slices", "given")

    def __init__(self, env_items: tuple[str, ...] = (), env_file: str | None = None, pin: str | None = None,
                 tunix_pin: str | None = None, requirements: str | None = None, model: str | None = None,
                 output_format: str = "text", fail_on: str | None = None, max_fixes: int = 3, config_file: str | None = None,
                 isolated: bool = False, select: tuple[str, ...] = (), extend_select: tuple[str, ...] = (),
                 ignore: tuple[str, ...] = (), fix: bool = False, unsafe_fixes: bool = False, diff: bool = False,
                 show_fixes: bool = False, output_file: str | None = None, quiet: bool = False, exit_zero: bool = False,
                 statistics: bool = False, stdin_filename: str | None = None, topology: str | None = None, slices: int = 1,
                 given: frozenset[str] = frozenset()):
        self.env_items = env_items
        self.env_file = env_file
        self.pin = pin
        self.tunix_pin = tunix_pin
        self.requirements = requirements
        self.model = model
        self.output_format = output_format
        self.fail_on = fail_on
        self.max_fixes = max_fixes
        self.config_file = config_file
        self.isolated = isolated
        self.select = select
        self.extend_select = extend_select
        self.ignore = ignore
        self.fix = fix
        self.unsafe_fixes = unsafe_fixes
        self.diff = diff
        self.show_fixes = show_fixes
        self.output_file = output_file
        self.quiet = quiet
        self.exit_zero = exit_zero
        self.statistics = statistics
        self.stdin_filename = stdin_filename
        self.topology = topology
        self.slices = slices
        self.given = given  # the options the command line gave (not their defaults)

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
            echo(f"flaglint: warning: {warning}", err=True)
        return settings

    def env(self) -> dict[str, str]:
        return read_env_assignments(self.env_items, self.env_file)

    def devices(self, pin: str):
        """The device count --topology and --slices give, or None: then the config's own counts."""
        if not self.topology:
            return None

        pinned = load_pin(pin)
        return from_option(self.topology, self.slices, pinned.version, pinned.topologies)


def refuse_what_does_nothing(options: Options) -> None:
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

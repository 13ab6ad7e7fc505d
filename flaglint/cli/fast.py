"""`flaglint check …` and `flaglint --version` before click is loaded: click is a fifth of a cold
check's start-up, and a pre-commit hook or an editor starts flaglint over and over.

Only a command line read here exactly as click reads it is run here: `check` with its words and
options of plain values or switches (each option as click declares it in cli/options.py and
cli/check.py). Anything else (help, an option with a typed or checked value, `--opt=value` of a
switch, short options run together, `--`, an unknown option, a missing value, shell completion)
goes to the click group unread, which reads it and words its errors as before.
tests/cli/test_fast_path.py holds the two paths to the same output.
"""

from __future__ import annotations

import os
import sys

from flaglint.cli.console import echo, end_on, fail, undecodable_argument
from flaglint.core.startup import pause_collector, restore_collector

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

# option -> the Options field (or check's own argument) it sets, and how: "value" (the last one
# given), "multiple" (each one given, in order), "flag" (a switch), or a choice: "format" (one of
# report.FORMATS), "severity" (one of core.findings.SEVERITIES, --fail-on's choices).
_OPTIONS: dict[str, tuple[str, str]] = {
    "--env": ("env_items", "multiple"),
    "--env-file": ("env_file", "value"),
    "--pin": ("pin", "value"),
    "--tunix-pin": ("tunix_pin", "value"),
    "--requirements": ("requirements", "value"),
    "--model": ("model", "value"),
    "--format": ("output_format", "format"),
    "--output-format": ("output_format", "format"),
    "--fail-on": ("fail_on", "severity"),
    "--config": ("config_file", "value"),
    "--isolated": ("isolated", "flag"),
    "--select": ("select", "multiple"),
    "--extend-select": ("extend_select", "multiple"),
    "--ignore": ("ignore", "multiple"),
    "--fix": ("fix", "flag"),
    "--unsafe-fixes": ("unsafe_fixes", "flag"),
    "--diff": ("diff", "flag"),
    "--show-fixes": ("show_fixes", "flag"),
    "-q": ("quiet", "flag"),
    "--quiet": ("quiet", "flag"),
    "-e": ("exit_zero", "flag"),
    "--exit-zero": ("exit_zero", "flag"),
    "--statistics": ("statistics", "flag"),
    "--stdin-filename": ("stdin_filename", "value"),
    "--topology": ("topology", "value"),
    "-f": ("flag_file", "value"),
    "--file": ("flag_file", "value"),
    "--files": ("as_files", "flag"),
}
_OWN = ("flag_file", "as_files")  # check's own options; the rest are the shared Options


def run_without_click(args: list[str] | None = None) -> bool:
    """Runs the command line here where it can be (and exits); False where click is to read it."""
    args = list(sys.argv[1:] if args is None else args)
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return False  # click's shell completion
    if args == ["--version"]:
        from flaglint.core.version import described_version  # noqa: PLC0415 only for --version

        echo(f"flaglint, version {described_version()}")
        sys.exit(0)
    parsed = _check_arguments(args)
    if parsed is None:
        return False
    flags, given = parsed
    problem = undecodable_argument(args)
    if problem:
        fail(problem)
    pause_collector()  # already, where the program started it (flaglint/__main__.py)
    try:
        from flaglint.cli.checking import check_command  # noqa: PLC0415 imported with the collector paused
        from flaglint.cli.shared import Options, refuse_what_does_nothing  # noqa: PLC0415 imported with the collector paused

        own = {name: given.pop(name) for name in _OWN if name in given}
        options = Options(**given, given=frozenset(given))
        refuse_what_does_nothing(options)
        check_command(tuple(flags), options, **own)
    except (EOFError, KeyboardInterrupt):
        echo("", err=True)  # as click ends an interrupted command
        fail("aborted")
    except SystemExit:
        raise
    except Exception as err:  # noqa: BLE001 - a bug must still not show users a traceback
        end_on(err)
    finally:
        restore_collector()
    sys.exit(0)


def _check_arguments(args: list[str]) -> tuple[list[str], dict[str, Any]] | None:
    """`check`'s words and options as click would read them, or None where click is to read them."""
    if not args or args[0] != "check":
        return None
    from flaglint.core.findings import SEVERITIES  # noqa: PLC0415 only for `check`, with the collector paused
    from flaglint.report import FORMATS  # noqa: PLC0415 only for `check`, with the collector paused

    choices = {"format": FORMATS, "severity": SEVERITIES}
    flags: list[str] = []
    given: dict[str, Any] = {}
    rest = iter(args[1:])
    for arg in rest:
        if arg == "-" or not arg.startswith("-"):
            flags.append(arg)
            continue
        option, equals, attached = arg.partition("=")
        if option not in _OPTIONS:
            return None
        name, kind = _OPTIONS[option]
        if kind == "flag":
            if equals:
                return None
            given[name] = True
            continue
        if not option.startswith("--") and equals:
            return None  # `-f=x`: click reads `=x` as the value
        value = attached if equals else next(rest, None)
        if value is None or kind in choices and value not in choices[kind]:
            return None
        if kind == "multiple":
            given[name] = (*given.get(name, ()), value)
        else:
            given[name] = value
    return flags, given

"""The report printed with its exit code."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from flaglint.cli.console import echo
from flaglint.core.findings import InputError
from flaglint.report import Checked, in_order, render, statistics


def _colour(options) -> bool:
    """Colour for people: the text format on a terminal; NO_COLOR turns it off, FORCE_COLOR on."""
    if options.output_format != "text" or options.output_file:
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "0").lower() not in ("", "0", "false"):
        return True
    return sys.stdout.isatty()


def shown_path(path: str | None) -> str | None:
    """Paths as the user reads them: relative to the working directory when inside it."""
    if not path or path.startswith("<") or not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _relative(checked: list[Checked]) -> None:
    shown = functools.cache(shown_path)  # a witness names the same file at each branch it took

    def moved(location):
        return location and location.replace(file=shown(location.file))

    for item in checked:
        item.label = shown(item.label)
        for finding in item.result.findings:
            finding.location = moved(finding.location)
            finding.related = tuple(moved(loc) for loc in finding.related)
            if finding.witness:
                finding.witness["branches"] = [{**branch, "file": shown(branch["file"])} for branch in finding.witness.get("branches", [])]
        for fix in [*item.result.fixes, *item.applied]:
            fix.edits = [edit.replace(location=moved(edit.location)) for edit in fix.edits]


def emit(options, checked: list[Checked], settings, fixed: dict | None = None) -> None:
    """The report (to stdout or --output-file), then exit 1 when a finding is at or above fail-on
    (0 with --exit-zero).

    After --fix in text format, an input that is not a file (a flag string, stdin) is printed
    fixed on stdout, as `FLAGS=$(flaglint check --fix "$FLAGS")` wants it; what remains is then
    reported on stderr. Other formats carry the fixed text in the report itself."""
    failed = any(item.result.fails(settings["fail-on"]) for item in checked)
    printed = [item for item in checked if not item.in_file] if options.fix and options.output_format == "text" else []
    for item in printed:
        text = (fixed or {}).get(item.label, item.text).strip()
        if text or not item.argv:  # argv words after a config file: none, when the file holds the run
            echo(text)
    _relative(checked)
    checked = in_order(checked)
    colour = _colour(options)
    report = (statistics(checked, options.output_format) if options.statistics else
              render(options.output_format, checked, colour=colour, quiet=options.quiet, docs_url=settings["docs-url"],
                     fail_on=settings["fail-on"]))
    if options.output_file:
        try:
            Path(options.output_file).write_text(report + "\n", encoding="utf-8")
        except OSError as err:
            raise InputError(f"{options.output_file}: cannot write ({err.strerror})") from None
    elif printed:
        if any(item.result.findings for item in checked):
            echo(report, err=True)
    elif report:  # -q with nothing to report prints nothing, not an empty line
        echo(report, color=colour)
    if failed and not options.exit_zero:
        sys.exit(1)


def fix_and_emit(checked: list[Checked], run, options, settings) -> None:
    """The report of what was checked; with --fix or --diff, after the fixes `run(fixed)` confirms."""
    fixed: dict = {}
    if options.fix or options.diff:
        from flaglint.cli.fixing import apply_fixes  # noqa: PLC0415 fixes: only with --fix or --diff
        checked, fixed, changed = apply_fixes(checked, run, unsafe=options.unsafe_fixes, diff=options.diff,
                                              show_fixes=options.show_fixes, quiet=options.quiet)
        if options.diff:
            sys.exit(1 if changed else 0)
    emit(options, checked, settings, fixed)

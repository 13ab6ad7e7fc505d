"""`flaglint lint SCRIPTS`: recipe scripts on every branch, statically; `--fix` edits them."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from flaglint.cli.fixing import apply_fixes
from flaglint.cli.inputs import input_paths, refuse_unread_stdin_filename
from flaglint.cli.options import common_options
from flaglint.cli.output import emit
from flaglint.cli.shared import Options, load_checker
from flaglint.core.findings import InputError
from flaglint.core.progress import Progress
from flaglint.core.reading import SCRIPT, decode, read_stdin, regular_file
from flaglint.frontends.lint.scripts import check_script
from flaglint.report import Checked
from flaglint.settings.applied import apply_settings


def _vary(items: tuple[str, ...]) -> dict[str, list[str]]:
    widened: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key:
            raise InputError(f"--vary {item!r}: expected K=v1,v2")
        widened.setdefault(key, []).extend(values.split(","))
    return widened


@click.command()
@click.argument("scripts", nargs=-1, required=True)
@common_options
@click.option("--vary", "vary_items", multiple=True, metavar="K=v1,v2", help="Widen an input's values (repeatable).")
@click.option("--path-cap", type=click.IntRange(1), help="Most combinations of inputs that decide flags together checked one by one (default 64); more are checked by the solver.")
@click.option("--allow-unverified", is_flag=True, help="A launch that cannot be verified is a warning, not an error.")
@click.option("--arg", "script_args", multiple=True, metavar="VALUE",
              help="An argument of the scripts, in order (repeatable); without any, $1, $@ … are unknown inputs.")
def lint(scripts, options: Options, vary_items, path_cap, allow_unverified, script_args):
    """Check recipe SCRIPTS on every branch, statically (they are never run); `-` reads one from
    stdin, a directory gives the *.sh scripts in it."""

    scripts = input_paths(scripts, (".sh", ".bash"), "scripts")
    refuse_unread_stdin_filename(options.stdin_filename, scripts)
    settings = options.settings()
    settings.override("path-cap", path_cap, "--path-cap")
    env = options.env()
    checker = load_checker(settings, options.devices(settings["pin"]))
    hint = "flaglint lint"  # the command whose --fix edits the script

    stdin = None
    if "-" in scripts:
        if scripts.count("-") > 1:
            raise InputError("-: stdin can be read once")
        stdin = decode(read_stdin(SCRIPT), "<stdin>")
        label = options.stdin_filename or "<stdin>"
        scripts = tuple(label if script == "-" else script for script in scripts)
    for script in scripts:
        if stdin is None or script != label:
            regular_file(script, SCRIPT)  # each refused before any is evaluated

    def run(_fixed=None) -> list[Checked]:
        checked = []
        with Progress() as progress:
            for number, script in enumerate(scripts, 1):
                progress.step(f"linting {script} ({number} of {len(scripts)})")
                checked.append(_check_one(script, (_fixed or {}).get(script, stdin) if stdin is not None and script == label else None))
        _report_shared_findings_once(checked)
        return checked

    def _check_one(script: str, given: str | None) -> Checked:
        found = check_script(Path(script), checker, env, _vary(vary_items), settings["path-cap"], options.max_fixes,
                             allow_unverified, text=given, args=script_args or None, tunix_pin=settings["tunix-pin"])
        apply_settings(found.result, settings, script)
        # the configuration can drop every finding, and with them the fix
        fix = found.result.fixes[0] if found.result.fixes else None
        return Checked(script, found.text, found.result, hint, in_file=given is None, fix=fix,
                       edits=[edit for edit in fix.edits if edit.written] if fix else [])

    checked = run()
    if options.fix or options.diff:
        checked, _, changed = apply_fixes(checked, run, unsafe=options.unsafe_fixes, diff=options.diff,
                                          show_fixes=options.show_fixes, quiet=options.quiet)
        if options.diff:
            sys.exit(1 if changed else 0)
    emit(options, checked, settings)


def _report_shared_findings_once(checked: list[Checked]) -> None:
    """A finding in a file that scripts source (a shared block) is reported once, with the scripts
    that reach it, however many of them are linted together, and whether or not that file is
    linted itself too (its own finding then stands for theirs)."""
    first: dict[tuple, object] = {}
    for item in checked:
        script = Path(item.label).resolve()
        kept = []
        for finding in item.result.findings:
            loc = finding.location
            if loc is not None and loc.file:
                file = Path(loc.file).resolve()
                key = (finding.rule, file, loc.line, loc.column, loc.end_column, finding.message)
                if key in first:
                    if file != script and item.label not in first[key].reached_from:
                        first[key].reached_from += (item.label,)
                    continue
                if file != script:
                    finding.reached_from = (item.label,)
                first[key] = finding
            kept.append(finding)
        item.result.findings = kept

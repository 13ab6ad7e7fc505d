"""`flaglint lint SCRIPTS`: recipe scripts on every branch, statically; `--fix` edits them."""

from __future__ import annotations

from pathlib import Path

import click

from ..findings import InputError
from ..report import Checked
from .options import Options, common_options
from .output import apply_settings, emit


def _vary(items: tuple[str, ...]) -> dict[str, list[str]]:
    widened: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key:
            raise InputError(f"--vary {item!r}: expected K=v1,v2")
        widened.setdefault(key, []).extend(values.split(","))
    return widened


@click.command()
@click.argument("scripts", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, readable=True))
@common_options
@click.option("--vary", "vary_items", multiple=True, metavar="K=v1,v2", help="Widen an input's values (repeatable).")
@click.option("--path-cap", type=click.IntRange(1), help="Most paths explored per script (default 4096).")
@click.option("--fix", is_flag=True, help="Apply the safe fixes to the scripts.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, also apply unsafe fixes.")
@click.option("--diff", is_flag=True, help="Show the fixes as a diff without writing.")
def lint(scripts, options: Options, vary_items, path_cap, fix, unsafe_fixes, diff):
    """Check recipe SCRIPTS on every branch, statically (they are never run)."""
    from ..check import Checker
    from ..lint import check_script

    settings = options.settings()
    settings.override("path-cap", path_cap, "--path-cap")
    env = options.env()
    checker = Checker(settings["pin"], settings["model"], tuple(settings["extra-rules"]))

    def run_all():
        results = [check_script(Path(s), checker, env, _vary(vary_items), settings["path-cap"], options.max_fixes) for s in scripts]
        for script, result in zip(scripts, results):
            apply_settings(result.result, settings, script)
        return results

    results = run_all()
    if diff:
        _fix_scripts(results, unsafe_fixes, write=False)
    elif fix:
        # Fixes for different branches can interact: apply, check again, until nothing changes.
        for _ in range(10):
            if not _fix_scripts(results, unsafe_fixes, write=True):
                break
            results = run_all()
    hint = "flaglint lint --fix edits the script (--diff shows the edit)"
    emit(options.output_format, [Checked(s, r.text, r.result, hint) for s, r in zip(scripts, results)], settings)


def _fix_scripts(results, unsafe: bool, write: bool) -> bool:
    """Show or write each script's fix; True when a file changed."""
    import difflib

    from ..fix_files import write_atomically
    from ..lint import apply_file_edits

    edits = [edit for result in results for edit in result.edits]
    changed = apply_file_edits(edits, unsafe)
    for file, (old, new) in changed.items():
        if write:
            write_atomically(Path(file), new.decode("utf-8"))
            click.echo(f"fixed {file}", err=True)
        else:
            click.echo("".join(difflib.unified_diff(old.decode("utf-8").splitlines(True), new.decode("utf-8").splitlines(True), f"a/{file}", f"b/{file}")), nl=False)
    if any(not e.safe for e in edits) and not unsafe:
        click.echo("unsafe fixes not applied; use --unsafe-fixes", err=True)
    for result in results:
        for line in result.additions:
            click.echo(f"to fix by hand in {result.path}: {line}", err=True)
    return bool(changed)

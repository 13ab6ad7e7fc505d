"""`flaglint check`: flag strings, flag files and `--batch` lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..findings import InputError
from ..report import Checked, render
from .options import Options, common_options
from .output import apply_settings, emit


@click.command()
@click.argument("flags", nargs=-1)
@common_options
@click.option("-f", "--file", "flag_file", type=click.Path(dir_okay=False), help="Read the flag string from this file.")
@click.option("--files", "as_files", is_flag=True, help="FLAGS are paths of flag files (one flag string each), as pre-commit passes them.")
@click.option("--batch", type=click.Path(dir_okay=False, allow_dash=True), help="One flag string per line; one JSON result per line (fixes only with --fix).")
@click.option("--fix", is_flag=True, help="Print the fixed flag string (or rewrite --file with --write).")
@click.option("--write", is_flag=True, help="With --fix and --file: rewrite the file in place.")
@click.option("--confirm-with", type=click.Path(dir_okay=False), help="Also run the pinned MaxText's pyconfig in this Python.")
def check(flags, options: Options, flag_file, as_files, batch, fix, write, confirm_with):
    """Check FLAGS: a MAXTEXT_EXTRA_FLAGS string, `-` for stdin, the NAME of a set variable, or
    MaxText's own argv (CONFIG.yml key=value …, each word whole)."""
    from ..check import Checker
    from ..inputs import check_sources
    from ..read import FlagSource, read_text_file

    settings = options.settings()
    env = options.env()
    checker = Checker(settings["pin"], settings["model"], tuple(settings["extra-rules"]), options.devices(settings["pin"]))
    if batch:
        _check_batch(checker, batch, env, options.max_fixes if fix else 0, settings)
        return
    if flag_file:
        sources = [FlagSource(read_text_file(flag_file), file=flag_file)]
    elif as_files:
        sources = [FlagSource(read_text_file(path), file=path) for path in flags]
    elif flags:
        sources = check_sources(tuple(flags), checker.pin.configs)
    elif env:
        sources = [FlagSource("")]  # only Tunix variables: they are checked, and the MaxText keys they set
    else:
        raise InputError("nothing to check: give FLAGS, `-` for stdin, a variable NAME, --file, or --env")
    if write and not (fix and flag_file):
        raise InputError("--write needs --fix and --file")
    checked = []
    for source in sources:
        result = apply_settings(checker.check(source, env, max_fixes=options.max_fixes), settings, source.file)
        checked.append(Checked(source.file, source.text, result))
    if confirm_with:
        from ..confirm import confirm

        for item in checked:
            click.echo(confirm(confirm_with, settings["pin"], item.text, env, settings["model"]), err=True)
    if fix:
        _print_or_write_fix(checked[0], flag_file if write else None, checker, env, settings)
        return
    emit(options.output_format, checked, settings)


def _print_or_write_fix(item: Checked, write_to: str | None, checker, env, settings) -> None:
    """Print (or write) the first fix, then exit as a check of the fixed string would."""
    from ..read import FlagSource

    fixed = item.result.fixes[0].flags if item.result.fixes else item.text
    if write_to is None:
        click.echo(fixed.strip())
    elif item.result.fixes:
        from ..fix_files import write_atomically

        write_atomically(Path(write_to), fixed if fixed.endswith("\n") or not item.text.endswith("\n") else fixed + "\n")
        click.echo(f"fixed {write_to}: " + ", ".join(f"{c.key} {c.from_!r} -> {c.to!r}" for c in item.result.fixes[0].changes), err=True)
    after = apply_settings(checker.check(FlagSource(fixed, file=item.label), env, fix=False), settings, item.label)
    if after.fails(settings["fail-on"]):
        click.echo(render("text", [Checked(item.label, fixed, after)]), err=True)
        sys.exit(1)


def _check_batch(checker, batch: str, env, max_fixes: int, settings) -> None:
    from ..read import FlagSource, decode

    data = sys.stdin.buffer.read() if batch == "-" else Path(batch).read_bytes() if Path(batch).is_file() else None
    if data is None:
        raise InputError(f"{batch}: no such file")
    failed = False
    for number, line in enumerate(decode(data, batch).splitlines(), 1):
        result = apply_settings(checker.check(FlagSource(line, file=None), env, fix=max_fixes > 0, max_fixes=max_fixes), settings)
        payload = result.to_json()
        payload["line"] = number
        click.echo(json.dumps(payload))
        failed |= result.fails(settings["fail-on"])
    sys.exit(1 if failed else 0)

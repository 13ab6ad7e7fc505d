"""`flaglint check`'s work, without click: flag strings, flag files and `--batch` lines (cli/check.py
declares the command to click; cli/fast.py runs it before click is loaded)."""

from __future__ import annotations

import json
import os
import sys

from flaglint.cli.console import echo
from flaglint.cli.inputs import refuse_unread_stdin_filename
from flaglint.cli.output import fix_and_emit
from flaglint.cli.shared import Options, load_checker
from flaglint.core.findings import InputError
from flaglint.core.progress import Progress
from flaglint.core.reading import BATCH_FILE, FLAG_FILE, decode, read_file, read_stdin
from flaglint.core.startup import end_of_startup
from flaglint.frontends.check.inputs import check_sources
from flaglint.read.flags import FlagSource, bom_length, read_text_file
from flaglint.report import Checked
from flaglint.settings.applied import apply_settings


def check_command(flags: tuple[str, ...], options: Options, flag_file: str | None = None, as_files: bool = False,
                  batch: str | None = None, confirm_with: str | None = None) -> None:
    """Check FLAGS (or --file, --files, --batch) with the shared options."""
    if flags and (flag_file or batch):
        raise InputError(f"{'--file' if flag_file else '--batch'} reads the flags from {flag_file or batch}; "
                         f"FLAGS ({' '.join(flags)}) would be ignored: give one or the other")
    if as_files and (batch or flag_file):
        raise InputError(f"{'--batch' if batch else '--file'} reads its own file; --files does not apply to it")
    if batch and confirm_with:
        raise InputError("--batch prints one JSON result per line; --confirm-with does not apply to it")
    if batch:
        _refuse_for_batch(options)
    else:
        refuse_unread_stdin_filename(options.stdin_filename, flags)
    as_files = as_files or _flag_files(flags)
    settings = options.settings()
    env = options.env()
    if flags and not (batch or flag_file or as_files) and _is_tunix_argv(tuple(flags), settings["tunix-pin"]):
        _check_tunix(tuple(flags), options, settings, env)
        return
    checker = load_checker(settings, options.devices(settings["pin"]))
    if batch:
        _check_batch(checker, batch, env, options.max_fixes if options.fix else 0, settings, options.exit_zero)
        return
    if flag_file:
        sources = [FlagSource(read_text_file(flag_file, FLAG_FILE), file=flag_file)]
    elif as_files:
        sources = [FlagSource(read_text_file(path, FLAG_FILE), file=path) for path in flags]
    elif flags:
        sources = check_sources(tuple(flags), checker.pin.configs)
        if options.stdin_filename and tuple(flags) == ("-",):
            sources = [sources[0].replace(file=options.stdin_filename)]
    elif env:
        sources = [FlagSource("")]  # only Tunix variables: they are checked, and the MaxText keys they set
    else:
        raise InputError("nothing to check: give FLAGS, `-` for stdin, a variable NAME, --file, or --env")
    on_disk = {flag_file} if flag_file else set(flags) if as_files else set()
    fixing = options.fix or options.diff
    if fixing:
        from flaglint.cli.fixing import choose  # noqa: PLC0415 fixes: only with --fix or --diff
        from flaglint.fix.files import text_edits  # noqa: PLC0415 fixes: only with --fix or --diff

    def run(fixed: dict) -> list[Checked]:
        checked = []
        for source in sources:
            if source.file in on_disk and fixed is not None:
                source = source.replace(text=read_text_file(source.file, FLAG_FILE))
            elif fixed and source.file in fixed:
                source = source.replace(text=fixed[source.file])
            if source.chain is not None and fixed is not None:  # a fix may have edited its config files: read them again
                source = source.replace(chain=check_sources(tuple(flags), checker.pin.configs)[0].chain)
            result = apply_settings(checker.check(source, env, max_fixes=options.max_fixes), settings, source.file)
            if source.chain is not None:  # each fix made where each value was set: the report lists what --fix applies
                from flaglint.fix.config_files import config_fixes  # noqa: PLC0415 YAML edits: only for an argv over a config file

                result.fixes = config_fixes(checker.config(source, env)[0], result, checker.meant)
            item = Checked(source.file, source.text, result, in_file=source.file in on_disk, argv=source.argv)
            item.fix = choose(result.fixes, options.unsafe_fixes) if fixing else None
            if item.fix is not None:
                offset = bom_length(source.file, FLAG_FILE) if item.in_file else 0
                own = [edit for edit in item.fix.edits if edit.file is None]  # of the flag string; else of a config file
                item.edits = text_edits(source.file or "", source.text, own, item.fix.applicability, offset)
                item.config_edits = [edit for edit in item.fix.edits if edit.file is not None]
            checked.append(item)
        return checked

    checked = run(None)
    if confirm_with:
        from flaglint.frontends.check.confirm import confirm  # noqa: PLC0415 subprocess and tempfile: only with --confirm-with

        for number, item in enumerate(checked, 1):
            with Progress() as progress:
                progress.step(f"running MaxText's own config check with {confirm_with} ({number} of {len(checked)})")
                answer = confirm(confirm_with, settings["pin"], item.text, env, settings["model"])
            echo(answer, err=True)
    fix_and_emit(checked, run, options, settings)



def _check_tunix(args: tuple[str, ...], options: Options, settings, env: dict[str, str]) -> None:
    from flaglint.frontends.check.tunix_argv import check_tunix_argv  # noqa: PLC0415 Tunix's modules: only for a Tunix command line

    end_of_startup()
    fixing = options.fix or options.diff
    if fixing:
        from flaglint.cli.fixing import choose  # noqa: PLC0415 fixes: only with --fix or --diff
        from flaglint.fix.files import text_edits  # noqa: PLC0415 fixes: only with --fix or --diff

    def run(fixed: dict | None) -> list[Checked]:
        text, result = check_tunix_argv(args, settings["tunix-pin"], env, options.devices(settings["pin"]), settings["pin"],
                                        fixed_words=(fixed or {}).get(None))
        item = Checked(None, text, apply_settings(result, settings))
        item.fix = choose(item.result.fixes, options.unsafe_fixes) if fixing else None
        if item.fix is not None:  # of the argv's words; else of the override file
            item.edits = text_edits("", text, [edit for edit in item.fix.edits if edit.file is None], item.fix.applicability, 0)
            item.config_edits = [edit for edit in item.fix.edits if edit.file is not None]
        return [item]

    fix_and_emit(run(None), run, options, settings)


def _is_tunix_argv(flags: tuple[str, ...], tunix_pin: str | None) -> bool:
    """tunix/launch.py's is_tunix_argv, asked only where a word names Tunix (its module, its
    tunix/cli/ scripts) or the first is a .yaml: a flag string's check loads no launch recogniser."""
    if not (flags[0].endswith(".yaml") or any("tunix" in word for word in flags)):
        return False
    from flaglint.tunix.launch import is_tunix_argv  # noqa: PLC0415 as said above
    from flaglint.tunix.pins import tunix_base_names  # noqa: PLC0415 Tunix's pins: only for a .yaml first word

    return is_tunix_argv(flags, lambda: tunix_base_names(tunix_pin))


def _flag_files(flags: tuple[str, ...]) -> bool:
    """Whether FLAGS name flag files: each an existing file that is not a YAML config (MaxText's argv
    starts with one). A path that exists is read, never taken as a flag string."""
    return bool(flags) and all(flag != "-" and not flag.endswith((".yml", ".yaml")) and os.path.isfile(flag) for flag in flags)


def _refuse_for_batch(options: Options) -> None:
    """--batch prints one JSON result per line as each is checked: the options that shape a report
    have none to shape."""
    if "output_format" in options.given and options.output_format != "json":
        raise InputError(f"--batch prints one JSON result per line; --format {options.output_format} is not available with it")
    shaping = {"output_file": "-o", "statistics": "--statistics", "diff": "--diff", "show_fixes": "--show-fixes", "quiet": "-q",
               "stdin_filename": "--stdin-filename"}
    given = [flag for name, flag in shaping.items() if name in options.given]
    if given:
        raise InputError(f"--batch prints one JSON result per line on stdout; {given[0]} does not apply to it")


def _check_batch(checker, batch: str, env, max_fixes: int, settings, exit_zero: bool) -> None:
    data = read_stdin(BATCH_FILE) if batch == "-" else read_file(batch, BATCH_FILE)
    failed = False
    for number, line in enumerate(decode(data, batch).splitlines(), 1):
        result = apply_settings(checker.check(FlagSource(line, file=None), env, fix=max_fixes > 0, max_fixes=max_fixes), settings)
        payload = result.to_json()
        payload["line"] = number
        echo(json.dumps(payload))
        failed |= result.fails(settings["fail-on"])
    sys.exit(1 if failed and not exit_zero else 0)

"""`flaglint gate MANIFEST…|-`: refuse a JobSet manifest whose trainer would fail on its flags."""

from __future__ import annotations

from pathlib import Path

import click

from flaglint.cli.inputs import input_paths, refuse_unread_stdin_filename
from flaglint.cli.options import common_options
from flaglint.cli.output import fix_and_emit
from flaglint.cli.shared import Options, load_checker
from flaglint.core.findings import InputError
from flaglint.core.reading import MANIFEST, decode, read_stdin, read_text
from flaglint.frontends.gate.manifests import (
    check_manifest,
    check_manifest_text,
    manifest_edits,
)
from flaglint.report import Checked
from flaglint.settings.applied import apply_settings


@click.command()
@click.argument("manifests", nargs=-1, required=True)
@common_options
@click.option("--allow-unverified", is_flag=True,
              help="A launch that cannot be verified, or a MaxText check flaglint cannot judge, is a warning, not an error.")
@click.option("--memory", "with_memory", is_flag=True,
              help="Also compile each MaxText launch's train step for its slice and block it where it does not fit in HBM "
                   "(`flaglint memory`: minutes a launch the first time).")
@click.option("--compile-with", metavar="PYTHON", help="With --memory: compile with this Python (MaxText, jax and libtpu installed).")
def gate(manifests, options: Options, allow_unverified, with_memory, compile_with):
    """Check every JobSet in MANIFESTS (YAML files, `-` for stdin, a directory for the *.yaml and
    *.yml files in it) before `kubectl apply`.

    Exit 1 blocks the launch (a finding at or above --fail-on); exit 2 is unreadable input.
    --env/--env-file give Tunix variables assumed for every launch; the manifest's own values win.
    """

    manifests = input_paths(manifests, (".yaml", ".yml"), "manifests")
    refuse_unread_stdin_filename(options.stdin_filename, manifests)
    settings = options.settings()
    env = options.env()
    checker = load_checker(settings, options.devices(settings["pin"]), fail_closed=not allow_unverified)
    fix, max_fixes = options.max_fixes > 0, options.max_fixes
    stdin = decode(read_stdin(MANIFEST), "<stdin>") if "-" in manifests else None

    def run(fixed=None) -> list[Checked]:
        checked = []
        for manifest in manifests:
            if manifest == "-":
                label = options.stdin_filename or "<stdin>"
                text = (fixed or {}).get(label, stdin)
                items = check_manifest_text(text, label, env=env, checker=checker, fix=fix, max_fixes=max_fixes,
                                            allow_unverified=allow_unverified, tunix_pin=settings["tunix-pin"])
            else:
                items = check_manifest(Path(manifest), env=env, checker=checker, fix=fix, max_fixes=max_fixes,
                                       allow_unverified=allow_unverified, tunix_pin=settings["tunix-pin"])
            for item in items:
                apply_settings(item.result, settings, item.label)
                item.in_file = manifest != "-"
                if options.fix or options.diff:
                    for candidate in item.result.fixes:
                        edits = manifest_edits(item.text, candidate, item.label) if candidate.safe or options.unsafe_fixes else None
                        if edits is not None:
                            item.fix, item.edits = candidate, edits
                            break
            checked.extend(items)
        return checked

    if with_memory and (options.fix or options.diff):
        raise InputError("--memory compiles the launches as they are; run it without --fix or --diff")
    checked = run()
    if with_memory:
        checked += _memory(manifests, stdin, checker, env, options, compile_with)
    fix_and_emit(checked, run, options, settings)


def _memory(manifests, stdin: str | None, checker, env: dict[str, str], options: Options, compile_with: str | None) -> list[Checked]:
    """`--memory`: each MaxText launch's train step compiled for its slice (flaglint memory)."""
    from flaglint.cli.memory import judge, manifest_launches  # noqa: PLC0415 the compiles: only with --memory

    launches = [launch for manifest in manifests
                for launch in manifest_launches(options.stdin_filename or "<stdin>" if manifest == "-" else manifest,
                                                stdin if manifest == "-" else read_text(manifest, MANIFEST), checker, env, False)]
    judge(launches, checker, compile_with, 1, False)
    return [launch.checked for launch in launches]

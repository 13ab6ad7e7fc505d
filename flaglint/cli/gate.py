"""`flaglint gate MANIFEST…|-`: refuse a JobSet manifest whose trainer would fail on its flags."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .options import Options, common_options
from .output import apply_settings, emit


@click.command()
@click.argument("manifests", nargs=-1, required=True)
@common_options
def gate(manifests, options: Options):
    """Check every JobSet in MANIFESTS (YAML files, `-` for stdin) before `kubectl apply`.

    Exit 1 blocks the launch (a finding at or above --fail-on); exit 2 is unreadable input.
    --env/--env-file give Tunix variables assumed for every launch; the manifest's own values win.
    """
    from ..check import Checker
    from ..gate import check_manifest, check_manifest_text
    from ..read import decode

    settings = options.settings()
    env = options.env()
    checker = Checker(settings["pin"], settings["model"], tuple(settings["extra-rules"]))
    fix, max_fixes = options.max_fixes > 0, options.max_fixes
    checked = []
    for manifest in manifests:
        if manifest == "-":
            items = check_manifest_text(decode(sys.stdin.buffer.read(), "<stdin>"), "<stdin>", env=env, checker=checker,
                                        fix=fix, max_fixes=max_fixes)
        else:
            items = check_manifest(Path(manifest), env=env, checker=checker, fix=fix, max_fixes=max_fixes)
        for item in items:
            apply_settings(item.result, settings, item.label)
        checked.extend(items)
    emit(options.output_format, checked, settings)

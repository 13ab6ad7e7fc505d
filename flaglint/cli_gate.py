"""`flaglint gate MANIFEST…|-`: refuse a JobSet manifest whose trainer would fail on its flags.

Registered on the main group by `main.add_command(gate)` at the end of cli.py (it reuses the
check command's options, settings and exit codes from there).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .cli import _apply_settings, _common, _emit, _settings


@click.command()
@click.argument("manifests", nargs=-1, required=True)
@_common
@click.option("--allow-unverified", is_flag=True, help="A launch that cannot be verified is a warning, not an error.")
def gate(manifests, env_items, env_file, pin, requirements, model, output_format, fail_on, max_fixes, allow_unverified):
    """Check every JobSet in MANIFESTS (YAML files, `-` for stdin) before `kubectl apply`.

    Exit 1 blocks the launch (a finding at or above --fail-on); exit 2 is unreadable input.
    --env/--env-file give Tunix variables assumed for every launch; the manifest's own values win.
    """
    from .check import Checker
    from .gate import check_manifest
    from .read import decode, read_env_assignments

    settings = _settings(pin, requirements, model, fail_on)
    env = read_env_assignments(env_items, env_file)
    checker = Checker(settings["pin"], settings["model"], tuple(settings["extra-rules"]))
    checked = []
    for manifest in manifests:
        if manifest == "-":
            items = check_manifest(decode(sys.stdin.buffer.read(), "<stdin>"), label="<stdin>", env=env, checker=checker,
                                   fix=max_fixes > 0, max_fixes=max_fixes, allow_unverified=allow_unverified)
        else:
            items = check_manifest(Path(manifest), env=env, checker=checker, fix=max_fixes > 0, max_fixes=max_fixes,
                                   allow_unverified=allow_unverified)
        for item in items:
            _apply_settings(item.result, settings, item.label)
        checked.extend(items)
    _emit(output_format, checked, settings)

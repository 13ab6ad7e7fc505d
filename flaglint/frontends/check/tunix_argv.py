"""`flaglint check` of a Tunix command line: `BASE.yaml key=value …` or a whole
`python -m tunix.cli.<entry> …`, checked at the Tunix pin (frontends/tunix_commands.py), every
path relative to the working directory."""

from __future__ import annotations

from pathlib import Path

from flaglint.core.findings import InputError, Result
from flaglint.frontends.check.show import Provenance
from flaglint.frontends.checker import Checker
from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.pins.pins import DEFAULT_PIN
from flaglint.read.argv import argv_source, shell_words
from flaglint.resolve.topology import DeviceCount
from flaglint.tunix.launch import recognise_tunix
from flaglint.tunix.pins import load_tunix_pin


def check_tunix_argv(args: tuple[str, ...], tunix_pin: str | None, env: dict[str, str],
                     devices: DeviceCount | None = None, maxtext_pin: str = DEFAULT_PIN,
                     fixed_words: str | None = None) -> tuple[str, Result]:
    """The argv as its words are shown (the text findings point into) and the result, with its
    fixes; a MaxText model's argv is checked at `maxtext_pin`. `fixed_words`: the words after the
    module as a fix left them (the shown text, fixed), checked instead of those of `args`."""
    pin = load_tunix_pin(tunix_pin)
    command = recognise_tunix(list(args))
    words = list(args[command.start:]) if command is not None else list(args)
    if fixed_words is not None:
        words = [token.text for token in shell_words(fixed_words)]
    checked = check_tunix_words(pin, command, words, env, (Path.cwd(),), devices=devices,
                                maxtext=lambda: Checker(maxtext_pin, devices=devices), fix=True)
    return argv_source(words).text, Result(pin=pin.name, findings=checked.findings, fixes=checked.fixes, notes=checked.notes)


def tunix_provenance(args: tuple[str, ...], tunix_pin: str | None, env: dict[str, str], keys: list[str]) -> tuple[str, list[Provenance]]:
    """Each Tunix key asked for (every key the command line, the override file or a T_ variable
    set, when none is), with its merged value and where it was set."""
    pin = load_tunix_pin(tunix_pin)
    command = recognise_tunix(list(args))
    words = list(args[command.start:]) if command is not None else list(args)
    checked = check_tunix_words(pin, command, words, env, (Path.cwd(),))
    if checked.check is None or checked.check.merged.stopped:
        first = next((f.message for f in checked.findings), "Tunix stops before it merges its config")
        raise InputError(f"the values cannot be shown: {first}")
    merged = checked.check.merged
    chosen = keys or [k for k, o in merged.origins.items() if o.kind != "base" and not isinstance(_value(merged, k), dict)]
    rows = []
    for key in chosen:
        try:
            value = merged.value(key)
        except KeyError:
            raise InputError(f"{key}: not a key of the merged Tunix {pin.version} config") from None
        origin = merged.origin(key)
        where = origin.location if origin is not None else None
        rows.append(Provenance(key, value, origin.kind if origin else "base", origin.label if origin else "", where.file if where else None,
                               where.line if where else None, where.column if where and where.file else None))
    return pin.name, rows


def _value(merged, key: str):
    try:
        return merged.value(key)
    except KeyError:
        return None

"""`flaglint check` of a Tunix command line: `BASE.yaml key=value …` or a whole
`python -m tunix.cli.<entry> …`, checked at the Tunix pin (frontends/tunix_commands.py), every
path relative to the working directory."""

from __future__ import annotations

from pathlib import Path

from flaglint.core.findings import Result
from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.read.argv import argv_source
from flaglint.tunix.launch import recognise_tunix
from flaglint.tunix.pins import load_tunix_pin


def check_tunix_argv(args: tuple[str, ...], tunix_pin: str | None, env: dict[str, str]) -> tuple[str, Result]:
    """The argv as its words are shown (the text findings point into) and the result."""
    pin = load_tunix_pin(tunix_pin)
    command = recognise_tunix(list(args))
    words = list(args[command.start:]) if command is not None else list(args)
    checked = check_tunix_words(pin, command, words, env, (Path.cwd(),))
    return argv_source(words).text, Result(pin=pin.name, findings=checked.findings, notes=checked.notes)

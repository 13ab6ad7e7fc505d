"""The options `check`, `lint` and `gate` share, as one frozen dataclass, and the settings they give."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Callable

import click

from ..report import FORMATS


@dataclass(frozen=True)
class Options:
    env_items: tuple[str, ...] = ()
    env_file: str | None = None
    pin: str | None = None
    requirements: str | None = None
    model: str | None = None
    output_format: str = "text"
    fail_on: str | None = None
    max_fixes: int = 3

    def settings(self):
        """The project configuration, overridden by these options."""
        from ..config import load_settings
        from ..schema.pins import pin_from_requirements

        settings = load_settings()
        settings.override("requirements", self.requirements, "--requirements")
        if self.requirements:
            settings.override("pin", pin_from_requirements(self.requirements), f"--requirements {self.requirements}")
        settings.override("pin", self.pin, "--pin")
        settings.override("model", self.model, "--model")
        settings.override("fail-on", self.fail_on, "--fail-on")
        return settings

    def env(self) -> dict[str, str]:
        from ..read import read_env_assignments

        return read_env_assignments(self.env_items, self.env_file)


_OPTIONS = [
    click.option("--env", "env_items", multiple=True, metavar="K=V", help="A Tunix variable (repeatable)."),
    click.option("--env-file", type=click.Path(dir_okay=False), help="KEY=VALUE lines of Tunix variables."),
    click.option("--pin", help="MaxText pin: maxtext-0.2.5, or a fork commit such as bbd0f6f10."),
    click.option("--requirements", type=click.Path(dir_okay=False), help="Take the pin from this requirements file."),
    click.option("--model", help="Apply this MaxText model config (configs/models/NAME.yml) first."),
    click.option("--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format."),
    click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), help="Lowest severity that fails (default: error)."),
    click.option("--max-fixes", type=click.IntRange(0, 50), default=3, show_default=True, help="Fixes of the smallest size to list."),
]
_NAMES = tuple(f.name for f in fields(Options))


def common_options(command: Callable) -> Callable:
    """Adds the shared options; the command receives them as one `options: Options` argument."""

    @functools.wraps(command)
    def wrapper(**kwargs):
        shared = {name: kwargs.pop(name) for name in _NAMES}
        return command(options=Options(**shared), **kwargs)

    for option in reversed(_OPTIONS):
        wrapper = option(wrapper)
    return wrapper

"""A config whose every read is kept: what was worked out from it (a solver's answer, the smallest
fixes) holds for another config on which each of those reads gives what it gave, so an editor's
check after an edit, or another launch of a recipe, reuses it instead of working it out again."""

from __future__ import annotations

from flaglint.resolve.resolver import Config

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


def read(config: Config, attribute: str, arguments: tuple | None) -> Any:
    """What the config gives for an attribute (a method, with `arguments`): the pin itself, else the
    repr (a value of another type, or -0.0 for 0.0, is another read); where Python gives no repr
    (an integer past its 4,300 digits), the type and the value."""
    value = getattr(config, attribute)
    if arguments is not None:
        value = value(*arguments)
    if attribute == "pin":
        return value
    try:
        return repr(value)
    except ValueError:
        return type(value), value


def reads_alike(config: Config, reads: dict) -> bool:
    """Whether each of the reads (Recorded's) gives on `config` what it gave."""
    return all(read(config, attribute, arguments) == seen for (attribute, arguments), seen in reads.items())


class Recorded:
    """A config, each read of it kept in `reads`: (attribute, arguments or None) -> read()'s."""

    def __init__(self, config: Config, reads: dict):
        self._config, self._reads = config, reads

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(self._config, attribute)
        if not callable(value):
            self._reads[attribute, None] = read(self._config, attribute, None)
            return value

        def method(*arguments):
            if (attribute, arguments) not in self._reads:
                self._reads[attribute, arguments] = read(self._config, attribute, arguments)
            return value(*arguments)

        return method

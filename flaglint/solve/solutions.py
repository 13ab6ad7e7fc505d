"""What a fix search works within and gives back: the names no fix changes, its solutions, and
the conflict it reports when there is none. The check (rules.py) and the Z3 encoding (smt.py)
both read them, so z3 stays off the path of a check that needs no fix."""

from __future__ import annotations

from functools import lru_cache

from flaglint.core.data import data_dir
from flaglint.core.data_cache import yaml_file
from flaglint.core.records import FrozenRecord
from flaglint.maxtext.tpu import LIVE_SLICES
from flaglint.resolve.resolver import Config
from flaglint.tunix.variables import load_tunix

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


class Solution(FrozenRecord):
    """The solver's answer: one minimal set of value changes under which the rules hold, which
    fix/flags.py writes as a Fix."""

    __slots__ = field_names = ("values",)

    def __init__(self, values: tuple[tuple[str, Any, Any], ...]):
        self.values = values  # (name, from, to)


class Unsatisfiable(Exception):
    def __init__(self, rules: list[str], fixed: dict[str, Any]):
        super().__init__(rules)
        self.rules = rules
        self.fixed = fixed


def fixed_names(config: Config) -> set[str]:
    """What a fix never changes: facts of the hardware (the device count too), and the escape hatches of rules/fix_policy.yml."""
    return {name for name, var in load_tunix().variables.items() if var.fixed} | set(held_keys()) | set(config.devices) | {LIVE_SLICES}


@lru_cache(maxsize=None)
def held_keys() -> tuple[str, ...]:
    return tuple(yaml_file(data_dir("rules") / "fix_policy.yml")["hold"])

"""How many products of value sets the renderer unions (guards.simplified's input) while some work
runs: a count that follows the work a script's conditions cost, the same on any machine."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flaglint.render.bash import guards

T = TypeVar("T")


def cubes_unioned(monkeypatch, work: Callable[[], T]) -> tuple[int, T]:
    """The products `work()` unions, and what it returns."""
    seen = []
    real = guards.simplified

    def counted(cubes, universe):
        cubes = list(cubes)
        seen.append(len(cubes))
        return real(cubes, universe)

    monkeypatch.setattr(guards, "simplified", counted)
    try:
        found = work()
    finally:
        monkeypatch.setattr(guards, "simplified", real)
    return sum(seen), found

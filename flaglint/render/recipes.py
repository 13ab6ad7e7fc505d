"""Recipe scripts evaluated with MaxText's launches kept: the bash evaluator (render/bash), which
knows no program it does not run, handed what flaglint knows of MaxText's (maxtext/launch.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from flaglint.maxtext.launch import MAXTEXT_LAUNCHES
from flaglint.render.bash import explorer, symbolic
from flaglint.render.bash.explorer import Exploration
from flaglint.render.bash.types import Rendering


def render(script: Path, env: Mapping[str, str], text: bytes | None = None, args: Sequence[str] = ()) -> Rendering:
    """The script's final variables and MaxText launches when it runs with exactly `env` and the
    arguments `args` (explorer.render)."""
    return explorer.render(script, MAXTEXT_LAUNCHES, env, text, args)


def explore(script: Path, fixed: Mapping[str, str] = {}, vary: Mapping[str, list[str]] = {}, path_cap: int = 4096,
            args: Sequence[str] | None = None) -> Exploration:
    """The script on every feasible combination of branch outcomes (explorer.explore)."""
    return explorer.explore(script, MAXTEXT_LAUNCHES, fixed, vary, path_cap, args)


def evaluate(script: Path, fixed: Mapping[str, str] = {}, vary: Mapping[str, list[str]] = {},
             text: bytes | None = None, args: Sequence[str] | None = None) -> Exploration:
    """Every feasible outcome of the script, with joined paths merged (symbolic.evaluate); `args`:
    its arguments (None: not given, so they are inputs like its environment)."""
    return symbolic.evaluate(script, MAXTEXT_LAUNCHES, fixed, vary, text, args)

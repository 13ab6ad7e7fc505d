"""Recipe scripts evaluated with MaxText's and Tunix's launches kept: the bash evaluator
(render/bash), which knows no program it does not run, handed what flaglint knows of their
launches (maxtext/launch.py, tunix/launch.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from flaglint.maxtext.launch import MAXTEXT_LAUNCHES
from flaglint.render.bash import explorer, symbolic
from flaglint.render.bash.explorer import Exploration
from flaglint.render.bash.types import Rendering, Unwrapped
from flaglint.tunix.launch import TunixLaunches
from flaglint.tunix.variables import launcher, load_tunix


class _Launches:
    """MaxText's launches, with the variables Tunix's programs read kept too (T_<KEY>, HF_TOKEN):
    python starts either, behind the same wrappers."""

    _tunix = TunixLaunches()

    def may_launch(self, program: str, arguments: Sequence[str | None] = ()) -> bool:
        return MAXTEXT_LAUNCHES.may_launch(program, arguments)

    def reads_variable(self, name: str) -> bool:
        return MAXTEXT_LAUNCHES.reads_variable(name) or self._tunix.reads_variable(name)

    def has_default(self, name: str) -> bool:
        """The M_ and T_ variables, HF_TOKEN, the flags and the variables Tunix's launcher reads
        (TRAINER_TPU_SLICE, …): unset, each has the launcher's or the trainer's default."""
        return self.reads_variable(name) or name == launcher().flags or name in load_tunix().variables

    def unwrap(self, words: Sequence[str | None]) -> Unwrapped | None:
        return MAXTEXT_LAUNCHES.unwrap(words)


LAUNCHES = _Launches()


def render(script: Path, env: Mapping[str, str], text: bytes | None = None, args: Sequence[str] = ()) -> Rendering:
    """The script's final variables and MaxText launches when it runs with exactly `env` and the
    arguments `args` (explorer.render)."""
    return explorer.render(script, LAUNCHES, env, text, args)


def explore(script: Path, fixed: Mapping[str, str] = {}, vary: Mapping[str, list[str]] = {}, path_cap: int = 4096,
            args: Sequence[str] | None = None) -> Exploration:
    """The script on every feasible combination of branch outcomes (explorer.explore)."""
    return explorer.explore(script, LAUNCHES, fixed, vary, path_cap, args)


def evaluate(script: Path, fixed: Mapping[str, str] = {}, vary: Mapping[str, list[str]] = {},
             text: bytes | None = None, args: Sequence[str] | None = None) -> Exploration:
    """Every feasible outcome of the script, with joined paths merged (symbolic.evaluate); `args`:
    its arguments (None: not given, so they are inputs like its environment)."""
    return symbolic.evaluate(script, LAUNCHES, fixed, vary, text, args)

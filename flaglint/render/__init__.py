"""Static rendering of recipe scripts (never executed), with MaxText's launches kept."""

from flaglint.render.bash.explorer import (
    Exploration,
    Note,
    Origin,
    Outcome,
    Rendering,
    ScriptError,
    Value,
)
from flaglint.render.recipes import evaluate, explore, render

__all__ = ["Exploration", "Note", "Origin", "Outcome", "Rendering", "ScriptError", "Value", "evaluate", "explore", "render"]

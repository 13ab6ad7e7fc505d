"""Static rendering of recipe scripts (never executed)."""

from flaglint.render.bash.explorer import (
    Exploration, Note, Origin, Outcome, Rendering, ScriptError, Value, explore, render,
)

__all__ = ["Exploration", "Note", "Origin", "Outcome", "Rendering", "ScriptError", "Value", "explore", "render"]

"""flaglint: checks MaxText and Tunix training flags before launch.

The Python API: `check_flags(flags, pin=..., env=...)` returns a `Result` of typed findings and
fixes. Imports stay light; the solver and JAX load only where they are used.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["check_flags", "check_manifest", "Checker", "Result", "Finding", "Fix", "Change", "Location"]


def __getattr__(name: str):
    if name in ("check_flags", "Checker"):
        from . import check

        return getattr(check, name)
    if name == "check_manifest":
        from .gate import check_manifest

        return check_manifest
    if name == "Location":
        from .location import Location

        return Location
    if name in ("Result", "Finding", "Fix", "Change"):
        from . import findings

        return getattr(findings, name)
    raise AttributeError(name)

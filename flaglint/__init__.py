"""flaglint: checks MaxText and Tunix training flags before launch.

The Python API: `check_flags(flags, pin=..., env=...)` returns a `Result` of typed findings and
fixes. Imports stay light; the solver and JAX load only where they are used.
"""

from __future__ import annotations

__all__ = ["check_flags", "check_manifest", "Checker", "Result", "Finding", "Fix", "Change", "Applicability", "Location"]


def __getattr__(name: str):
    if name == "__version__":
        from flaglint.core.version import __version__  # noqa: PLC0415 the API: `import flaglint` loads nothing it does not use

        return __version__
    if name in ("check_flags", "Checker"):
        from flaglint.frontends import checker as check  # noqa: PLC0415 the API: `import flaglint` loads nothing it does not use

        return getattr(check, name)
    if name == "check_manifest":
        from flaglint.frontends.gate.manifests import check_manifest  # noqa: PLC0415 the API: `import flaglint` loads nothing it does not use

        return check_manifest
    if name == "Location":
        from flaglint.core.location import Location  # noqa: PLC0415 the API: `import flaglint` loads nothing it does not use

        return Location
    if name in ("Result", "Finding", "Fix", "Change"):
        from flaglint.core import findings  # noqa: PLC0415 the API: `import flaglint` loads nothing it does not use

        return getattr(findings, name)
    if name == "Applicability":
        from flaglint.core.edits import Applicability  # noqa: PLC0415 the API: `import flaglint` loads nothing it does not use

        return Applicability
    raise AttributeError(name)

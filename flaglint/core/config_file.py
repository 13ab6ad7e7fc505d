"""The project's config file: the nearest flaglint.toml, or pyproject.toml with a [tool.flaglint]
table, and that table as written. The settings type it (settings/settings.py); the pin store reads
its `pin-store`. A file read before comes from the data cache, so a run does not import a TOML parser.
"""

from __future__ import annotations

import sys
from pathlib import Path

from flaglint.core.data_cache import cached, exact_json
from flaglint.core.findings import InputError
from flaglint.core.reading import PROJECT_CONFIG, read_text

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


def find_config_file(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest flaglint.toml, or pyproject.toml with a [tool.flaglint] table, from start
    upwards, with its table as written."""
    for folder in [start, *start.parents]:
        own = folder / "flaglint.toml"
        if own.is_file():
            return own, flaglint_table(own)
        project = folder / "pyproject.toml"
        if project.is_file():
            table = flaglint_table(project)
            if table is not None:
                return project, table
    return None


def flaglint_table(path: Path) -> dict[str, Any] | None:
    """The flaglint table of a config file as written (None: a pyproject.toml without [tool.flaglint]).
    A file with an error is never cached, so it is reported on every run."""
    return cached("configfile", [path], lambda: {"table": _read_table(path)}, encode=exact_json)["table"]


def _read_table(path: Path) -> dict[str, Any] | None:
    table = _read_toml(path)
    if path.name == "pyproject.toml":
        tool = table.get("tool", {})
        table = tool.get("flaglint") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise InputError(f"{path}: [tool.flaglint] must be a table")
    return table


def _read_toml(path: Path) -> dict[str, Any]:
    # tomllib: only for a file the data cache does not hold
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415 tomllib: only for a file the data cache does not hold
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib  # noqa: PLC0415 tomllib: only for a file the data cache does not hold
    try:
        return tomllib.loads(read_text(path, PROJECT_CONFIG))
    except (tomllib.TOMLDecodeError, ValueError) as err:  # ValueError: an integer of over 4,300 digits
        raise InputError(f"{path}: invalid TOML ({err})") from None

"""Project configuration: `[tool.flaglint]` in pyproject.toml, or flaglint.toml; the nearest file wins.

Command-line options override the file; `flaglint config` shows each effective setting and where
it came from.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .findings import InputError


SETTINGS: dict[str, tuple[type, Any, str]] = {
    # name: (type, default, meaning)
    "pin": (str, "maxtext-0.2.5", "MaxText pin (a version such as maxtext-0.2.5, or a fork commit)"),
    "requirements": (str, None, "requirements file whose MaxText line gives the pin"),
    "model": (str, None, "MaxText model config applied before the flags"),
    "select": (list, [], "only these rules (ids or prefixes); empty means all"),
    "ignore": (list, [], "rules (ids or prefixes) never reported"),
    "severity": (dict, {}, "rule id -> error|warning|info"),
    "per-file-ignores": (dict, {}, "glob -> rule ids ignored in matching files"),
    "extra-rules": (list, [], "more rule files, relative to the config file"),
    "path-cap": (int, 4096, "most paths explored per recipe script"),
    "fail-on": (str, "error", "lowest severity that fails the run"),
    "pin-store": (str, None, "folder of the project's pin store (`flaglint schema import --store project`)"),
}


@dataclass
class Settings:
    values: dict[str, Any] = field(default_factory=lambda: {k: v[1] for k, v in SETTINGS.items()})
    origins: dict[str, str] = field(default_factory=lambda: {k: "default" for k in SETTINGS})
    file: Path | None = None

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def override(self, name: str, value: Any, origin: str) -> None:
        if value is not None and value != () and value != []:
            self.values[name] = list(value) if isinstance(value, tuple) else value
            self.origins[name] = origin


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest flaglint.toml, or pyproject.toml with a [tool.flaglint] table, from start upwards."""
    for folder in [start, *start.parents]:
        own = folder / "flaglint.toml"
        if own.is_file():
            return own, _read(own)
        project = folder / "pyproject.toml"
        if project.is_file():
            table = _read(project).get("tool", {}).get("flaglint")
            if table is not None:
                return project, table
    return None


def _read(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot read ({err})") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: invalid TOML ({err})") from None


def load_settings(start: Path | None = None) -> Settings:
    settings = Settings()
    found = find_config((start or Path.cwd()).resolve())
    if found is None:
        return settings
    path, table = found
    settings.file = path
    for name, value in table.items():
        if name not in SETTINGS:
            raise InputError(f"{path}: unknown flaglint setting {name!r}; known: {', '.join(SETTINGS)}")
        kind = SETTINGS[name][0]
        if not isinstance(value, kind):
            raise InputError(f"{path}: setting {name!r} must be a {kind.__name__}")
        if name in ("requirements", "pin-store"):
            value = str((path.parent / value))
        if name == "extra-rules":
            value = [str(path.parent / v) for v in value]
        settings.values[name] = value
        settings.origins[name] = str(path)
    if "requirements" in table and "pin" not in table:
        from .schema.pins import pin_from_requirements

        settings.values["pin"] = pin_from_requirements(settings.values["requirements"])
        settings.origins["pin"] = f"{settings.values['requirements']} (via {path})"
    return settings


def rule_enabled(settings: Settings, rule_id: str, file: str | None = None) -> bool:
    import fnmatch

    select, ignore = settings["select"], settings["ignore"]
    if select and not any(rule_id.startswith(s) for s in select):
        return False
    if any(rule_id.startswith(s) for s in ignore):
        return False
    if file:
        for pattern, ids in settings["per-file-ignores"].items():
            if fnmatch.fnmatch(file, pattern) and any(rule_id.startswith(i) for i in ids):
                return False
    return True

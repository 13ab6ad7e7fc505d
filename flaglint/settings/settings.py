"""Project configuration: `[tool.flaglint]` in pyproject.toml, or flaglint.toml; the nearest file wins.

The file is validated as a typed model (unknown settings and values of the wrong type are exit 2,
naming the file, the setting and what it allows); rule ids in it must name rules that exist.
Command-line options override the file; `flaglint config` shows each effective setting and where
it came from.
"""

from __future__ import annotations

import copy
import fnmatch
import re
from pathlib import Path, PurePosixPath

from flaglint.core.config_file import find_config_file, flaglint_table
from flaglint.core.data import data_dir
from flaglint.core.data_cache import cached
from flaglint.core.findings import InputError
from flaglint.core.reading import PROJECT_CONFIG, REQUIREMENTS
from flaglint.core.records import FrozenRecord, Record
from flaglint.pins.pins import (
    canonical_pin,
    load_pin,
    names_maxtext,
    pin_from_requirements,
)
from flaglint.read.flags import read_text_file
from flaglint.rules.ruleset import (
    RENUMBERED_ID,
    Renumbering,
    load_ruleset,
    renumbered_ids,
)

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

# A type written as text ("Severity", "dict[str, Severity]") is read where settings/model.py types a file,
# whose Severity is a Literal of the severities: typing is imported only there.
RuleIds = list[str]


class SettingSpec(FrozenRecord):
    """What a config file may set under one name: its type, default, description and least value."""

    __slots__ = field_names = ("type", "default", "description", "minimum")

    def __init__(self, type: Any, default: Any, description: str, minimum: int | None = None):
        self.type = type
        self.default = default
        self.description = description
        self.minimum = minimum


# The settings a config file may hold (names written with dashes there), with their types; the file
# is typed by the pydantic model settings/model.py builds from this table, imported only when there is a
# file: a run without one does not pay for importing pydantic.
FIELDS: dict[str, SettingSpec] = {
    "pin": SettingSpec(str, "maxtext-0.2.5", "MaxText pin (a version such as maxtext-0.2.5, or a fork commit)"),
    "requirements": SettingSpec(str | None, None, "requirements file whose MaxText line gives the pin (and its google-tunix line the Tunix pin)"),
    "tunix_pin": SettingSpec(str | None, None, "Tunix pin for tunix.cli command lines (a release such as tunix-0.1.7); default: the newest bundled"),
    "model": SettingSpec(str | None, None, "MaxText model config applied before the flags"),
    "select": SettingSpec(RuleIds, [], "only these rules (ids or prefixes); empty means all"),
    "extend_select": SettingSpec(RuleIds, [], "rules (ids or prefixes) selected in addition to `select`"),
    "ignore": SettingSpec(RuleIds, [], "rules (ids or prefixes) never reported"),
    "severity": SettingSpec("dict[str, Severity]", {}, "rule id -> error|warning|info"),
    "per_file_ignores": SettingSpec(dict[str, RuleIds], {}, "glob (relative to the config file) -> rule ids ignored in matching files"),
    "extra_rules": SettingSpec(list[str], [], "more rule files, relative to the config file"),
    "path_cap": SettingSpec(int, 64, "most input combinations of a recipe script checked one by one for one launch (more are checked by the solver)", minimum=1),
    "fail_on": SettingSpec("Severity", "error", "lowest severity that fails the run"),
    "pin_store": SettingSpec(str | None, None, "folder of the project's pin store (`flaglint schema import --store project`)"),
    "docs_url": SettingSpec(str | None, None, "absolute URL of docs/rules.md where the team publishes it, for the rules' links in"
                        " SARIF (default: the rules.md shipped with flaglint, as a file URI)"),
}


def alias(name: str) -> str:
    return name.replace("_", "-")


SETTINGS: dict[str, str] = {alias(name): setting.description for name, setting in FIELDS.items()}
_RULE_ID_SETTINGS = ("select", "extend-select", "ignore")


def _defaults() -> dict[str, Any]:
    return {alias(name): copy.deepcopy(setting.default) for name, setting in FIELDS.items()}


class Settings(Record):
    """The settings of a run, each with where it came from (default, a config file, an option)."""

    __slots__ = field_names = ("values", "origins", "file")

    def __init__(self, values: dict[str, Any] | None = None, origins: dict[str, str] | None = None, file: Path | None = None):
        self.values = _defaults() if values is None else values
        self.origins = {name: "default" for name in SETTINGS} if origins is None else origins
        self.file = file

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def override(self, name: str, value: Any, origin: str) -> None:
        if value is not None and value != () and value != []:
            self.values[name] = list(value) if isinstance(value, tuple) else value
            self.origins[name] = origin

    def extend(self, name: str, values: list[str], origin: str) -> None:
        """Add to a list setting (command-line --extend-select, --ignore)."""
        if values:
            self.values[name] = [*self.values[name], *values]
            self.origins[name] = f"{self.origins[name]} + {origin}" if self.origins[name] != "default" else origin

    @property
    def root(self) -> Path:
        """The folder per-file-ignores globs are relative to: the config file's, else the working directory."""
        return self.file.parent if self.file else Path.cwd()


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest flaglint.toml, or pyproject.toml with a [tool.flaglint] table, from start
    upwards, with its settings typed."""
    found = find_config_file(start)
    return None if found is None else (found[0], config_table(found[0]))


def config_table(path: Path) -> dict[str, Any] | None:
    """The settings a config file sets, typed (None: a pyproject.toml without [tool.flaglint]).

    A file read before comes from the data cache: typing it imports pydantic, which would cost a
    cold check more than half again. A file with an error is never cached, so it is reported on
    every run."""
    return cached("settings", [path], lambda: {"table": _typed_table(path)})["table"]


def _typed_table(path: Path) -> dict[str, Any] | None:
    table = flaglint_table(path)
    if table is None:
        return None
    # pydantic: only for a file the data cache does not hold
    from pydantic import ValidationError  # noqa: PLC0415 pydantic: only for a file the data cache does not hold

    from flaglint.settings.model import typed_table  # noqa: PLC0415 pydantic: only for a file the data cache does not hold

    try:
        return typed_table(table, FIELDS, alias)
    except ValidationError as err:
        raise InputError(_validation_message(path, err)) from None


def _validation_message(path: Path, error) -> str:
    """One line for the first error of a pydantic ValidationError."""
    first = error.errors()[0]
    where = ".".join(_toml_key(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        top = str(first["loc"][0])
        if len(first["loc"]) == 1:
            return f"{path}: unknown flaglint setting {top!r}; known: {', '.join(SETTINGS)}"
    shown = repr(first["input"])
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{path}: {where}: {first['msg'].lower()} (got {shown})"


def _toml_key(part: Any) -> str:
    text = str(part)
    return text if text.replace("-", "").replace("_", "").isalnum() else f'"{text}"'


def load_settings(start: Path | None = None, config_file: str | None = None, isolated: bool = False) -> Settings:
    """The settings of the nearest config file (or of `config_file`; none with `isolated`)."""
    settings = Settings()
    if isolated:
        return settings
    if config_file is not None:
        path = Path(config_file)
        found: tuple[Path, dict[str, Any]] | None = (path.resolve(), config_table(path) or {})
    else:
        found = find_config((start or Path.cwd()).resolve())
    if found is None:
        return settings
    path, typed = found
    settings.file = path
    for name, value in typed.items():
        if name in ("requirements", "pin-store"):
            value = str(path.parent / value)
        if name == "extra-rules":
            value = [str(path.parent / v) for v in value]
        if name == "docs-url" and not value.startswith(("https://", "http://", "file://")):
            raise InputError(f"{path}: docs-url: an absolute URL of docs/rules.md is allowed, such as"
                             f" https://github.com/ORG/flaglint/blob/main/docs/rules.md (got {value!r})")
        if name in _PIN_SETTINGS:
            try:
                _PIN_SETTINGS[name](value)
            except InputError as err:
                raise InputError(f"{path}:{_line_of(path, name)}: {name}: {err}") from None
        settings.values[name] = value
        settings.origins[name] = str(path)
    if "requirements" in typed:
        from flaglint.tunix.pins import tunix_pin_from_requirements  # noqa: PLC0415 Tunix's pins: only where settings name Tunix or rule ids

        requirements = settings.values["requirements"]
        tunix = tunix_pin_from_requirements(read_text_file(requirements, REQUIREMENTS), requirements)
        if tunix is not None and "tunix-pin" not in typed:
            settings.values["tunix-pin"] = tunix
            settings.origins["tunix-pin"] = f"{requirements} (via {path})"
        if "pin" not in typed and (tunix is None or names_maxtext(requirements)):
            settings.values["pin"] = pin_from_requirements(requirements)
            settings.origins["pin"] = f"{requirements} (via {path})"
    return settings


def _canonical_tunix_pin(pin: str) -> str:
    from flaglint.tunix.pins import canonical_tunix_pin  # noqa: PLC0415 Tunix's pins: only where settings name Tunix or rule ids

    return canonical_tunix_pin(pin)


# The settings that name a pin, with what checks that the pin exists.
_PIN_SETTINGS = {"pin": canonical_pin, "tunix-pin": _canonical_tunix_pin}


def _line_of(path: Path, name: str) -> int:
    """The line of the config file that sets `name` (the first `name =`; 1 when none reads so)."""
    lines = read_text_file(str(path), PROJECT_CONFIG).splitlines()
    return next((number for number, line in enumerate(lines, 1) if line.split("=", 1)[0].strip().strip("'\"") == name), 1)


def known_rule_ids(extra_rules: tuple[str, ...] = ()) -> set[str]:
    """Every rule id flaglint has, at every MaxText version it carries rules for."""
    from flaglint.tunix.pins import bundled_tunix_pins, load_tunix_pin  # noqa: PLC0415 Tunix's pins: only where settings name Tunix or rule ids
    imported = data_dir("rules") / "maxtext"
    versions = sorted(p.name for p in imported.iterdir() if p.is_dir()) if imported.is_dir() else []
    maxtext = {rule.id for version in versions or [None] for rule in load_ruleset(version, extra_rules).rules}
    return maxtext | {rule.id for pin in bundled_tunix_pins() for rule in load_tunix_pin(pin).rules}


def check_rule_ids(settings: Settings) -> list[str]:
    """Every id or prefix the settings name must match a rule: a typo would silently select nothing.
    An old number of a validator (renumber_rule_ids) is read as its id; the warnings say so."""
    warnings = renumber_rule_ids(settings)
    named = [(name, rule_id) for name in _RULE_ID_SETTINGS for rule_id in settings[name]]
    named += [("severity", rule_id) for rule_id in settings["severity"]]
    named += [(f"per-file-ignores.{_toml_key(glob)}", rule_id) for glob, ids in settings["per-file-ignores"].items() for rule_id in ids]
    if not named:
        return warnings
    known = known_rule_ids(tuple(settings["extra-rules"]))
    for name, rule_id in named:
        exact = name == "severity"
        if rule_id and not _names_a_rule(rule_id, known, exact):
            known |= _pin_store_rule_ids(settings["pin"])
        if not _names_a_rule(rule_id, known, exact) or not rule_id:
            raise InputError(f"{_where(settings, name)}: no rule {rule_id!r}{'' if exact else ' (an id or a prefix of one)'}; `flaglint rules` lists them")
    return warnings


def _where(settings: Settings, name: str) -> str:
    """Where the setting NAME was written: a file and the setting, or the option (which names itself)."""
    origin = settings.origins[name.split(".")[0]]
    return origin if origin.startswith("--") else f"{origin}: {name}"


def _names_a_rule(rule_id: str, known: set[str], exact: bool) -> bool:
    return rule_id in known if exact else any(k.startswith(rule_id) for k in known)


def _pin_store_rule_ids(pin: str) -> set[str]:
    """The ids of a pin store entry's own rules: an import by an earlier flaglint numbered them."""
    try:
        rules = load_pin(pin).rules
    except InputError:
        return set()  # the pin itself is refused where it is used, naming what is wrong with it
    return {rule.id for rule in load_ruleset(rules).rules} if isinstance(rules, Path) else set()


def renumbering(settings: Settings, rule_id: str) -> Renumbering:
    """The old numbers RULE_ID (an MXnnnn or TXnnnn) is read among: the MaxText validators' at the
    settings' pin, or the Tunix checks' at their Tunix pin."""
    if rule_id.startswith("TX"):
        from flaglint.tunix.pins import load_tunix_pin, tunix_renumbering  # noqa: PLC0415 Tunix's pins: only where settings name Tunix or rule ids

        return tunix_renumbering(load_tunix_pin(settings["tunix-pin"]))
    pin = load_pin(settings["pin"])
    return Renumbering(renumbered_ids(pin.rules), pin.pin)


def renumber_rule_ids(settings: Settings) -> list[str]:
    """Replace each MXnnnn or TXnnnn the settings name, a number the checks of a bundled release had
    before their ids were the same at every release, with the id it stands for at the settings'
    MaxText or Tunix pin; one warning for each, naming where it was written and the id to write instead."""
    named = [rule_id for name in _RULE_ID_SETTINGS for rule_id in settings[name]]
    named += [rule_id for ids in settings["per-file-ignores"].values() for rule_id in ids] + list(settings["severity"])
    if not any(re.fullmatch(RENUMBERED_ID, rule_id) for rule_id in named):
        return []
    warnings: list[str] = []

    def renumber(name: str, rule_id: str) -> str:
        if not re.fullmatch(RENUMBERED_ID, rule_id):
            return rule_id
        table = renumbering(settings, rule_id)
        if rule_id not in table.ids:
            return rule_id
        warnings.append(f"{_where(settings, name)}: {table.warning(rule_id)}")
        return table.ids[rule_id]

    for name in _RULE_ID_SETTINGS:
        settings.values[name] = [renumber(name, rule_id) for rule_id in settings[name]]
    settings.values["per-file-ignores"] = {
        glob: [renumber(f"per-file-ignores.{_toml_key(glob)}", rule_id) for rule_id in ids]
        for glob, ids in settings["per-file-ignores"].items()}
    settings.values["severity"] = {renumber("severity", rule_id): level for rule_id, level in settings["severity"].items()}
    return warnings


def _matches(rule_id: str, prefixes: list[str]) -> bool:
    return any(rule_id.startswith(prefix) for prefix in prefixes)


def rule_enabled(settings: Settings, rule_id: str, file: str | None = None) -> bool:
    """Whether the settings report `rule_id` for a finding in `file` (a path, relative to the working
    directory or absolute; None for a flag string given on the command line)."""
    select = settings["select"]
    if select and not _matches(rule_id, [*select, *settings["extend-select"]]):
        return False
    if _matches(rule_id, settings["ignore"]):
        return False
    if file and settings["per-file-ignores"]:
        relative = _relative(Path(file), settings.root)
        for pattern, ids in settings["per-file-ignores"].items():
            if _glob_matches(relative, pattern) and _matches(rule_id, ids):
                return False
    return True


def _relative(path: Path, root: Path) -> PurePosixPath:
    absolute = path.resolve()
    try:
        return PurePosixPath(absolute.relative_to(root.resolve()).as_posix())
    except ValueError:
        return PurePosixPath(absolute.as_posix())


def _glob_matches(relative: PurePosixPath, pattern: str) -> bool:
    """A glob relative to the config file's folder; one without `/` also matches a file's name anywhere."""
    pattern = pattern.removeprefix("./")
    if fnmatch.fnmatchcase(str(relative), pattern):
        return True
    return "/" not in pattern and fnmatch.fnmatchcase(relative.name, pattern)

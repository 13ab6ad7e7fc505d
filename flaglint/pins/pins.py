"""Pins: which MaxText a recipe runs, and the schema of the keys it defines.

A pin is a bundled release (`maxtext-0.2.5` or `0.2.5`), whose schema is generated into
`schemas/maxtext-<version>.json` and its rules into `rules/maxtext/<version>/`; a fork commit,
described in `schemas/pins/<commit>.yml` as an overlay on the pin it extends (keys added, keys
removed, enum values added); an import in a pin store (store.py), by name or commit; or
`installed`, the maxtext installed in the running Python. A commit is also named by a prefix of at
least 7 characters. Loading one pin reads only that pin's files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from flaglint.core.data import data_dir
from flaglint.core.data_cache import (
    LazyJson,
    cached,
    cached_text,
    header_and_lines,
    read_header_and_lines,
    yaml_file,
)
from flaglint.core.findings import InputError
from flaglint.core.numbers import shown_text
from flaglint.core.reading import PIN_FILE, REQUIREMENTS, Unreadable, read_text
from flaglint.core.records import FrozenRecord, Record
from flaglint.maxtext.values import ValueError_, cleaned, coerce
from flaglint.read.flags import read_text_file
from flaglint.rules.expr import ExprError, Node, from_json, parse, to_json
from flaglint.rules.ruleset import imported_dir
from flaglint.schema.keys import Key, KeyTable, key_from

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

DEFAULT_PIN = "maxtext-0.2.5"
ROOT_CLASS = "MaxTextConfig"  # the config class pyconfig validates with unless an entry point names another
INSTALLED = "installed"


class ConfigClass(FrozenRecord):
    """A config class other than MaxTextConfig that an entry point validates with (train_rl's
    RLConfig): the keys it defines that MaxTextConfig does not (or types otherwise), MaxTextConfig's
    it lacks, the classes and functions of types.py whose checks it runs, and the models whose
    tokenizer it finds by name."""

    __slots__ = field_names = ("keys", "lacks", "validated_by", "tokenizer_models")

    def __init__(self, keys: dict[str, Key], lacks: tuple[str, ...], validated_by: tuple[str, ...] = (),
                 tokenizer_models: frozenset[str] = frozenset()):
        self.keys = keys
        self.lacks = lacks
        self.validated_by = validated_by
        self.tokenizer_models = tokenizer_models


class PinSchema(Record):
    """The keys one pin defines, their effective defaults, and the model configs it ships."""

    field_names = ("pin", "version", "keys", "defaults", "models", "starts_trainer", "does_not_start_reason", "refuses_model_and_argv",
                   "refuses_model_and_env", "refuses_model_key_at_its_value", "refuses_stray_key_variables", "chain", "rules", "configs",
                   "topologies", "origin", "config_classes", "config_class")
    __slots__ = (*field_names, "_typed")

    def __init__(self, pin: str, version: str, keys: dict[str, Key], defaults: dict[str, Any], models: dict[str, dict[str, Any]],
                 starts_trainer: bool = True, does_not_start_reason: str | None = None, refuses_model_and_argv: bool = True,
                 refuses_model_and_env: bool = True, refuses_model_key_at_its_value: bool = False,
                 refuses_stray_key_variables: bool = False, chain: list[str] | None = None, rules: str | Path = "",
                 configs: str | Path = "", topologies: str | Path = "", origin: str = "",
                 config_classes: dict[str, ConfigClass] | None = None, config_class: str = ROOT_CLASS):
        self.pin = pin
        self.version = version  # the released MaxText version this pin's rules derive from
        self.keys = keys
        self.defaults = defaults
        self.models = models  # model name -> the keys its yml sets
        self.starts_trainer = starts_trainer
        self.does_not_start_reason = does_not_start_reason
        self.refuses_model_and_argv = refuses_model_and_argv  # pyconfig's model-file checks (model.MaxTextSchemaFile); absent before 0.2.3
        self.refuses_model_and_env = refuses_model_and_env
        self.refuses_model_key_at_its_value = refuses_model_key_at_its_value  # before 0.2.0 pyconfig compares the keys, not their values
        self.refuses_stray_key_variables = refuses_stray_key_variables  # before 0.2.0 an M_ variable must name a key of the config files, in upper case
        self.chain = [] if chain is None else chain  # this pin and every pin it extends
        self.rules = rules  # the imported rules: a bundled version, or a store entry's rules folder
        self.configs = configs  # the index of configs/**/*.yml: a bundled version, or a store entry's file
        self.topologies = topologies  # the compile topology table: a bundled version, or a store entry's file
        self.origin = origin  # where the pin's schema comes from, for `flaglint pins`
        self.config_classes = {} if config_classes is None else config_classes  # other classes an entry point validates with
        self.config_class = config_class  # the class these keys are of (validated_with)
        self._typed: dict[str, Any] = {}  # key -> its effective default, typed when first read (a copy starts afresh)

    def validated_with(self, name: str) -> PinSchema:
        """The pin as an entry point that validates with config class NAME sees it: MaxTextConfig's
        keys less those NAME lacks, with those it defines (or types otherwise); its checks are
        pins.config_classes' class_rules."""
        if name == self.config_class:
            return self
        other = self.config_classes.get(name)
        if other is None or not other.validated_by:
            raise InputError(f"{self.pin}: its schema does not hold the keys of {name}; import the pin again")
        keys = self.keys.copy()
        for key in other.lacks:
            keys.pop(key, None)
        for key in other.keys:
            keys[key] = other.keys[key]
        defaults = {key: value for key, value in self.defaults.items() if key not in other.lacks}
        # the class's own rules name it after the pin (`pins: [maxtext-0.2.5/RLConfig]`)
        chain = [*self.chain, *(f"{pin}/{name}" for pin in self.chain)]
        return self.replace(keys=keys, defaults=defaults, config_class=name, chain=chain)

    def default(self, key: str) -> Any:
        """The key's effective default: base.yml's value as pyconfig normalises and types it."""
        if key not in self._typed:
            self._typed[key] = self._type_default(key)
        return self._typed[key]

    def _type_default(self, key: str) -> Any:
        schema = self.keys[key]
        value = cleaned(schema, self.defaults[key]) if key in self.defaults else schema.default
        try:
            return coerce(schema, value)
        except ValueError_:
            return value


class NotJudged(FrozenRecord):
    """A check of the pin's MaxText that no rule states (rules/maxtext/<version>/unexpressible.yml,
    with the reason): a config that sets one of its `keys`, where `when` (what flaglint can state of
    the way to it; None: always) may hold, is told that it is not judged."""

    __slots__ = field_names = ("id", "site", "message", "reason", "keys", "when", "when_text")

    def __init__(self, id: str, site: str, message: str, reason: str, keys: tuple[str, ...], when: Node | None,
                 when_text: str | None = None):
        self.id = id
        self.site = site
        self.message = message
        self.reason = reason
        self.keys = keys
        self.when = when
        self.when_text = when_text


@lru_cache(maxsize=None)
def not_judged(rules: str | Path) -> tuple[NotJudged, ...]:
    """The checks of the imported rules RULES (a bundled version, or a store entry's folder) that
    are not judged; those another step of flaglint checks carry no keys and are left out."""
    path = imported_dir(rules) / "unexpressible.yml"
    if not path.is_file():
        return ()
    # kept with their conditions parsed: parsing one imports Python's ast, which a check need not
    return cached("not-judged", [path], lambda: _read_not_judged(path),
                  encode=lambda found: [[*check.field_values()[:4], check.keys, to_json(check.when), check.when_text] for check in found],
                  decode=lambda data: tuple(NotJudged(*fields, tuple(keys), from_json(when), text) for *fields, keys, when, text in data))


def _read_not_judged(path: Path) -> tuple[NotJudged, ...]:
    found = []
    for entry in (yaml_file(path) or {}).get("unexpressible") or []:
        if not entry.get("keys"):
            continue
        try:
            when = parse(entry["when"]) if "when" in entry else None
        except ExprError as err:
            raise InputError(f"{path}: {entry['id']}: when: {err}") from None
        found.append(NotJudged(str(entry["id"]), str(entry["site"]), str(entry["message"]), str(entry["reason"]),
                               tuple(entry["keys"]), when, entry.get("when")))
    return tuple(found)


def _schemas() -> Path:
    return data_dir("schemas")


@lru_cache(maxsize=None)
def bundled_pins() -> tuple[str, ...]:
    """The pins shipped with flaglint (they cannot change while it runs)."""
    released = sorted((p.stem for p in _schemas().glob("maxtext-*.json")), key=_release_order)
    forks = sorted(p.stem for p in (_schemas() / "pins").glob("*.yml"))
    return tuple(released + forks)


def known_pins(skip_damaged: bool = False) -> list[str]:
    """Every pin: bundled releases and overlays, then the stores' imports."""
    from flaglint.pins import store  # noqa: PLC0415 the pin store (shutil): only for a pin that is not bundled

    bundled = bundled_pins()
    return [*bundled, *(e.name for e in store.entries(skip_damaged) if e.name not in bundled)]


def _release_order(name: str) -> tuple:
    return tuple(int(part) if part.isdigit() else -1 for part in re.split(r"[.-]", name.removeprefix("maxtext-")))


def canonical_pin(pin: str) -> str:
    """`0.2.5` -> `maxtext-0.2.5`; a commit prefix of at least 7 characters -> the pin it names
    (a store's import of that commit before an overlay describing it)."""
    if pin == INSTALLED:
        return store_name_of_installed()
    bundled = bundled_pins()
    for candidate in (pin, f"maxtext-{pin}"):
        if candidate in bundled:
            return candidate
    from flaglint.pins import store  # noqa: PLC0415 the pin store (shutil): only for a pin that is not bundled

    for candidate in (pin, f"maxtext-{pin}"):
        if store.find(candidate) is not None:
            return candidate
    if re.fullmatch(r"[0-9a-fA-F]{7,40}", pin):
        prefix = pin.lower()
        imported = sorted({e.name for e in store.entries() if e.commit and e.commit.startswith(prefix)})
        if len(imported) > 1:
            raise InputError(f"pin {pin!r} is ambiguous: it is a prefix of the commits of {', '.join(imported)}")
        if imported:
            return imported[0]
        for overlay in bundled:
            if not overlay.startswith("maxtext-"):
                commit = str(_overlay(overlay)["commit"])
                if commit.startswith(prefix) or prefix.startswith(overlay):
                    return overlay
    raise InputError(f"unknown pin {shown_text(pin, 80)!r}; known pins: {', '.join(known_pins())} "
                     "(`flaglint schema import PATH` adds a MaxText tree, wheel or installed package)")


def store_name_of_installed() -> str:
    from flaglint.pins.register import installed  # noqa: PLC0415 the importer: only for --pin installed

    return installed().name


@lru_cache(maxsize=None)
def _overlay(name: str) -> dict[str, Any]:
    """schemas/pins/<name>.yml (its format is model.PinOverlayFile)."""
    return yaml_file(_schemas() / "pins" / f"{name}.yml")


@lru_cache(maxsize=None)
def _released(name: str) -> tuple[dict[str, Any], Mapping[str, dict[str, Any]]]:
    """schemas/maxtext-<version>.json (its format is model.MaxTextSchemaFile), and its models' keys
    (model name -> the keys its yml sets); from the data cache, each key and model as JSON text
    decoded when first read (one check reads a few of a pin's thousand)."""
    path = _schemas() / f"{name}.json"
    return cached_text("schema", [path], lambda: _with_models(json.loads(read_text(path, PIN_FILE))), _encode_schema, _decode_schema)


def _with_models(schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    return schema, {model: entry["keys"] for model, entry in schema.get("models", {}).items()}


def _encode_schema(released: tuple[dict[str, Any], Mapping[str, dict[str, Any]]]) -> str:
    schema, models = released
    lines: list[str] = []

    def line(value: Any) -> int:
        lines.append(json.dumps(value))
        return len(lines)

    def keys(table: dict[str, Any]) -> dict[str, int]:
        return {key: line(entry) for key, entry in table.items()}

    header = {**schema, "keys": keys(schema["keys"]), "models": {model: line(keys) for model, keys in models.items()},
              "config_classes": {name: {**entry, "keys": keys(entry.get("keys", {}))} for name, entry in schema.get("config_classes", {}).items()}}
    return header_and_lines(header, lines)


def _decode_schema(text: str) -> tuple[dict[str, Any], Mapping[str, dict[str, Any]]]:
    header, lines = read_header_and_lines(text)
    header["keys"] = {key: lines[at] for key, at in header["keys"].items()}  # KeyTable decodes a key's text
    for entry in header["config_classes"].values():
        entry["keys"] = {key: lines[at] for key, at in entry["keys"].items()}
    return header, LazyJson({model: lines[at] for model, at in header.pop("models").items()})


@lru_cache(maxsize=None)
def load_pin(pin: str = DEFAULT_PIN) -> PinSchema:
    name = canonical_pin(pin)
    if name.startswith("maxtext-") and (_schemas() / f"{name}.json").is_file():
        where = f"schemas/{name}.json"
        version = name.removeprefix("maxtext-")
        schema, models = _released(name)
        return _from_schema(name, schema, models, where, version, version, version, f"bundled ({where})")
    if name in bundled_pins():
        return _from_overlay(name)
    from flaglint.pins import store  # noqa: PLC0415 the pin store (shutil): only for a pin that is not bundled

    entry = store.find(name)
    assert entry is not None  # canonical_pin found it
    if entry.same_as is not None:
        parent = load_pin(entry.same_as)
        return parent.replace(pin=name, chain=[name, *parent.chain], origin=entry.describe())
    from pydantic import ValidationError  # noqa: PLC0415 pydantic: only for a pin of the store, whose file is checked

    from flaglint.schema.model import MaxTextSchemaFile  # noqa: PLC0415 pydantic: as above

    try:
        data = json.loads(read_text(entry.schema_path, PIN_FILE))
        MaxTextSchemaFile.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise InputError(f"{entry.schema_path}: damaged pin store entry ({where}: {first['msg']}); import it again") from None
    except (Unreadable, ValueError) as err:
        raise InputError(f"{entry.schema_path}: damaged pin store entry ({err}); import it again") from None
    # an entry imported before its topology table was stored: its release's bundled table
    topologies = entry.topologies_path if entry.topologies_path.is_file() else str(data["version"])
    schema, models = _with_models(data)
    return _from_schema(name, schema, models, str(entry.schema_path), entry.rules_dir, entry.configs_path, topologies, entry.describe())


def _from_schema(name: str, schema: dict[str, Any], models: Mapping[str, dict[str, Any]], where: str, rules: str | Path,
                 configs: str | Path, topologies: str | Path, origin: str) -> PinSchema:
    return PinSchema(
        pin=name,
        version=schema["version"],
        keys=KeyTable(schema["keys"], where),
        defaults=dict(schema.get("base_defaults", {})),
        models=models,
        chain=[name],
        rules=rules,
        configs=configs,
        topologies=topologies,
        origin=origin,
        refuses_model_and_argv=schema.get("refuses_model_and_argv", True),
        refuses_model_and_env=schema.get("refuses_model_and_env", True),
        refuses_model_key_at_its_value=schema.get("refuses_model_key_at_its_value", False),
        refuses_stray_key_variables=schema.get("refuses_stray_key_variables", False),
        config_classes={name: ConfigClass(KeyTable(entry.get("keys", {}), where), tuple(entry.get("lacks", ())),
                                          tuple(entry.get("validated_by", ())), frozenset(entry.get("tokenizer_models", ())))
                        for name, entry in schema.get("config_classes", {}).items()},
    )


def _from_overlay(name: str) -> PinSchema:
    overlay = _overlay(name)
    where = f"schemas/pins/{name}.yml"
    parent = load_pin(overlay["extends"])
    keys = parent.keys.copy()
    defaults = dict(parent.defaults)
    for key in overlay.get("keys_removed") or {}:
        keys.pop(key, None)
        defaults.pop(key, None)
    for added in overlay.get("keys_added") or []:
        keys[added["name"]] = key_from(added, where)
    for key, extra in (overlay.get("choices_added") or {}).items():
        keys[key] = keys[key].replace(choices=(*keys[key].choices, *extra))
    return PinSchema(
        pin=name,
        version=parent.version,
        keys=keys,
        defaults=defaults,
        models=parent.models,
        starts_trainer=overlay.get("starts_trainer", True),
        does_not_start_reason=overlay.get("does_not_start_reason"),
        refuses_model_and_argv=parent.refuses_model_and_argv,
        refuses_model_and_env=parent.refuses_model_and_env,
        refuses_model_key_at_its_value=parent.refuses_model_key_at_its_value,
        refuses_stray_key_variables=parent.refuses_stray_key_variables,
        config_classes=parent.config_classes,
        chain=[name, *parent.chain],
        rules=parent.rules,
        configs=parent.configs,
        topologies=parent.topologies,
        origin=f"overlay ({where}) on {overlay['extends']}: {overlay['title']}",
    )


def loadable_pins() -> list[PinSchema]:
    """Every pin that loads; a damaged store entry is passed over (for hints, which only inform)."""
    found = []
    for pin in known_pins(skip_damaged=True):
        try:
            found.append(load_pin(pin))
        except InputError:
            continue
    return found


def pins_defining(key: str) -> list[str]:
    return list(pins_by_key().get(key, ()))


class KeyPins(dict):
    """Each key -> the pins that define it, in known_pins' order (pins_by_key); `near` keeps what a
    hint works out from them (the near names of a misspelled key), made again with them."""

    def __init__(self, pins: dict[str, tuple[str, ...]]):
        super().__init__(pins)
        self.near: dict = {}


def pins_by_key() -> KeyPins:
    """The pins of each key: made once while the stores hold the same entries (a recipe's flags
    name the same undefined keys on every launch)."""
    from flaglint.pins import store  # noqa: PLC0415 the pin store (shutil): only for a hint on an undefined key

    return _pins_by_key(store.listing())


@lru_cache(maxsize=1)
def _pins_by_key(listing: tuple) -> KeyPins:
    """pins_by_key's, for the stores' `listing` (store.listing: the cache's key)."""
    found: dict[str, list[str]] = {}
    for pin in loadable_pins():
        for key in pin.keys:
            found.setdefault(key, []).append(pin.pin)
    return KeyPins({key: tuple(pins) for key, pins in found.items()})


_GIT_PIN = r"maxtext.*@([0-9a-fA-F]{7,40})\b"  # compiled by re when first used: a check compiles only the patterns it uses


def names_maxtext(path: str) -> bool:
    """Whether a requirements file has a MaxText line (a git URL of maxtext, or maxtext==X.Y.Z)."""
    from flaglint.core.requirements import pinned_version  # noqa: PLC0415 the requirements reader: only for a requirements file

    text = read_text_file(path, REQUIREMENTS)
    return pinned_version(text, "maxtext") is not None or any(re.search(_GIT_PIN, line.split("#", 1)[0]) for line in text.splitlines())


def pin_from_requirements(path: str) -> str:
    """The pin a requirements file names: a git URL ending in `@<commit>` (a store's import of
    that commit, else an overlay), or `maxtext==X.Y.Z`. One that names nothing known is an error
    that gives the command importing it, never another version."""
    from flaglint.core.requirements import pinned_version  # noqa: PLC0415 the requirements reader: only for a requirements file

    text = read_text_file(path, REQUIREMENTS)
    versioned = pinned_version(text, "maxtext")
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        if match := re.search(_GIT_PIN, code):
            commit = match.group(1)
            return _resolve(commit, f"{path}:{number}: MaxText at commit {commit} is not imported and no overlay "
                            f"describes it; import a checkout of it: `flaglint schema import /path/to/maxtext` "
                            f"(a clone at {commit})")
        if versioned is not None and versioned[0] == number:
            version = versioned[1]
            hint = (f"import it: `pip download --no-deps --only-binary=:all: --python-version 3.12 maxtext=={version} "
                    f"-d /tmp/maxtext && flaglint schema import /tmp/maxtext/maxtext-{version}-py3-none-any.whl`"
                    if shown_text(version, 60) == version else "no MaxText release has a version that long")
            return _resolve(f"maxtext-{version}", f"{path}:{number}: maxtext=={shown_text(version, 60)} is neither bundled nor "
                            f"imported; {hint}")
    raise InputError(f"{path}: no MaxText line (expected a git URL ending in @<commit> or maxtext==X.Y.Z)")


def _resolve(pin: str, unknown: str) -> str:
    try:
        return canonical_pin(pin)
    except InputError:
        raise InputError(unknown) from None

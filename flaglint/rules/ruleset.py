"""Rules as data: loading `rules/*.yml` (hand-written) and `rules/maxtext/<version>/` (imported).

Every entry is checked as it loads; a malformed file fails with its file, line and reason. A
parsed rule set is kept in the data cache, its trees as JSON decoded on first read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cached_property, lru_cache
from pathlib import Path

from flaglint.core.data import data_dir
from flaglint.core.data_cache import (
    LazyJson,
    cached_text,
    header_and_lines,
    read_header_and_lines,
    yaml_file,
)
from flaglint.core.findings import SEVERITIES, Finding, InputError
from flaglint.core.numbers import shown_value
from flaglint.core.reading import RULE_FILE, read_text
from flaglint.core.records import FrozenRecord, Record
from flaglint.rules.expr import ExprError, Node, from_json, parse, substitute, to_json

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

_REQUIRED = ("id", "title", "severity", "message", "rationale", "source")
_ALLOWED = {*_REQUIRED, "pins", "when", "require", "fix", "examples", "builtin", "fixable", "messages", "refused_value",
            "unverified_severity", "fail_closed_severity", "flag_string_only", "states", "stage",
            "tunix_fix"}
# A built-in rule's message names the fields its check fills in: {name}, or {name!r} for the value's
# repr; a part in [brackets] is said only when its fields have a value.
_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(!r)?\}")
_PART = r"\[([^\[\]]*)\]|" + _FIELD.pattern  # compiled by re when first used: a check compiles only the patterns it uses


class Rule(Record):
    """One rule of the registry: its metadata, its condition and requirement, and its fix policy."""

    field_names = ("id", "title", "severity", "message", "rationale", "source", "file", "line", "pins", "when_tree",
                   "require_tree", "when_text", "require_text", "fix", "examples", "builtin", "fixable", "messages",
                   "refused_value", "unverified_severity", "fail_closed_severity", "flag_string_only", "states", "stage",
                   "tunix_fix")

    def __init__(self, id: str, title: str, severity: str, message: str, rationale: str, source: str, file: str, line: int,
                 pins: tuple[str, ...] | None = None, when_tree: Any = None, require_tree: Any = None,
                 when_text: str | None = None, require_text: str | None = None, fix: str | None = None,
                 examples: dict[str, str] | None = None, builtin: bool = False, fixable: bool = True,
                 messages: dict[str, str] | None = None, refused_value: bool = False, unverified_severity: str | None = None,
                 fail_closed_severity: str | None = None, flag_string_only: bool = False, states: tuple[str, ...] = (),
                 stage: str | None = None, tunix_fix: str | None = None):
        self.id = id
        self.title = title
        self.severity = severity
        self.message = message
        self.rationale = rationale
        self.source = source
        self.file = file
        self.line = line
        self.pins = pins
        # Node trees; a rule read from the cache holds their JSON text until a check first reads them.
        self.when_tree = when_tree
        self.require_tree = require_tree
        self.when_text = when_text
        self.require_text = require_text
        self.fix = fix
        self.examples = {} if examples is None else examples
        self.builtin = builtin  # checked in code (resolve/resolver.py and the front ends); the entry carries its metadata and message
        self.fixable = fixable  # False: no edit of the flags removes the finding, so a fix is judged without it
        # A built-in check that words its finding in more than one way: variant -> message.
        self.messages = {} if messages is None else messages
        # The finding is a value MaxText refuses: a fix removes the value where it is written (drops the
        # token, or deletes the key from the user's config file).
        self.refused_value = refused_value
        # The finding is a launch flaglint could not follow: --allow-unverified gives it this severity.
        self.unverified_severity = unverified_severity
        # The finding is something flaglint could not judge: where the front end fails closed (gate,
        # unless --allow-unverified) it has this severity.
        self.fail_closed_severity = fail_closed_severity
        # The finding is about MAXTEXT_EXTRA_FLAGS as the way flags reach MaxText: a script that runs
        # MaxText's command line itself does not get it.
        self.flag_string_only = flag_string_only
        # MaxText's messages (their start) of checks the import of its validators cannot state and
        # this rule states by hand: they are judged, so no finding says otherwise.
        self.states = states
        # A Tunix check: when Tunix makes it (start-up, after downloads) or that it never does.
        self.stage = stage
        # How a word of a Tunix command line with this finding is fixed (fix/tunix_argv.py): its key is
        # one the base does not define (unknown-key), a nested key Tunix ignores (nested-key), one a
        # builder refuses (builder-key); the word absl refuses (absl-word); a key its T_ variable also
        # sets (env-conflict); a value Tunix retypes (retype) or cannot type (coerce).
        self.tunix_fix = tunix_fix

    @classmethod
    def read_later(cls, unread: str, **known: Any) -> Rule:
        """A rule of the data cache: the fields KNOWN, and the JSON text UNREAD of the others (in the
        order of _UNREAD_FIELDS), decoded when one of them is first read."""
        rule = cls.__new__(cls)
        rule.__dict__.update(known, _unread=unread)
        return rule

    def __getattr__(self, name: str) -> Any:
        # only for a field not yet set: one of a rule read_later's unread fields. The text goes only
        # once they are set: another thread (the language server's) may be reading them too.
        unread = self.__dict__.get("_unread")
        if unread is None:
            raise AttributeError(name)
        self.__dict__.update(zip(_UNREAD_FIELDS, json.loads(unread), strict=True))
        self.__dict__.pop("_unread", None)
        return getattr(self, name)

    @property
    def when(self) -> Node | None:
        if isinstance(self.when_tree, str):
            self.when_tree = from_json(json.loads(self.when_tree))
        return self.when_tree

    @property
    def require(self) -> Node | None:
        if isinstance(self.require_tree, str):
            self.require_tree = from_json(json.loads(self.require_tree))
        return self.require_tree

    @cached_property
    def name_set(self) -> frozenset[str]:
        return frozenset(self.names)

    def applies_to(self, chain: list[str]) -> bool:
        return self.pins is None or any(pin in chain for pin in self.pins)

    @cached_property
    def literals(self) -> set:
        found = self.when.literals() if self.when else set()
        return self.require.literals(found) if self.require else found

    @cached_property
    def names(self) -> list[str]:
        """Every key and variable the rule reads (derived values inlined), `when` first."""
        found = self.when.names() if self.when else []
        return found + [n for n in (self.require.names() if self.require else []) if n not in found]


class RuleSet(Record):
    """The rules of one pin, and the derived values their expressions may name."""

    __slots__ = field_names = ("rules", "derived", "derived_text")

    def __init__(self, rules: list[Rule], derived: Mapping[str, Node], derived_text: dict[str, str]):
        self.rules = rules
        self.derived = derived
        self.derived_text = derived_text

    def by_id(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)



def built_in(rule_id: str, keys: tuple[str, ...] = (), location: Any = None, related: tuple = (), *,
             variant: str | None = None, allow_unverified: bool = False, fail_closed: bool = False, **fields: Any) -> Finding:
    """A finding of a check written in code, worded and graded by its registry entry (rules/*.yml)
    as every rule's finding is: the entry's message (or its `variant`) with `fields` filled in, and
    its severity (its `unverified_severity` under --allow-unverified, its `fail_closed_severity`
    where the front end fails closed). The configuration's `severity` and `ignore` then apply to it alike."""
    rule = load_ruleset().by_id(rule_id)
    severity = rule.unverified_severity if allow_unverified and rule.unverified_severity else rule.severity
    if fail_closed and rule.fail_closed_severity:
        severity = rule.fail_closed_severity
    return Finding(rule_id, severity, fill(rule.messages[variant] if variant else rule.message, fields), keys, location, related)


def fill(template: str, fields: dict[str, Any]) -> str:
    """A built-in rule's message with its fields filled in (a field it names and the check does not
    give is an error in the check)."""

    def field_text(name: str, as_repr: str | None) -> str:
        value = fields[name]
        if isinstance(value, int) and not isinstance(value, bool):
            return shown_value(value)  # an int of thousands of digits is cut short (past 4,300 Python writes none)
        try:
            return repr(value) if as_repr else str(value)
        except ValueError:  # a list or dict holding such an int
            return shown_value(value)

    def part(match: re.Match) -> str:
        if match[1] is None:
            return field_text(match[2], match[3])
        named = [found[1] for found in _FIELD.finditer(match[1])]
        if any(fields.get(name) in (None, "") for name in named):
            return ""
        return _FIELD.sub(lambda found: field_text(found[1], found[2]), match[1])

    return re.sub(_PART, part, template)


@lru_cache(maxsize=None)
def _line_loader() -> type:
    """Safe loading (libyaml's when present) that remembers the line of each mapping, for messages.
    Made on first use: a check that finds its rules in the cache never imports a YAML parser."""
    import yaml  # noqa: PLC0415 yaml: only when a rule file is parsed past the cache

    from flaglint.core.omegaconf_yaml import check_tagged_scalars  # noqa: PLC0415 OmegaConf's YAML rules: only with yaml

    class LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def construct_line_mapping(self, node: yaml.MappingNode) -> dict[str, Any]:
            mapping = self.construct_mapping(node, deep=True)
            mapping["__line__"] = node.start_mark.line + 1
            return mapping

    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, LineLoader.construct_line_mapping)
    check_tagged_scalars(LineLoader)
    return LineLoader


def _load_yaml(path: Path) -> Any:
    import yaml  # noqa: PLC0415 yaml: only when a rule file is parsed past the cache

    text = read_text(path, RULE_FILE)
    try:
        return yaml.load(text, Loader=_line_loader())  # noqa: S506 - a safe loader subclass
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        raise InputError(f"{path}:{line}: invalid YAML ({getattr(err, 'problem', err)})") from None


TUNIX_FIXES = ("absl-word", "unknown-key", "nested-key", "builder-key", "env-conflict", "retype", "coerce", "mesh", "optimizer")


def _one_of(path: Path, line: int, field_name: str, value: Any, allowed: tuple[str, ...]) -> str | None:
    if value is not None and value not in allowed:
        raise InputError(f"{path}:{line}: {field_name} must be one of {', '.join(allowed)}")
    return value


def _expression(path: Path, line: int, field_name: str, text: Any) -> Node:
    try:
        return parse(str(text))
    except ExprError as err:
        raise InputError(f"{path}:{line}: {field_name}: {err} (column {err.column + 1} of {str(text)!r})") from None


def cached_rule_file(path: Path) -> list[Rule]:
    """load_rule_file, from the data cache when it is fresh: a Tunix pin's rules are read on every
    check, and parsing them brought a YAML parser into every run."""
    return cached_text("rule-file", [path], lambda: RuleSet(load_rule_file(path), {}, {}), _encode, _decode).rules


def load_rule_file(path: Path) -> list[Rule]:
    data = _load_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise InputError(f"{path}:1: expected a mapping with a `rules:` list")
    rules = []
    for entry in data["rules"]:
        if not isinstance(entry, dict):
            raise InputError(f"{path}: every rule must be a mapping")
        line = entry.pop("__line__")
        unknown = set(entry) - _ALLOWED
        if unknown:
            raise InputError(f"{path}:{line}: unknown field(s) {', '.join(sorted(unknown))}")
        missing = [name for name in _REQUIRED if name not in entry]
        if missing:
            raise InputError(f"{path}:{line}: rule {entry.get('id', '?')} lacks {', '.join(missing)}")
        if entry["severity"] not in SEVERITIES:
            raise InputError(f"{path}:{line}: severity must be one of {', '.join(SEVERITIES)}")
        builtin = bool(entry.get("builtin", False))
        if not builtin and "require" not in entry:
            raise InputError(f"{path}:{line}: rule {entry['id']} has no `require` condition")
        messages = {k: str(v) for k, v in (entry.get("messages") or {}).items() if k != "__line__"}
        if messages and not builtin:
            raise InputError(f"{path}:{line}: rule {entry['id']}: only a built-in rule words its finding in several ways (messages)")
        for graded in ("unverified_severity", "fail_closed_severity"):
            if entry.get(graded, "error") not in SEVERITIES:
                raise InputError(f"{path}:{line}: {graded} must be one of {', '.join(SEVERITIES)}")
        examples = {k: v for k, v in (entry.get("examples") or {}).items() if k != "__line__"}
        rules.append(
            Rule(
                id=str(entry["id"]),
                title=readable_title(str(entry["title"])),
                severity=entry["severity"],
                message=str(entry["message"]),
                rationale=str(entry["rationale"]).strip(),
                source=str(entry["source"]),
                file=str(path),
                line=line,
                pins=tuple(str(p) for p in entry["pins"]) if entry.get("pins") else None,
                when_tree=_expression(path, line, "when", entry["when"]) if "when" in entry else None,
                require_tree=_expression(path, line, "require", entry["require"]) if "require" in entry else None,
                when_text=str(entry["when"]) if "when" in entry else None,
                require_text=str(entry["require"]) if "require" in entry else None,
                fix=entry.get("fix"),
                examples=examples,
                builtin=builtin,
                fixable=bool(entry.get("fixable", True)),
                messages=messages,
                refused_value=bool(entry.get("refused_value", False)),
                unverified_severity=entry.get("unverified_severity"),
                fail_closed_severity=entry.get("fail_closed_severity"),
                flag_string_only=bool(entry.get("flag_string_only", False)),
                states=tuple(str(m) for m in entry.get("states") or ()),
                stage=entry.get("stage"),
                tunix_fix=_one_of(path, line, "tunix_fix", entry.get("tunix_fix"), TUNIX_FIXES),
            )
        )
    return rules


def load_derived(path: Path) -> dict[str, str]:
    data = _load_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("derived"), dict):
        raise InputError(f"{path}:1: expected a mapping with a `derived:` mapping")
    return {str(k): str(v) for k, v in data["derived"].items() if k != "__line__"}


def imported_dir(version: str | Path) -> Path:
    """MaxText's imported validators: a bundled version's `rules/maxtext/<version>/`, or a folder
    (a pin store entry's rules)."""
    return version if isinstance(version, Path) else data_dir("rules") / "maxtext" / version


# An MXnnnn or TXnnnn: the number a bundled release's validator (MaxText) or check (Tunix) had before
# ids were the same at every release.
RENUMBERED_ID = r"[MT]X[0-9]{4}"  # compiled by re when first used: a check compiles only the patterns it uses


class Renumbering(FrozenRecord):
    """The old numbers of one pin's imported checks -> their ids, the pin and the checks as FL022
    names them."""

    __slots__ = field_names = ("ids", "pin", "checks")

    def __init__(self, ids: dict[str, str], pin: str, checks: str = "MaxText's validators"):
        self.ids = ids
        self.pin = pin
        self.checks = checks

    def warning(self, old: str) -> str:
        """What FL022 says of OLD, one of self.ids."""
        return fill(load_ruleset().by_id("FL022").message, {"old": old, "new": self.ids[old], "pin": self.pin, "checks": self.checks})


@lru_cache(maxsize=None)
def renumbered_ids(version: str | Path | None, project: str = "maxtext") -> dict[str, str]:
    """Old number -> stable id of the checks of a bundled release of PROJECT (maxtext, tunix;
    rules/<project>/renumbered.yml); nothing for a pin store's rules, which were numbered by the
    import that wrote them."""
    if not isinstance(version, str):
        return {}
    table = yaml_file(data_dir("rules") / project / "renumbered.yml") or {}
    return {str(old): str(new) for old, new in (table.get(version) or {}).items()}


def rule_files(version: str | Path | None = None) -> list[Path]:
    root = data_dir("rules")
    files = sorted(root.glob("*.yml"))
    files = [f for f in files if f.name not in ("derived.yml", "fix_policy.yml")]
    if version:
        files += sorted(p for p in imported_dir(version).glob("*.yml") if p.name not in ("derived.yml", "unexpressible.yml"))
    return files


def readable_title(text: str) -> str:
    """A title as a person reads it: each placeholder of the MaxText message it comes from
    (`{model_name}`, `{value!r}`, `{ratio:.2f}`) shown as the name it stands for, `<model_name>`;
    one the title's cut ends in (`got {num_s...`) is left out."""
    text = re.sub(_PLACEHOLDER, lambda found: f"<{re.split(r'[!:]', found[1], maxsplit=1)[0].strip()}>", text)
    return re.sub(_CUT_PLACEHOLDER, "...", text)


_PLACEHOLDER = r"\{([^{}]+)\}"  # compiled by re when first used: a check compiles only the patterns it uses
_CUT_PLACEHOLDER = r"\s*\{[^{}]*\.\.\.$"


@lru_cache(maxsize=None)
def load_ruleset(version: str | Path | None = None, extra: tuple[str, ...] = ()) -> RuleSet:
    """The rules (and derived values) for a MaxText version, from a compiled cache when it is fresh.

    Parsing ~300 imported rules costs more than a whole check, so the parsed trees are kept as
    JSON (never pickle: the cache directory is writable) keyed by the files' paths, sizes and times.
    """
    root = data_dir("rules")
    sources = [*rule_files(version), *(Path(p) for p in extra), root / "derived.yml"]
    if version:
        sources.append(imported_dir(version) / "derived.yml")
    return cached_text("rules", sources, lambda: _parse_ruleset(version, extra), _encode, _decode, layout=8)


def _parse_ruleset(version: str | Path | None, extra: tuple[str, ...]) -> RuleSet:
    root = data_dir("rules")
    derived_files = [root / "derived.yml"]
    if version:
        derived_files.append(imported_dir(version) / "derived.yml")
    derived_text: dict[str, str] = {}
    for path in derived_files:
        if path.exists():
            for name, text in load_derived(path).items():
                if name in derived_text and derived_text[name] != text:
                    raise InputError(f"{path}: derived value {name!r} is already defined differently")
                derived_text[name] = text
    derived_nodes = {name: _expression(root / "derived.yml", 0, name, text) for name, text in derived_text.items()}
    derived = {name: substitute(node, derived_nodes) for name, node in derived_nodes.items()}
    rules: list[Rule] = []
    for path in [*rule_files(version), *(Path(p) for p in extra)]:
        rules.extend(load_rule_file(path))
    seen: dict[str, Rule] = {}
    for rule in rules:
        if rule.id in seen:
            raise InputError(f"{rule.file}:{rule.line}: duplicate rule id {rule.id} (also {seen[rule.id].file}:{seen[rule.id].line})")
        seen[rule.id] = rule
        rule.when_tree = substitute(rule.when, derived) if rule.when else None
        rule.require_tree = substitute(rule.require, derived) if rule.require else None
    return RuleSet(rules, derived, derived_text)


# ---- the rule sets in the data cache ----
# The header holds, of each rule, the fields a check reads of every rule (whether it applies, what
# it states, and its message: judgeable_rules leaves out the checks another rule states) and the lines of its trees and of its other fields. Those lines are kept as their
# text and decoded when a check first reads them: most rules of a pin never get past their `when`,
# and the header's JSON is decoded on every start.
_UNREAD_FIELDS = tuple(name for name in Rule.field_names
                       if name not in ("id", "message", "builtin", "pins", "states") and not name.endswith("_tree"))


def _decode(text: str) -> RuleSet:
    data, lines = read_header_and_lines(text)
    rules = []
    for rule_id, message, builtin, pins, states, names, when, require, unread in data["rules"]:
        rules.append(Rule.read_later(lines[unread], id=rule_id, message=message, builtin=builtin, pins=tuple(pins) if pins is not None else None,
                                     states=tuple(states), names=names, when_tree=lines[when] if when else None,
                                     require_tree=lines[require] if require else None))
    # a check reads a derived value only to word a message that names it
    return RuleSet(rules, LazyJson({name: lines[at] for name, at in data["derived"].items()}, from_json), data["derived_text"])


def _encode(ruleset: RuleSet) -> str:
    lines: list[str] = []

    def line(data: Any) -> int:
        lines.append(json.dumps(data))
        return len(lines)

    def tree(node: Node | None) -> int | None:
        return None if node is None else line(to_json(node))

    rules = [[r.id, r.message, r.builtin, r.pins, r.states, r.names, tree(r.when_tree), tree(r.require_tree), line([getattr(r, n) for n in _UNREAD_FIELDS])]
             for r in ruleset.rules]
    derived = {name: tree(node) for name, node in ruleset.derived.items()}
    return header_and_lines({"rules": rules, "derived": derived, "derived_text": ruleset.derived_text}, lines)

"""`flaglint pins diff A B`: what an upgrade from one MaxText pin to another, or one Tunix pin to
another, changes for a user's flags: keys added, removed and retyped, effective defaults changed,
validators added, changed and removed (a validator's id is one check at every pin: docs/rule-ids.md)."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any

from flaglint.core.findings import InputError
from flaglint.pins.pins import PinSchema, load_pin
from flaglint.rules.ruleset import Rule, load_ruleset
from flaglint.schema.keys import Key
from flaglint.tunix.pins import PREFIX as TUNIX_PREFIX
from flaglint.tunix.pins import BaseKey, TunixPin, load_tunix_pin

# How a pair of validators is told to be one changed check (the heading of its table).
MAXTEXT_CHANGED = "what the same function and message check"
TUNIX_CHANGED = "the same check of a function, checking another condition"
# The base YAML whose keys are named without their file: the one every entry point reads.
TUNIX_BASE = "base_config.yaml"

# What makes a value valid for a key; the rest (line, group, source) moves with every edit.
_TYPE_FIELDS = tuple(name for name in Key.field_names if name not in ("name", "default", "default_at_runtime", "group", "line", "source"))


@dataclass(frozen=True)
class Change:
    """One field of a key (or its default) from OLD to NEW; for two lists, the elements ADDED and
    REMOVED, in their order."""

    field: str
    old: Any
    new: Any
    added: tuple = ()
    removed: tuple = ()

    @property
    def elementwise(self) -> bool:
        return isinstance(self.old, (list, tuple)) and isinstance(self.new, (list, tuple))

    def text(self) -> str:
        if not self.elementwise:
            return f"{shown(self.old)} -> {shown(self.new)}"
        parts = [f"+{shown(item)}" for item in self.added] + [f"-{shown(item)}" for item in self.removed]
        return " ".join(parts) or "same elements, reordered"

    def to_json(self) -> dict[str, Any]:
        if self.elementwise:
            return {"field": self.field, "added": list(self.added), "removed": list(self.removed)}
        return {"field": self.field, "from": self.old, "to": self.new}


@dataclass(frozen=True)
class Validator:
    id: str
    title: str
    source: str  # the function that raises

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "title": self.title, "function": self.source}


@dataclass(frozen=True)
class PinDiff:
    old: str
    new: str
    keys_added: list[str]
    keys_removed: list[str]
    keys_retyped: list[tuple[str, list[Change]]]
    defaults_changed: list[tuple[str, Change]]
    validators_added: list[Validator]
    validators_changed: list[tuple[Validator, Validator]]  # one function's check, with the same message, changed
    validators_removed: list[Validator]
    changed_means: str = MAXTEXT_CHANGED

    def counts(self) -> dict[str, int]:
        return {name.replace("_", " "): len(getattr(self, name)) for name in (
            "keys_added", "keys_removed", "keys_retyped", "defaults_changed",
            "validators_added", "validators_changed", "validators_removed")}

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1, "from": self.old, "to": self.new,
            "counts": {name.replace(" ", "_"): count for name, count in self.counts().items()},
            "keys_added": self.keys_added, "keys_removed": self.keys_removed,
            "keys_retyped": [{"key": key, "changes": [c.to_json() for c in changes]} for key, changes in self.keys_retyped],
            "defaults_changed": [{"key": key, **change.to_json()} for key, change in self.defaults_changed],
            "validators_added": [v.to_json() for v in self.validators_added],
            "validators_changed": [{"from": old.to_json(), "to": new.to_json()} for old, new in self.validators_changed],
            "validators_removed": [v.to_json() for v in self.validators_removed],
        }


def diff_pins(old_name: str, new_name: str) -> PinDiff:
    """The two MaxText pins', or the two Tunix pins' (`tunix-X.Y.Z`), changes."""
    tunix = [name.startswith(TUNIX_PREFIX) for name in (old_name, new_name)]
    if all(tunix):
        return diff_tunix_pins(load_tunix_pin(old_name), load_tunix_pin(new_name))
    if any(tunix):
        raise InputError(f"pins diff compares two MaxText pins or two Tunix pins, not {old_name} and {new_name}")
    old, new = load_pin(old_name), load_pin(new_name)
    common = sorted(set(old.keys) & set(new.keys))
    retyped = [(k, _type_changes(old.keys[k], new.keys[k])) for k in common]
    defaults = [(k, _change("default", old.default(k), new.default(k))) for k in common if shown(old.default(k)) != shown(new.default(k))]
    old_rules, new_rules = _validators(old), _validators(new)
    added = [v for i, v in new_rules.items() if i not in old_rules]
    removed = [v for i, v in old_rules.items() if i not in new_rules]
    # the same function raising the same message under another condition: a check MaxText changed
    old_messages, new_messages = _messages(old), _messages(new)
    by_wording = {(v.source, new_messages[v.id]): v for v in added}
    changed = [(v, by_wording[(v.source, old_messages[v.id])]) for v in removed if (v.source, old_messages[v.id]) in by_wording]
    moved = {id(v) for pair in changed for v in pair}
    return PinDiff(
        old.pin, new.pin,
        keys_added=sorted(set(new.keys) - set(old.keys)),
        keys_removed=sorted(set(old.keys) - set(new.keys)),
        keys_retyped=[(k, changes) for k, changes in retyped if changes],
        defaults_changed=defaults,
        validators_added=[v for v in added if id(v) not in moved],
        validators_changed=changed,
        validators_removed=[v for v in removed if id(v) not in moved],
    )


def diff_tunix_pins(old: TunixPin, new: TunixPin) -> PinDiff:
    """The keys of the base YAMLs (a key of another base than base_config.yaml named `file:key`; a
    key under a section added or removed with it is not listed) and the imported checks. A check
    is changed, not removed and added, where that is what the release did (`_changed_checks`)."""
    old_keys, new_keys = _tunix_keys(old), _tunix_keys(new)
    common = [k for k in new_keys if k in old_keys]
    old_rules, new_rules = _tunix_validators(old), _tunix_validators(new)
    changed = _changed_checks(old, new, old_rules, new_rules)
    moved = {v.id for pair in changed for v in pair}
    return PinDiff(
        old.name, new.name,
        keys_added=_outermost(set(new_keys) - set(old_keys)),
        keys_removed=_outermost(set(old_keys) - set(new_keys)),
        keys_retyped=[(k, [_change("type", old_keys[k].type, new_keys[k].type)]) for k in sorted(common)
                      if old_keys[k].type != new_keys[k].type],
        defaults_changed=[(k, _change("default", old_keys[k].default, new_keys[k].default)) for k in sorted(common)
                          if shown(old_keys[k].default) != shown(new_keys[k].default)],
        validators_added=[v for i, v in new_rules.items() if i not in old_rules and i not in moved],
        validators_changed=changed,
        validators_removed=[v for i, v in old_rules.items() if i not in new_rules and i not in moved],
        changed_means=TUNIX_CHANGED,
    )


def _changed_checks(old: TunixPin, new: TunixPin, old_rules: dict[str, Validator],
                    new_rules: dict[str, Validator]) -> list[tuple[Validator, Validator]]:
    """The checks the new release changed, as (old, new) pairs, sorted by the old id:
    - a check with one id at both whose condition, stage or message (apart from the release it
      names) differs: an id is a hash of what is checked, so this is a pin imported otherwise;
    - of the checks removed and added in one function and stage, the one check of each whose
      condition differs from the other's in constants alone (a choice added to a list);
    - then, where as many checks of one function and stage were removed as added, each with the
      one at its place in the function (the order of their raises), where the two read a key in
      common: the function kept its raises and changed what each checks (a new model family
      spelling, a token required only for a remote path)."""
    olds, news = {r.id: r for r in old.rules}, {r.id: r for r in new.rules}
    pairs = [(old_rules[i], new_rules[i]) for i in old_rules if i in new_rules
             and _checked(olds[i], old.version) != _checked(news[i], new.version)]
    removed = [olds[i] for i in old_rules if i not in new_rules]
    added = [news[i] for i in new_rules if i not in old_rules]

    def by_place(rules: list[Rule], form: bool) -> dict[tuple, list[Rule]]:
        groups: dict[tuple, list[Rule]] = {}
        for rule in sorted(rules, key=_raise_order):
            place = (rule.source.split()[-1], rule.stage)
            groups.setdefault(place + ((_form(rule.when_text), _form(rule.require_text)) if form else ()), []).append(rule)
        return groups

    def pair(old_rule: Rule, new_rule: Rule) -> None:
        pairs.append((old_rules[old_rule.id], new_rules[new_rule.id]))
        removed.remove(old_rule)
        added.remove(new_rule)

    now = by_place(added, form=True)
    for form, listed in by_place(removed, form=True).items():
        if len(listed) == 1 and len(now.get(form, ())) == 1:
            pair(listed[0], now[form][0])
    now = by_place(added, form=False)
    for place, listed in by_place(removed, form=False).items():
        candidates = now.get(place, [])
        if len(candidates) == len(listed) and all(set(a.names) & set(b.names) for a, b in zip(listed, candidates)):
            for old_rule, new_rule in zip(listed, candidates):
                pair(old_rule, new_rule)
    return sorted(pairs, key=lambda p: p[0].id)


def _raise_order(rule: Rule) -> tuple[str, int]:
    """Where a Tunix check raises (its source is `file:line function`)."""
    file, _, line = rule.source.split()[0].rpartition(":")
    return file, int(line) if line.isdigit() else 0


def _checked(rule: Rule, version: str) -> tuple:
    """What a Tunix check refuses and says, apart from the release its message names."""
    return rule.stage, rule.when_text, rule.require_text, " ".join(rule.message.replace(version, "").split())


def _tunix_keys(pin: TunixPin) -> dict[str, BaseKey]:
    return {(name if file == TUNIX_BASE else f"{file}:{name}"): key for file, keys in pin.bases.items() for name, key in keys.items()}


class _Constants(ast.NodeTransformer):
    """A condition with each constant, and each tuple or list of constants, as one placeholder."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Name("constant")

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        return ast.Name("constants") if all(isinstance(e, ast.Constant) for e in node.elts) else self.generic_visit(node)

    visit_List = visit_Tuple


def _form(condition: str | None) -> str | None:
    """A rule's condition apart from its constants."""
    return None if condition is None else ast.dump(_Constants().visit(ast.parse(condition, mode="eval")))


def _outermost(keys: set[str]) -> list[str]:
    """The keys none of whose sections is among KEYS, sorted."""
    return sorted(k for k in keys if not any(k[:i] in keys for i, c in enumerate(k) if c in ".:"))


def _tunix_validators(pin: TunixPin) -> dict[str, Validator]:
    """Id -> check, for the Tunix release's imported checks, sorted by id."""
    return {rule.id: Validator(rule.id, rule.title, rule.source.split()[-1]) for rule in sorted(pin.rules, key=lambda r: r.id)}


def _type_changes(old: Key, new: Key) -> list[Change]:
    return [_change(name, getattr(old, name), getattr(new, name)) for name in _TYPE_FIELDS if getattr(old, name) != getattr(new, name)]


def _change(name: str, old: Any, new: Any) -> Change:
    if not (isinstance(old, (list, tuple)) and isinstance(new, (list, tuple))):
        return Change(name, old, new)
    old_shown, new_shown = [shown(x) for x in old], [shown(x) for x in new]
    return Change(name, old, new, added=tuple(x for x, s in zip(new, new_shown) if s not in old_shown),
                  removed=tuple(x for x, s in zip(old, old_shown) if s not in new_shown))


def shown(value: Any) -> str:
    return json.dumps(list(value) if isinstance(value, tuple) else value, default=str)


def _imported(pin: PinSchema) -> list[Rule]:
    return [rule for rule in load_ruleset(pin.rules).rules if rule.id.startswith("MX") and rule.applies_to(pin.chain)]


def _validators(pin: PinSchema) -> dict[str, Validator]:
    """Id -> validator, for MaxText's own validators that apply at PIN, sorted by id."""
    return {rule.id: Validator(rule.id, rule.title, rule.source.split()[-1]) for rule in sorted(_imported(pin), key=lambda r: r.id)}


def _messages(pin: PinSchema) -> dict[str, str]:
    return {rule.id: " ".join(rule.message.split()) for rule in _imported(pin)}

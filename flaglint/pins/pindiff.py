"""`flaglint pins diff A B`: what an upgrade from one MaxText pin to another changes for a user's
flags: keys added, removed and retyped, effective defaults changed, validators added, changed and
removed (a validator's id is one check at every pin: docs/rule-ids.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

from flaglint.pins.pins import PinSchema, load_pin
from flaglint.rules.ruleset import Rule, load_ruleset
from flaglint.schema.keys import Key

# What makes a value valid for a key; the rest (line, group, source) moves with every edit.
_TYPE_FIELDS = tuple(f.name for f in fields(Key) if f.name not in ("name", "default", "default_at_runtime",
                                                                    "group", "line", "source"))


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

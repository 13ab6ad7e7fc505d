"""`flaglint pins diff A B`: what an upgrade from one MaxText pin to another changes for a user's
flags: keys added, removed and retyped, effective defaults changed, validators added and removed
(a validator is known by its message, which the rule ids, numbered per version, are not)."""

from __future__ import annotations

import json
from dataclasses import fields

from flaglint.pins.pins import PinSchema, load_pin
from flaglint.rules.ruleset import load_ruleset
from flaglint.schema.keys import Key

# What makes a value valid for a key; the rest (line, group, source) moves with every edit.
_TYPE_FIELDS = tuple(f.name for f in fields(Key) if f.name not in ("name", "default", "default_at_runtime",
                                                                    "group", "line", "source"))


def diff_pins(old_name: str, new_name: str) -> list[str]:
    old, new = load_pin(old_name), load_pin(new_name)
    added = sorted(set(new.keys) - set(old.keys))
    removed = sorted(set(old.keys) - set(new.keys))
    common = sorted(set(old.keys) & set(new.keys))
    retyped = [(k, _type_change(old.keys[k], new.keys[k])) for k in common]
    retyped = [(k, change) for k, change in retyped if change]
    defaults = [(k, old.default(k), new.default(k)) for k in common if _shown(old.default(k)) != _shown(new.default(k))]
    old_rules, new_rules = _validators(old), _validators(new)
    lines = [f"{old.pin} -> {new.pin}"]
    lines += _section("keys added", added)
    lines += _section("keys removed", removed)
    lines += _section("keys retyped", [f"{k}: {change}" for k, change in retyped])
    lines += _section("defaults changed", [f"{k}: {_shown(a)} -> {_shown(b)}" for k, a, b in defaults])
    lines += _section("validators added", [f"{new_rules[m]} {m}" for m in sorted(set(new_rules) - set(old_rules))])
    lines += _section("validators removed", [f"{old_rules[m]} {m}" for m in sorted(set(old_rules) - set(new_rules))])
    return lines


def _section(title: str, items: list[str]) -> list[str]:
    return [f"{title}: {len(items)}", *(f"  {item}" for item in items)]


def _type_change(old: Key, new: Key) -> str:
    changed = [name for name in _TYPE_FIELDS if getattr(old, name) != getattr(new, name)]
    return ", ".join(f"{name} {_shown(getattr(old, name))} -> {_shown(getattr(new, name))}" for name in changed)


def _shown(value) -> str:
    text = json.dumps(list(value) if isinstance(value, tuple) else value, default=str)
    if len(text) > _LONGEST and isinstance(value, (list, tuple, dict)):
        return f"{text[:_LONGEST]}... ({len(value)} entries)"
    return text


_LONGEST = 100


def _validators(pin: PinSchema) -> dict[str, str]:
    """Message -> rule id, for MaxText's own validators that apply at PIN."""
    return {" ".join(rule.message.split()): rule.id for rule in load_ruleset(pin.rules).rules
            if rule.id.startswith("MX") and rule.applies_to(pin.chain)}

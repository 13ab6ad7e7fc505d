"""What the editor shows of a key, a variable or a rule: hover text and completions, from the pin
the document is checked at (its keys, types, defaults and rules), the other pins and Tunix's
launcher variables."""

from __future__ import annotations

import re

from flaglint.frontends.checker import Checker
from flaglint.maxtext.values import format_value
from flaglint.pins.pins import pins_defining
from flaglint.report.rule_docs import explain_rule, rule_at
from flaglint.schema.keys import Key
from flaglint.tunix.variables import load_tunix

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_SHOWN_CHOICES = 30  # a longer list of choices is cut, with how many more there are


def word_at(line: str, index: int) -> str | None:
    """The key or variable name around character INDEX of LINE."""
    for match in _WORD.finditer(line):
        if match.start() <= index <= match.end():
            return match.group()
    return None


def _type(key: Key) -> str:
    shown = key.kind if key.kind != "list" or key.item is None else f"list of {key.item}"
    if key.kind == "union" and key.members:
        shown = " | ".join(key.members)
    bounds = [f"{name} {bound:g}" for name, bound in (("≥", key.ge), (">", key.gt), ("≤", key.le), ("<", key.lt)) if bound is not None]
    return " ".join([shown, *bounds]) + (" or none" if key.nullable else "")


def key_hover(name: str, checker: Checker) -> str | None:
    """Markdown about the MaxText key or Tunix variable NAME, or None when it is neither."""
    pin = checker.pin
    if name in pin.keys:
        key = pin.keys[name]
        lines = [f"**{name}**: MaxText key at {pin.pin}", "", f"- type: `{_type(key)}`",
                 f"- default: `{format_value(pin.default(name))}`" + (f" (at run time: `{key.default_at_runtime}`)" if key.default_at_runtime else "")]
        if key.choices:
            shown = ", ".join(f"`{format_value(choice)}`" for choice in key.choices[:_SHOWN_CHOICES])
            more = len(key.choices) - _SHOWN_CHOICES
            lines.append(f"- choices: {shown}" + (f" and {more} more" if more > 0 else ""))
        lines.append(f"- defined at: {', '.join(pins_defining(name))}")
        reading = [rule.id for rule in checker.ruleset.rules if rule.applies_to(pin.chain) and name in rule.name_set]
        lines.append(f"- rules that read it: {', '.join(reading) if reading else 'none'}")
        return "\n".join(lines)
    variable = load_tunix().variables.get(name)
    if variable is not None:
        lines = [f"**{name}**: Tunix launcher variable", "", variable.description, "", f"- type: `{variable.kind}`"]
        if variable.default is not None:
            lines.append(f"- default: `{variable.default}`")
        if variable.choices:
            lines.append(f"- choices: {', '.join(f'`{choice}`' for choice in variable.choices)}")
        if variable.binds:
            lines.append(f"- sets the MaxText keys: {', '.join(key for key, _ in variable.binds)}")
        reading = [rule.id for rule in checker.ruleset.rules if rule.applies_to(pin.chain) and name in rule.name_set]
        lines.append(f"- rules that read it: {', '.join(reading) if reading else 'none'}")
        return "\n".join(lines)
    elsewhere = pins_defining(name)
    return f"**{name}** is not a key of MaxText at {pin.pin}; it is a key at {', '.join(elsewhere)}" if elsewhere else None


def rule_hover(rule_id: str, checker: Checker) -> str | None:
    """`flaglint explain RULE` at the document's pin, as a code block."""
    listed = rule_at(rule_id, checker.pin)
    rule = listed.rule if listed else checker.ruleset.by_id(rule_id)
    return None if rule is None else f"```text\n{explain_rule(rule, listed)}\n```"


def keys_starting(prefix: str, checker: Checker) -> list[tuple[str, str]]:
    """(key, its type) of each key of the pin that starts with PREFIX, in order."""
    return [(name, _type(checker.pin.keys[name])) for name in sorted(checker.pin.keys) if name.startswith(prefix)]


def value_choices(name: str, checker: Checker) -> list[str]:
    """The values the key NAME takes, as they are written: its choices, or true/false."""
    if name not in checker.pin.keys:
        return []
    key = checker.pin.keys[name]
    if key.choices:
        return [format_value(choice) for choice in key.choices]
    return ["true", "false"] if key.kind == "bool" else []

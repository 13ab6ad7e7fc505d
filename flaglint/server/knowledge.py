"""What the editor shows of a key, a variable or a rule: hover text and completions, from the pin
the document is checked at (its keys, types, defaults and rules), the other pins and Tunix's
launcher variables; for a Tunix config or a `tunix.cli` command line, from the Tunix pin (the keys
of its base YAMLs, their types and defaults, and the release's checks that read them)."""

from __future__ import annotations

import json
import re

from flaglint.frontends.checker import Checker
from flaglint.maxtext.values import format_value
from flaglint.pins.pins import pins_defining
from flaglint.report.rule_docs import explain_rule, rule_at
from flaglint.schema.keys import Key
from flaglint.tunix.pins import BaseKey, TunixPin, bundled_tunix_pins, load_tunix_pin
from flaglint.tunix.variables import load_tunix

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_SHOWN_CHOICES = 30  # a longer list of choices is cut, with how many more there are
# a key whose value is the lines below it (quoted where YAML would read it as another value: 'on')
_YAML_SECTION = re.compile(r"^( *)(['\"]?)([A-Za-z_][\w-]*)\2:\s*(?:#.*)?$")
_TUNIX_PROGRAM = "tunix.cli."


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


# ---- Tunix ----


def tunix_keys(pin: TunixPin) -> dict[str, tuple[str, BaseKey]]:
    """Every dotted key of the pin's base YAMLs, with the file that defines it (base_config.yaml
    first: the key as every entry point reads it)."""
    keys: dict[str, tuple[str, BaseKey]] = {}
    for file in sorted(pin.bases, key=lambda name: name != "base_config.yaml"):
        for name, key in pin.bases[file].items():
            keys.setdefault(name, (file, key))
    return keys


def tunix_pins_defining(name: str) -> list[str]:
    """The bundled Tunix pins whose base YAMLs define the dotted key NAME, oldest first."""
    return [pin for pin in bundled_tunix_pins() if any(name in keys for keys in load_tunix_pin(pin).bases.values())]


def tunix_key_hover(name: str, pin: TunixPin) -> str | None:
    """Markdown about the Tunix key NAME (dotted) at PIN, or None when no base YAML of it defines it."""
    found = tunix_keys(pin).get(name)
    if found is None:
        return None
    file, key = found
    lines = [f"**{name}**: Tunix key at {pin.name} ({file}, line {key.line})", "", f"- type: `{key.type}`"]
    if key.type != "dict":
        lines.append(f"- default: `{json.dumps(key.default)}`")
    lines.append(f"- defined at: {', '.join(tunix_pins_defining(name))}")
    reading = sorted(rule.id for rule in pin.rules if name in rule.name_set)
    lines.append(f"- checks that read it: {', '.join(reading) if reading else 'none'}")
    section, _, field_name = name.rpartition(".")
    built = sorted({f"{b.cls} ({entry})" for entry, builders in pin.entries.items() for b in builders
                    if b.section == section and field_name in b.fields})
    if built:
        lines.append(f"- a field of: {', '.join(built)}, which refuses a key it does not define (FL210)")
    return "\n".join(lines)


def tunix_keys_under(section: str, prefix: str, pin: TunixPin) -> list[tuple[str, str]]:
    """(name, type) of each key of the pin directly under SECTION (dotted; "" for the top level)
    whose name starts with PREFIX, in order."""
    start = f"{section}." if section else ""
    names = {name[len(start):]: key.type for name, (_, key) in tunix_keys(pin).items()
             if name.startswith(start) and "." not in name[len(start):]}
    return [(name, kind) for name, kind in sorted(names.items()) if name.startswith(prefix)]


def tunix_dotted_keys_starting(prefix: str, pin: TunixPin) -> list[tuple[str, str]]:
    """(dotted key, type) of each key of the pin that starts with PREFIX, in order, as a command
    line's `a.b.c=value` words name them."""
    return [(name, key.type) for name, (_, key) in sorted(tunix_keys(pin).items()) if name.startswith(prefix)]


def tunix_value_choices(name: str, pin: TunixPin) -> list[str]:
    found = tunix_keys(pin).get(name)
    return ["true", "false"] if found is not None and found[1].type == "bool" else []


def yaml_section(lines: list[str], number: int) -> str:
    """The dotted section line NUMBER of a YAML mapping is in, from the keys above it with less
    indentation ("" at the top level)."""
    line = lines[number]
    indent = len(line) - len(line.lstrip(" "))
    parents: list[str] = []
    for above in reversed(lines[:number]):
        if indent == 0:
            break
        match = _YAML_SECTION.match(above)
        if match and len(match.group(1)) < indent:
            parents.append(match.group(3))
            indent = len(match.group(1))
        elif above.strip() and not above.lstrip().startswith("#") and len(above) - len(above.lstrip(" ")) < indent:
            return ""  # a list item or a value: not a mapping this module can follow
    return ".".join(reversed(parents))


def on_tunix_command_line(lines: list[str], number: int) -> bool:
    """Whether line NUMBER of a script is part of a `python -m tunix.cli.…` command line (it, or a
    line it continues with a trailing backslash, names the module)."""
    first = number
    while first > 0 and lines[first - 1].rstrip().endswith("\\"):
        first -= 1
    return any(_TUNIX_PROGRAM in line for line in lines[first:number + 1])

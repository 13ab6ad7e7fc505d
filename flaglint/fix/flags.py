"""A fix of a flag string: the solver's solution written as edits of the string.

A key set by a token is changed in place, or its token dropped when dropping it gives the value;
a key not in the string gets a token appended. Tunix variables are not in the string: their
change is reported, and the string stays as it is. Every other byte of the string is kept.
"""

from __future__ import annotations

from collections.abc import Callable

from flaglint.core.edits import Applicability, Edit, joined_drops
from flaglint.core.findings import Change, Fix
from flaglint.maxtext.values import ValueError_, format_value, type_value
from flaglint.read.flags import Token
from flaglint.resolve.resolver import Config
from flaglint.schema.keys import Key
from flaglint.solve.solutions import Solution
from flaglint.tunix.variables import bindings, load_tunix

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


def apply_edits(text: str, edits: list[Edit]) -> str:
    """The flag string with its edits made (those done by hand, such as a Tunix variable to set, are not in it)."""
    edits = [edit for edit in edits if edit.written]
    merged = joined_drops(edits, text, lambda start, end: Edit.in_text(text, start, end, ""))
    for edit in reversed(merged):
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text


def _value_without(config: Config, key: str) -> Any:
    """The key's value if its last token were dropped (an earlier token of the same key wins then)."""
    tokens = [t for t in config.tokens if t.key == key]
    if len(tokens) > 1:
        try:
            return type_value(config.pin.keys[key], tokens[-2].value)
        except ValueError_:
            return _Unreachable
    assignment = config.explicit.get(key)
    if assignment is None or assignment.token is None:
        return _Unreachable
    bound = bindings(load_tunix(), config.tunix).get(key)
    if bound is not None:
        return _Unreachable  # the binding's typed value is not at hand here; edit in place instead
    if config.model and key in config.pin.models[config.model]:
        return _Unreachable
    return config.pin.default(key)


class _Unreachable:
    pass


def drop_token(text: str, token: Token) -> Edit:
    start, end = token.offset, token.end_offset
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    if start == 0:
        while end < len(text) and text[end] in " \t":
            end += 1
    return Edit.in_text(text, start, end, "")


def refused_edit(text: str, token: Token, config: Config) -> tuple[Edit, Change]:
    """What every fix does with a token MaxText refuses. A value that differs from one of the key's
    choices only in case is that choice (context=Offload means offload: dropping it would give
    remat); any other token is dropped."""
    choice = case_corrected(config.pin.keys.get(token.key or ""), token.value)
    if choice is not None:
        return Edit.in_text(text, token.offset, token.end_offset, f"{token.key}={choice}"), Change(token.key, token.value, choice)
    # A token without a key is named by its text (its value is part of that text).
    return drop_token(text, token), (Change(token.key, token.value, None) if token.key else Change(token.text, None, None))


def case_corrected(schema: Key | None, value: str | None) -> str | None:
    """The key's choice the value spells in another case, if MaxText accepts that spelling."""
    if schema is None or not schema.choices or value is None:
        return None
    matches = [c for c in schema.choices if isinstance(c, str) and c.lower() == value.lower() and c != value]
    if len(matches) != 1:
        return None
    try:
        type_value(schema, matches[0])  # `none` is a choice that the command line reads as None
    except ValueError_:
        return None
    return matches[0]


class _Refused:
    """The value of a key whose token MaxText refuses: the run never starts with it."""


def is_safe(before: Config, after: Config) -> bool:
    """The README's definition, judged on the values in effect before and after the fix: safe when
    every key keeps its value, or a boolean goes from true to false (a feature turned off), or a
    refused value becomes a false boolean or its own spelling in the right case. Anything else
    (false to true enables something; a number or a choice that changes, such as dropping a refused
    custom_mesh_and_rule, which falls back to the default mesh) is unsafe. Keys the pin does not
    define change nothing, and removing them is safe. The Tunix variables must not change."""
    if before.tunix != after.tunix:
        return False
    refused = {token.key for token in before.rejected if token.key in before.pin.keys and token.key not in before.explicit}
    written = {token.key: token.value for token in before.tokens if token.key}
    keys = {t.key for t in [*before.tokens, *after.tokens] if t.key in before.pin.keys} | before.explicit.keys() | after.explicit.keys()
    for key in keys:
        old = _Refused if key in refused else before.lookup(key)
        new = after.lookup(key)
        if (old == new and type(old) is type(new)) or new is False and (old is True or old is _Refused):
            continue
        if old is _Refused and isinstance(new, str) and new != written.get(key) and new.lower() == (written.get(key) or "").lower():
            continue
        return False
    return True


def write_fix(config: Config, solution: Solution) -> tuple[Fix, dict[str, str]]:
    """The Fix, and the Tunix variables it sets (name -> value, '' meaning unset).

    Fix.edits holds one edit per change, in the order of Fix.changes (a Tunix variable's is done
    by hand: the flag string does not hold it). Fix.applicability is UNSAFE until the checker
    settles it by `is_safe`, once the fixed string has been read again.
    """
    text = config.source.text
    edits: list[Edit] = []
    changes: list[Change] = []
    env: dict[str, str] = {}
    for name, old, new in solution.values:
        changes.append(Change(name, old, new))
        if name in load_tunix().variables:
            env[name] = "" if new is None else format_value(new)
            edits.append(Edit(None, "" if old is None else format_value(old), env[name], Applicability.BY_HAND, variable=name))
            continue
        assignment = config.explicit.get(name)
        # A key whose last word MaxText refuses (a value in the wrong case, say) is set in that word.
        token = assignment.token if assignment else next((t for t in reversed(config.rejected) if t.key == name), None)
        without = _value_without(config, name)
        if token is not None and without == new and type(without) is type(new):
            edits.append(drop_token(text, token))
            continue
        rendered = f"{name}={format_value(new)}"
        if token is not None:
            edits.append(Edit.in_text(text, token.offset, token.end_offset, rendered))
        else:
            edits.append(Edit.in_text(text, len(text), len(text), " " + rendered))
    for token in config.rejected:
        if not any(e.start <= token.offset < e.end or e.start == token.offset for e in edits if e.written):
            edit, change = refused_edit(text, token, config)
            edits.append(edit)
            changes.append(change)
    return Fix(changes=changes, flags=_fixed_text(text, edits), applicability=Applicability.UNSAFE, edits=edits), env


def _fixed_text(text: str, edits: list[Edit]) -> str:
    """The flag string with the edits made; tokens appended at its end are joined with one blank."""
    edits = [e for e in edits if e.written]
    in_place = [e for e in edits if e.start < len(text) or e.end < len(text)]
    appended = [e.new.strip() for e in edits if e.start == e.end == len(text)]
    fixed = apply_edits(text, in_place)
    if appended:
        fixed = (fixed.rstrip(" \t") + " " if fixed.strip() else "") + " ".join(appended)
    return fixed


def renamed(config: Config, fix: Fix, suggestions: Callable[[str], list[str]]) -> Fix | None:
    """The fix with each key the pin does not define renamed to the one key "did you mean" names,
    instead of dropped; None when no key has a single suggestion. Always unsafe: the renamed key's
    value now counts, and the suggestion is a guess."""
    text = config.source.text
    undefined = [t for t in config.rejected if t.key and t.key not in config.pin.keys]
    edits, changes = [], list(fix.changes)
    for edit in fix.edits:
        token = next((t for t in undefined if edit.written and edit.start <= t.offset < edit.end), None)
        names = suggestions(token.key) if token else []
        if len(names) != 1:
            edits.append(edit)
            continue
        edits.append(Edit.in_text(text, token.offset, token.end_offset, f"{names[0]}={token.value}"))
        changes.append(Change(names[0], None, token.value))
    if edits == fix.edits:
        return None
    return Fix(changes=changes, flags=_fixed_text(text, edits), applicability=Applicability.UNSAFE, edits=edits)

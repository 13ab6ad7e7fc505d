"""The leading words of a command whose own words are a joined (symbolic) value: `$CMD` after
`CMD="$CMD --k=$K"` behind n tests. Only the first field decides what runs; where the first fields
are the same on every alternative they are taken concrete and the rest stays symbolic (a Split), so
the command is one launch, not a path for each combination of the tests."""

from __future__ import annotations

from flaglint.render.bash.types import Choice, FromInput, Split, Sym, Value

_IFS = " \t\n"
# How deep the walk goes into Choices and strings nested in one another: past it, what lies below
# counts as not shared (the command's words are then decided on the path, as for any command).
_DEPTH_LIMIT = 64


def _shared(a: tuple, b: tuple) -> int:
    """How many leading (character, origin) pairs two leads share."""
    n = 0
    for x, y in zip(zip(*a), zip(*b)):
        if x != y:
            break
        n += 1
    return n


def _lead(value, memo: dict, depth: int) -> tuple:
    """(text, origins, whole): the characters every alternative of `value` begins with, written in
    the same places, and whether they are all of it on every alternative."""
    found = memo.get(id(value))
    if found is not None:
        return found
    kind = type(value)
    if value is None:
        found = ("", (), True)
    elif kind is Value:
        found = ("", (), False) if value.opaque else (value.text, tuple(value.origins), True)
    elif kind is FromInput or depth > _DEPTH_LIMIT:
        found = ("", (), False)
    elif kind is Sym:
        text, origins, whole = "", (), True
        for piece in value.pieces:
            more, where, whole = _lead(piece, memo, depth + 1)
            text, origins = text + more, origins + where
            if not whole:
                break
        found = (text, origins, whole)
    else:
        leads = [_lead(alt, memo, depth + 1) for _, alt in value.alts]
        first = leads[0]
        common = min(_shared(first[:2], other[:2]) for other in leads[1:]) if len(leads) > 1 else len(first[0])
        whole = all(lead[2] and len(lead[0]) == common for lead in leads)
        found = (first[0][:common], first[1][:common], whole)
    memo[id(value)] = found
    return found


def _dropped(value, count: int, memo: dict, lead_memo: dict):
    """`value` less its first `count` characters, which every alternative of it shares (_lead)."""
    if count == 0:
        return value
    key = (id(value), count)
    if key in memo:
        return memo[key]
    if type(value) is Value:
        made = Value(value.text[count:], value.origins[count:], value.opaque)
    elif type(value) is Choice:
        made = Choice(value.name, tuple((values, _dropped(alt, count, memo, lead_memo)) for values, alt in value.alts))
    else:
        pieces = list(value.pieces)
        while count:
            length = len(_lead(pieces[0], lead_memo, 0)[0])
            if length <= count and _lead(pieces[0], lead_memo, 0)[2]:
                pieces.pop(0)
                count -= length
            else:
                pieces[0] = _dropped(pieces[0], count, memo, lead_memo)
                count = 0
        made = Sym(tuple(pieces))
    memo[key] = made
    return made


def leading_words(value) -> list | None:
    """The words an unquoted expansion of the joined value `value` gives a command: the fields every
    alternative begins with (each followed by a blank on every one), concrete, then the rest as one
    Split; None where not even the first field is the same on every alternative."""
    lead_memo: dict = {}
    text, origins, whole = _lead(value, lead_memo, 0)
    if whole:
        return None  # the same on every alternative: the command's fields as any
    fields = []
    start = cut = 0
    for i, ch in enumerate(text):
        if ch in _IFS:
            if start < i:
                fields.append(Value(text[start:i], list(origins[start:i])))
            start = cut = i + 1
    if not fields:
        return None
    rest = _dropped(value, cut, {}, lead_memo)
    return [*fields, Split(rest if type(rest) is Sym else Sym((rest,)))]

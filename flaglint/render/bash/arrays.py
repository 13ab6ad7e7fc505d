"""Arrays that joined paths grew differently (`CMD+=(--k="$K")` behind n tests), held as one array:
the elements every alternative starts with, then, at each place where they differ, one element that
is a Choice on the input that tells them apart, None where an alternative has no element there (an
absent element: reading the array drops it, so bash's indices and counts are kept). An array joined
after n appends then holds n such elements, where a Choice of its whole arrays would hold 2**n."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from flaglint.render.bash.types import Choice, Sym, Value, choice_names

# How deep the walk goes into Choices nested in one another that it has not met before: past it the
# array is not factored (it stays a Choice of arrays, read alternative by alternative).
_DEPTH_LIMIT = 64
# Each joined array factored, by its Choice: a path that skipped an append keeps the Choice the
# joins before made, so the next join nests it one deeper; each level is factored once.
_FACTORED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_NONE = object()
_EMPTY = Value("", [])
_BLANK = Value(" ", [None])


def may_be_absent(element) -> bool:
    """Whether an array's element is one that some alternative has not (a bare Choice: elements
    written by the script are Values, or strings that hold a Choice)."""
    return type(element) is Choice


def has_absent(array: list) -> bool:
    return any(type(element) is Choice for element in array)


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def factored(value, depth: int = 0) -> list | None:
    """The joined array `value` (a Choice whose alternatives are arrays) as one array, as the module
    says; None where an alternative is no array (unset, a scalar, the input's own value) or holds an
    unset element (a sparse array). Alternatives that share no first element (`absent=()`, then
    `absent+=("$v")` behind a test) are factored too: their first element is one that may be absent,
    and readers that need it (`${A}`, a command's name) decide it as they decide any such element."""
    if type(value) is list:
        return None if any(element is None for element in value) else value
    if type(value) is not Choice:
        return None
    found = _FACTORED.get(value)
    if found is not None:
        return None if found is _NONE else found
    if depth > _DEPTH_LIMIT:
        return None
    arrays = []
    for _, alt in value.alts:
        array = factored(alt, depth + 1)
        if array is None:
            _FACTORED[value] = _NONE
            return None
        arrays.append(array)
    first = arrays[0]
    shared = 0
    while shared < min(map(len, arrays)) and all(_same(array[shared], first[shared]) for array in arrays[1:]):
        shared += 1
    if all(len(array) == shared for array in arrays):
        made = first
    else:
        made = first[:shared] + [
            Choice(value.name, tuple((values, array[at] if at < len(array) else None) for (values, _), array in zip(value.alts, arrays)))
            for at in range(shared, max(map(len, arrays)))]
    _FACTORED[value] = _NONE if made is None else made
    return made


def presence(element, taken) -> bool | None:
    """Whether an element that some alternatives have not is there on this path (True), is not
    (False), or is not decided yet (None); `taken(choice)` gives the alternatives of a Choice the
    path's values of its input may take."""
    found: set = set()
    todo, seen = [element], set()
    while todo:
        node = todo.pop()
        if type(node) is not Choice:
            found.add(node is not None)
            if len(found) == 2:
                return None
        elif id(node) not in seen:
            seen.add(id(node))
            todo.extend(alt for _, alt in taken(node))
    return found.pop()


@dataclass(frozen=True, eq=False)
class CountRead:
    """What a test of an array's count (`[ "${#A[@]}" -gt 0 ]`) read of `array` on a path where it
    forked on an element still open (one some alternatives have not, its input not decided): each
    element's presence then (True, False, None: open), how many are there and open, the first
    open one, and the path's inputs then (the names decided, the domains) with, for each input,
    the open elements whose Choices read it. The states of the fork read the count again, narrowed
    on the input forked on (an element decided stays so): only the open elements that read an
    input they changed are read again, so a chain of n forks reads each element a few times, not
    the array at each fork."""
    array: list
    steps: int  # the path's steps at the fork: its states read the count at the next one
    presences: list  # (never changed once kept)
    there: int
    open: int
    first: int
    decided: frozenset
    domains: dict  # (a copy: never changed once kept)
    readers: dict  # input -> the positions of the elements open at the fork's first read whose Choices read it


@dataclass(frozen=True)
class Count:
    """An array's count on a path: at least `low`, at most `high`; `first`, its first element still
    open (None where the count is decided); `read`, what to keep where the test forks on it."""
    low: int
    high: int
    first: Choice | None
    read: CountRead | None


def counted(array: list, taken, st, settled) -> Count:
    """The count of an array with elements that some alternatives have not, on the path `st`
    (`taken(choice)`: the alternatives its values leave), read in order until `settled(low, high)`
    says it is known well enough (those not read yet taken as open). Where the path is a state
    of a fork on one of its elements (the CountRead kept at the step before), only what the fork
    changed is read again."""
    before = st.count_read
    if before is not None and before.array is array and before.steps + 1 == st.steps:
        return _read_again(before, taken, st)
    presences: list = []
    there = opens = 0
    for position, element in enumerate(array):
        found = False if element is None else presence(element, taken) if may_be_absent(element) else True
        presences.append(found)
        if found is None:
            opens += 1
        else:
            there += found
        if settled(there, there + opens + len(array) - position - 1):
            return Count(there, there + opens + len(array) - position - 1, None, None)
    if not opens:
        return Count(there, there, None, None)
    readers: dict = {}
    for position, found in enumerate(presences):
        if found is None:
            for name in choice_names(array[position]):
                readers.setdefault(name, []).append(position)
    return _kept(array, st, presences, there, opens, presences.index(None), readers)


def _read_again(before: CountRead, taken, st) -> Count:
    """The count on a state of the fork `before` was kept for: the open elements that read an
    input whose values the state changed read again, the others as they were."""
    changed = st.inputs.keys() - before.decided
    changed.update(name for name, _ in st.domains.items() - before.domains.items())
    again = sorted({position for name in changed for position in before.readers.get(name, ())})
    presences, there, opens = before.presences, before.there, before.open
    if again:
        presences = list(presences)
        for position in again:
            found = presence(before.array[position], taken) if presences[position] is None else None
            if found is not None:
                presences[position] = found
                there += found
                opens -= 1
    if not opens:
        return Count(there, there, None, None)
    first = before.first
    while presences[first] is not None:
        first += 1
    return _kept(before.array, st, presences, there, opens, first, before.readers)


def _kept(array: list, st, presences: list, there: int, opens: int, first: int, readers: dict) -> Count:
    read = CountRead(array, st.steps, presences, there, opens, first, frozenset(st.inputs), st.domains.copy(), readers)
    return Count(there, there + opens, array[first], read)


def _mapped(choice: Choice, there, absent, memo: dict):
    """`choice` with each alternative that is an element replaced by `there(element)`, and each
    that is none (None) by `absent`."""
    if id(choice) in memo:
        return memo[id(choice)]
    made = Choice(choice.name, tuple(
        (values, _mapped(alt, there, absent, memo) if type(alt) is Choice else absent if alt is None else there(alt))
        for values, alt in choice.alts))
    memo[id(choice)] = made
    return made


def starred(array: list) -> Sym:
    """`${A[*]}` of an array with elements that some alternatives have not: its elements joined by
    blanks (bash joins on IFS's first character, and the blank default is all that is followed),
    each absent one with the blank before it left out. The blank before an element is itself a
    Choice on the inputs of the elements before it (whether one of them is there), each built on
    the one before, so n such elements give n Choices of two alternatives each, not 2**n texts."""
    pieces: list = []
    before = _EMPTY  # what goes before the next element there: nothing until one is
    for element in array:
        if element is None:
            continue
        if may_be_absent(element):
            ahead = before
            pieces.append(_mapped(element, lambda there: Sym((ahead, there)), _EMPTY, {}))
            before = _mapped(element, lambda _: _BLANK, before, {})
        else:
            pieces.extend((before, element))
            before = _BLANK
    return Sym(tuple(pieces))

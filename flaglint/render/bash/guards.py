"""A path's condition over several inputs, exactly: a union of cubes; and values guarded by one.

A cube is a product of value sets: a frozenset of (input, frozenset of str | None) for the inputs it
constrains; an input it does not name takes any value of its universe (on a path, the values the
path gives it: State.domains, always the projection of the condition). A path whose condition is
one cube keeps it as its domains alone (State.condition None), as explore()'s paths all do.

A path's condition is kept as factors (State.condition: a frozenset of them), each a union of two or
more cubes over inputs no other factor names; the condition is their product. Tests that each read
inputs of their own (`[[ -z $A1 && -z $B1 ]] && exit`, then A2 and B2, ...) leave n factors of two
cubes, not one union of 2**n: a fork or a merge works on the factors of the inputs it reads.

Where two paths join in the same state but for their variables, they merge whatever inputs their
guards read (`[[ $A == x && $B == y ]]`): the merged condition is the union of theirs, and each
variable they disagree on becomes guarded(): a decision tree of Choices, one input at each level,
that gives each path's value exactly where that path's condition holds.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from flaglint.render.bash.state import State
from flaglint.render.bash.types import Choice, FromInput, Spans, Sym, Value

Cube = frozenset  # frozenset[tuple[str, frozenset]]
EVERYTHING: Cube = frozenset()


def trimmed(cube: Cube, universe: Mapping[str, Sequence]) -> Cube:
    """The cube without the inputs it lets take their whole universe."""
    return frozenset(item for item in cube if not item[1].issuperset(universe[item[0]]))


def simplified(cubes: Iterable[Cube], universe: Mapping[str, Sequence]) -> set[Cube]:
    """The same union as few cubes: cubes that agree but on one input become one (building
    thousands of conditions as Z3 terms, or merging paths, costs more than this)."""
    cubes = {trimmed(c, universe) for c in cubes}
    changed = True
    while changed and len(cubes) > 1:
        changed = False
        # an input every cube gives the same values groups no two of them: only the others are
        # tried (paths that n tests each narrowed alike share n such inputs)
        shared = {n for n, _ in frozenset.intersection(*cubes)}
        entries, weights = _indexed(cubes)
        for name in sorted({n for c in cubes for n, _ in c} - shared):
            # two cubes group only where their items but this input's are the same, so the sums of
            # those items' hashes are too: an input no two sums share is passed over without
            # building each cube's rest (n cubes of n inputs would cost n**3 a pass)
            rests = Counter(weights[c] - hash((name, entries[c][name])) if name in entries[c] else weights[c] for c in cubes)
            if len(rests) == len(cubes):
                continue
            groups: dict[Cube, set] = {}
            for cube in cubes:
                rest = dict(entries[cube])
                values = rest.pop(name, None)
                groups.setdefault(frozenset(rest.items()), set()).update(universe[name] if values is None else values)
            if len(groups) < len(cubes):
                cubes = {trimmed(rest | {(name, frozenset(values))}, universe) for rest, values in groups.items()}
                entries, weights = _indexed(cubes)
                changed = True
    return cubes


def _indexed(cubes: Iterable[Cube]) -> tuple[dict[Cube, dict], dict[Cube, int]]:
    """Each cube's values by input, and the sum of its items' hashes."""
    return {c: dict(c) for c in cubes}, {c: sum(map(hash, c)) for c in cubes}


def product_of(factors: Iterable[frozenset]) -> frozenset[Cube]:
    """The union of cubes that is the product of factors over disjoint inputs."""
    return frozenset(frozenset().union(*chosen) for chosen in itertools.product(*factors))


def factor_names(factor: frozenset) -> set[str]:
    return {n for c in factor for n, _ in c}


def restrict(st: State, name: str, values: Sequence) -> bool:
    """Narrow the path to the inputs' assignments where `name` takes one of `values` (in order);
    False when none is left."""
    factor = next((f for f in st.condition or () if any(n == name for c in f for n, _ in c)), None)
    if factor is None:  # an input no cube names: every cube now takes exactly these values
        if st.condition is not None and name in st.domains:
            allowed = set(values)
            values = [v for v in st.domains[name] if v in allowed]
            if not values:
                st.condition = frozenset((frozenset(),))
                return False
        narrow(st, name, values)
        return True
    allowed = set(values)
    cubes = []
    for cube in factor:
        entries = dict(cube)
        kept = frozenset(v for v in entries.get(name, st.domains[name]) if v in allowed)
        if kept:
            entries[name] = kept
            cubes.append(frozenset(entries.items()))
    return settle(st, cubes, st.condition - {factor})


def settle(st: State, cubes: Sequence[Cube], kept: frozenset = frozenset()) -> bool:
    """Make the union of `cubes` (over st.domains), times the factors `kept` (over inputs the cubes
    do not name), the path's condition, and its projection on each input the path's domains; False
    when the union is empty."""
    if not cubes:
        st.condition = frozenset((frozenset(),))  # (a factor no assignment satisfies)
        return False
    entries = [dict(c) for c in cubes]
    for name in {n for c in cubes for n, _ in c}:
        sets = [e.get(name) for e in entries]
        if all(s is not None for s in sets):  # else a cube lets it take its whole universe
            reached = set().union(*sets)
            narrow(st, name, [v for v in st.domains[name] if v in reached])
    found = simplified(cubes, st.domains)
    if len(found) == 1:
        (cube,) = found
        for name, values in cube:  # (never: one cube is its own projection)
            narrow(st, name, [v for v in st.domains[name] if v in values])
    else:
        kept = kept | {frozenset(found)}
    st.condition = kept or None
    return True


def forget(st: State, name: str) -> None:
    """Let the path hold no value of the input: its condition on the other inputs is what any
    value of it allows (the projection), as if no step had read it."""
    st.inputs.pop(name, None)
    st.domains.pop(name, None)
    factor = next((f for f in st.condition or () if name in factor_names(f)), None)
    if factor is not None:
        settle(st, [without(cube, name) for cube in factor], st.condition - {factor})


def narrow(st: State, name: str, values: Sequence) -> None:
    """Let the input take only `values` on the path. One the path assigned while its values stayed
    grouped is exported where the environment set it (machine.Interp.rendering); once the path no
    longer lets it be unset, bash exports it on every value."""
    unset_before = None in st.domains.get(name, ())
    st.domains[name] = tuple(values)
    if unset_before and None not in values and name in st.scopes[0] and name not in st.inputs:
        st.exported.add(name)


def ordered(cubes: Iterable[Cube]) -> list[Cube]:
    """The cubes in an order that does not depend on string hashing."""
    return sorted(cubes, key=lambda c: sorted((n, sorted(map(repr, vs))) for n, vs in c))


def without(cube: Cube, name: str) -> Cube:
    return frozenset(item for item in cube if item[0] != name)


def spread(cube: Cube, domains: Mapping[str, Sequence]) -> dict[str, list]:
    """The cube over every input of `domains`: each one's values (in their order) that the cube
    allows (the cube looked up by input once, not scanned for each input and value: an outcome's n
    cubes of n inputs each were n**3 steps)."""
    entries = dict(cube)
    return {n: list(values) if n not in entries else [v for v in values if v in entries[n]] for n, values in domains.items()}


def guarded(sides: Sequence[tuple[Sequence[Cube], object]], universe: Mapping[str, Sequence]):
    """Each side's value where one of its cubes holds (no two sides overlap): a Choice on the input
    that most cubes constrain, its alternatives guarded in turn by the other inputs. The values of
    that input are told apart by the cubes that allow each, found once per cube, so k paths joined
    at once on one input cost their values, not k times them. Sides whose arrays hold the same
    elements share one array: the paths that left an array alike (`[ -z "$X" ] && a+=(x)`, X
    unset or empty) are one alternative, and the Choices below it one (made once per content:
    types._Interned), so an array that n such joins grew is a Choice of its 2**n arrays at most,
    not of one for each way the inputs' values lead there."""
    arrays: dict[tuple, list] = {}  # the arrays kept, by their elements' texts
    shared = []
    for cubes, value in sides:
        if type(value) is list:
            kept = arrays.setdefault(tuple(e.text if type(e) is Value else _identity(e) for e in value), [])
            found = next((array for array in kept if _same_elements(array, value)), None)
            if found is None:
                kept.append(value)
            else:
                value = found
        shared.append((cubes, value))
    return _guarded(shared, universe)


def _guarded(sides: Sequence[tuple[Sequence[Cube], object]], universe: Mapping[str, Sequence]):
    live = [(cubes, value) for cubes, value in sides if cubes]
    if len(live) <= 1:
        return live[0][1] if live else sides[0][1]
    counts = Counter(n for cubes, _ in live for c in cubes for n, _ in c)
    if not counts:  # every side holds everywhere: not paths of a partition
        return live[0][1]
    name = max(sorted(counts), key=counts.__getitem__)
    splits = [(side, cube) for side, (cubes, _) in enumerate(live) for cube in cubes]
    allowing: dict = {v: [] for v in universe[name]}  # each value -> the splits whose cube allows it
    for index, (_, cube) in enumerate(splits):
        values = dict(cube).get(name)
        for v in universe[name] if values is None else values:
            if v in allowing:
                allowing[v].append(index)
    classes: dict[tuple, list] = {}
    for v, found in allowing.items():
        classes.setdefault(tuple(found), []).append(v)
    alts: list[tuple[frozenset, object]] = []
    where: dict[object, int] = {}  # an alternative's identity -> its place in alts
    for found, values in classes.items():
        if not found:
            continue
        sub: dict[int, list] = {}
        for index in found:
            side, cube = splits[index]
            sub.setdefault(side, []).append(without(cube, name))
        for taken, value in _on_values(_guarded([(cubes, live[side][1]) for side, cubes in sub.items()], universe),
                                       name, frozenset(values)):
            same = where.setdefault(_identity(value), len(alts))
            if same == len(alts):
                alts.append((taken, value))
            else:
                alts[same] = (alts[same][0] | taken, value)
    if len(alts) == 1 and type(alts[0][1]) is not FromInput:  # a variable is never stored as a bare FromInput
        return alts[0][1]
    return Choice(name, tuple(alts))


def _on_values(value, name: str, values: frozenset) -> list[tuple[frozenset, object]]:
    """`value` where `name` takes one of `values`, as (values, alternative) pairs: a Choice on the
    same input is spread into its alternatives there, so that n paths joined one after another on
    one input (the arms of an options loop's `case "$1"`) give one Choice of at most n
    alternatives, not n nested ones that every later read walks down. A value its alternatives do
    not name takes the first, as a read of the Choice would (machine.Interp._pick). A string that is
    one such Choice (symbolic._choice makes them) is spread alike, each alternative still a string."""
    if type(value) is Sym and len(value.pieces) == 1 and type(value.pieces[0]) is Choice and value.pieces[0].name == name:
        return [(taken, alt if type(alt) in (Value, Sym) else Sym((alt,))) for taken, alt in _on_values(value.pieces[0], name, values)]
    if type(value) is not Choice or value.name != name:
        return [(values, value)]
    spread = [(taken & values, alt) for taken, alt in value.alts if not taken.isdisjoint(values)]
    rest = values.difference(*(taken for taken, _ in value.alts))
    if rest:
        spread.append((rest, value.alts[0][1]))
    return spread


def _identity(value) -> object:
    """What makes two alternatives one value: symbolic ones are made once per content
    (types._Interned), so it is the object; a string with spans, its content (a Choice keeps one
    Value per content: the same piece of text cut from each of many joined paths is one
    alternative); the input's own value, whichever object holds it."""
    if type(value) is FromInput:
        return value
    if type(value) is Value and type(value.origins) is Spans:
        return (value.text, value.opaque, value.origins)
    return id(value)


def _same_elements(a: list, b: list) -> bool:
    """Whether two arrays of the same texts hold the same elements: written in the same places, as
    known (an element's origins are compared one by one, each the same object where both were
    read from one word)."""
    return all(x is y or type(x) is Value and type(y) is Value and x.opaque == y.opaque and x.origins == y.origins
               for x, y in zip(a, b))


@dataclass(frozen=True, eq=False)
class ArmsByCondition:
    """Where paths merged after they forked: the arms each took since, beside its condition (its
    cubes over the merged universe), in a merged path's branches (State.branches)."""
    alternatives: tuple  # ((cubes, branches), ...), one for each merged path

    def arms(self, env: Mapping[str, str | None]) -> tuple | None:
        """The arms of the one merged path whose condition holds for `env`; None where none or
        several do."""
        by_value = self._by_value
        if by_value is not None:
            found = by_value[1].get(env.get(by_value[0]), ())
        else:
            found = [arms for cubes, arms in self.alternatives if any(admits(cube, env) for cube in cubes)]
        return found[0] if len(found) == 1 else None

    @cached_property
    def _by_value(self) -> tuple[str, dict] | None:
        """Where every condition is on one input (the arms of a `case` on it): that input, and the
        arms of each of its values, looked up at once for each witness."""
        names = {name for cubes, _ in self.alternatives for cube in cubes for name, _ in cube}
        if len(names) != 1 or any(not cube for cubes, _ in self.alternatives for cube in cubes):
            return None
        table: dict = {}
        for cubes, arms in self.alternatives:
            for value in {v for cube in cubes for _, values in cube for v in values}:
                table.setdefault(value, []).append(arms)
        return names.pop(), table


def admits(cube: Cube, env: Mapping[str, str | None]) -> bool:
    """Whether the cube holds for the inputs' values in `env` (an input `env` lacks is unset)."""
    return all(env.get(name) in values for name, values in cube)


def arms_taken(branches: Sequence, env: Mapping[str, str | None]) -> list | None:
    """The arms (file, line) that a run with the inputs `env` takes along a path's branches: at
    each merge, those of the one merged path whose condition holds there. None where no merged path's
    condition holds, or more than one does (a run must tell)."""
    taken: list = []
    pending = [iter(branches)]
    while pending:
        entry = next(pending[-1], None)
        if entry is None:
            pending.pop()
        elif type(entry) is ArmsByCondition:
            arms = entry.arms(env)
            if arms is None:
                return None
            pending.append(iter(arms))
        else:
            taken.append(entry)
    return taken

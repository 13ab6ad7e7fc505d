"""Every branch of a script in one evaluation: paths that join are merged into one state.

evaluate() forks the interpreter's state where a step reads an undecided input, as explore() does,
but where the arms of an if, a case or an && / || list meet again (a Join instruction) it waits
until every path has got there or ended, and merges the paths that arrive in the same state but
for their variables and their inputs' values, whatever inputs their guards read
(`[[ $A == x && $B == y ]]`, nested ifs on different inputs). The merged path's condition is the
union of theirs (guards: an exact union of products of value sets), and a variable the merged paths
disagree on becomes a guarded value: Choices on the inputs that tell the paths apart, nested, each
path's value where its condition holds. `X="${X} k=v"` appends to a symbolic value instead of
resolving it (machine.Interp.symbolic_value). Reading a Choice in any other way forks on its input
again, narrowing the condition. So n independent switches cost n forks and n merges, not 2**n
paths, and the outcome's values say which inputs decide each part of them.

The paths still partition the inputs' values: a merge replaces two paths by one over the union of
their conditions.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from flaglint.render.bash.compiler import Join
from flaglint.render.bash.explorer import (
    Candidates,
    Exploration,
    ExploredPath,
    Explorer,
    Outcome,
)
from flaglint.render.bash.guards import Cube, cubes_of, guarded, settle, trimmed
from flaglint.render.bash.machine import Interp
from flaglint.render.bash.state import State, is_argument, settled_positional
from flaglint.render.bash.types import Choice, FromInput, LaunchRecogniser, Sym, Value


def evaluate(script: Path, launches: LaunchRecogniser, fixed: Mapping[str, str] = {}, vary: Mapping[str, list[str]] = {},
             text: bytes | None = None, args: Sequence[str] | None = None) -> Exploration:
    """Every feasible outcome of the script, with joined paths merged (values may be symbolic).
    `text`: the script's bytes, when `script` names no file (stdin); `args`: its arguments (None:
    not given, so they are inputs too)."""
    interp = Interp(str(script), launches, text=text)
    interp.candidates = Candidates(interp, {k: v for k, v in vary.items() if k not in fixed})
    explorer = Explorer(interp)
    work = [interp.start(dict(fixed), args)]
    waiting: dict[tuple, list[State]] = {}
    outcomes: list[Outcome] = []
    paths = 0
    while work or waiting:
        if not work:
            # The innermost join first: the paths still inside a function or sourced file, then the
            # earliest join of a block, so that inner arms merge before the outer ones meet.
            key = min(waiting, key=lambda k: (-len(k[2]), k[1]))
            for st in merge(waiting.pop(key), interp.candidates):
                st.pc += 1
                work.append(st)
            continue
        st = work.pop()
        forked = explorer.advance(st, stop_at=Join)
        if forked is not None:
            work.extend(reversed(merge(forked, interp.candidates)))  # values that lead to the same state need not wait for a join
        elif not st.done:
            waiting.setdefault(_join_key(st), []).append(st)
        else:
            paths += 1
            outcomes.append(explorer.outcome(st))
    inputs = {name: [value] for name, value in fixed.items()}
    inputs.update(explorer.explored)
    return Exploration(outcomes, inputs, paths, False)


def _join_key(st: State) -> tuple:
    return (id(st.code), st.pc, tuple((id(code), pc, kind) for code, pc, kind, _ in st.stack))


def merge(states: list[State], candidates) -> list[State]:
    """The states, with every two that differ only in their variables and their inputs' values
    merged. `candidates(name)`: the values an input no path has read yet may take. Only states at
    the same point, in the same frames, can merge; within such a group each sweep merges every
    state into the first it joins with, and sweeps repeat until none merges (starting over after
    each merge cost the cube of the states where many do not merge)."""
    groups: dict[tuple, list[State]] = {}
    for st in states:
        groups.setdefault(_where(st), []).append(st)
    return [merged for group in groups.values() for merged in _merged_group(group, candidates)]


def _where(st: State) -> tuple:
    return (id(st.code), st.pc, st.status, st.exit_code, len(st.scopes), len(settled_positional(st)),
            tuple((id(code), pc, kind) for code, pc, kind, _ in st.stack))


def _merged_group(states: list[State], candidates) -> list[State]:
    pending = list(states)
    changed = True
    while changed and len(pending) > 1:
        changed = False
        joined: list[State] = []
        for st in pending:
            for k, other in enumerate(joined):
                m = _merge_two(other, st, candidates)
                if m is not None:
                    joined[k] = m
                    changed = True
                    break
            else:
                joined.append(st)
        pending = joined
    return pending


_MISSING = object()
NARROWED_DEPTH = 64


def _universe(st: State, name: str, candidates) -> tuple:
    """The values the path lets the input take: its domain, the one it decided, or any."""
    if name in st.domains:
        return st.domains[name]
    if name in st.inputs:
        v = st.inputs[name]
        return (None if v is None else v.text,)
    return tuple(candidates(name)) if candidates else (None,)


def _explicit(st: State, universe: dict, spread: Iterable[str]) -> list[Cube]:
    """The path's condition as cubes over the merged universe; `spread`: the inputs whose merged
    universe may be wider than the path's own (every other one the path lets take all of it)."""
    own = {n: frozenset(_universe(st, n, None)) for n in spread if n in st.domains or n in st.inputs}
    return [trimmed(frozenset({**own, **dict(cube)}.items()), universe) for cube in cubes_of(st)]


def _merge_two(a: State, b: State, candidates) -> State | None:
    if (a.code is not b.code or a.pc != b.pc or a.status != b.status or a.exit_code != b.exit_code
            or len(a.scopes) != len(b.scopes) or a.functions is not b.functions and a.functions != b.functions
            or settled_positional(a) != settled_positional(b) or a.iters != b.iters or a.stack != b.stack
            or a.options != b.options or a.errexit_ignored != b.errexit_ignored
            or a.handoffs is not b.handoffs and a.handoffs != b.handoffs
            or a.unfound != b.unfound or a.unbounded != b.unbounded or a.launched != b.launched
            or a.files is not b.files and a.files != b.files):
        return None
    if any(set(sa) != set(sb) for sa, sb in zip(a.scopes[1:], b.scopes[1:])):
        return None
    names = a.domains.keys() | b.domains.keys()
    read_once = {}
    for n in _differing(a.inputs, b.inputs, (a.inputs.keys() | b.inputs.keys()) - names):
        va, vb = a.inputs.get(n, _MISSING), b.inputs.get(n, _MISSING)
        if va == vb:
            continue
        if _MISSING not in (va, vb) or not _only_candidate(va if vb is _MISSING else vb, n, candidates):
            return None  # read with different values, or the other path may yet read another
        read_once[n] = va if vb is _MISSING else vb
    for other in (a, b):
        for n in names - other.domains.keys() - other.inputs.keys():
            if n not in other.exported and any(n in scope for scope in other.scopes):
                return None  # other assigned it unread: bash exports it there exactly when it was set
    # The inputs whose values the two paths do not share: most are shared, untouched since they forked.
    spread = {n for n, _ in a.domains.items() ^ b.domains.items()}
    spread.update(_differing(a.inputs, b.inputs, (a.inputs.keys() | b.inputs.keys()) & names))
    merged = {n: tuple(dict.fromkeys(_universe(a, n, candidates) + _universe(b, n, candidates))) for n in spread}
    universe = dict(sorted({**a.domains, **b.domains, **merged}.items()))
    # The inputs the two paths treat differently: their exports must agree but for these.
    differ = {n for n in spread if set(_universe(a, n, candidates)) != set(_universe(b, n, candidates))
              or a.inputs.get(n, _MISSING) != b.inputs.get(n, _MISSING)}
    if a.exported - differ != b.exported - differ:
        return None
    exports = {}
    for name in differ:
        exports[name] = _exported_on_both(a, b, name, _universe(a, name, candidates), _universe(b, name, candidates))
        if exports[name] is None:
            return None
    cubes_a, cubes_b = _explicit(a, universe, spread), _explicit(b, universe, spread)
    m = a.copy()
    m.inputs.update(read_once)
    m.positional = settled_positional(a)
    for index, (sa, sb) in enumerate(zip(a.scopes, b.scopes)):
        scope = m.scopes[index]
        for var in sa.keys() | sb.keys():
            va = sa[var] if var in sa else FromInput(var)
            vb = sb[var] if var in sb else FromInput(var)
            if va is not vb and va != vb:
                scope[var] = _choice((a, cubes_a, va), (b, cubes_b, vb), universe)
    m.domains = universe
    for name in differ:
        if len(universe[name]) > 1:
            m.inputs.pop(name, None)
        elif name not in m.inputs and name in b.inputs:
            m.inputs[name] = b.inputs[name]
        if exports[name]:
            m.exported.add(name)  # exported on both paths (`export IN1` before the fork, or set on each)
        else:
            m.exported.discard(name)  # an input whose values stay grouped is exported when set (machine.py)
    settle(m, cubes_a + cubes_b)
    m.notes = a.notes + tuple(n for n in b.notes if n not in a.notes)
    m.branches = ()  # the arms taken differ; a witness's are found by rendering it (lint)
    m.steps = max(a.steps, b.steps)
    return m


def _narrowed(value, st: State, depth: int = 0):
    """The value as the path sees it: a Choice on an input the path holds within one of its
    alternatives is that alternative, within strings too (a loop that joins its arms each time
    round then comes back to the same state, and ends: machine.Interp._repeats). Values nested
    deeper than NARROWED_DEPTH are left as they are."""
    if depth > NARROWED_DEPTH:
        return value
    if type(value) is Choice:
        held = _held(value.name, st)
        found = next((alt for values, alt in value.alts if held is not None and held <= values), _MISSING)
        return value if found is _MISSING else _narrowed(found, st, depth + 1)
    if type(value) is not Sym:
        return value
    narrowed = [_narrowed(p, st, depth + 1) for p in value.pieces]
    if all(map(operator.is_, narrowed, value.pieces)):
        return value
    pieces = [q for p in narrowed for q in (p.pieces if type(p) is Sym else (p,))]
    return pieces[0] if len(pieces) == 1 and type(pieces[0]) is Value else Sym(tuple(pieces))


def _held(name: str, st: State) -> set | None:
    """The values the path lets the input take (None: any, it never read it)."""
    if name in st.domains:
        return set(st.domains[name])
    if name in st.inputs:
        decided = st.inputs[name]
        return {None if decided is None else decided.text}
    return None


def _only_candidate(value, name: str, candidates) -> bool:
    """Whether `value` is what a path that has not read the input would decide for it now: its one
    candidate, so the path that read it is the other's continuation, not a narrower one."""
    found = tuple(candidates(name)) if candidates else (None,)
    return found == (None if value is None else value.text,)


def _exported_on_both(a: State, b: State, name: str, values_a: tuple, values_b: tuple) -> bool | None:
    """How the merged path exports the input: True, on every value; False, where the environment
    sets it (the rule for an input whose values stay grouped: machine.Interp.rendering, assign);
    None when no one rule says what bash does on both paths."""
    def status(st: State) -> bool | None:  # None: where the environment sets it
        if name in st.exported:
            return True
        if any(name in scope for scope in st.scopes):
            # assigned where its values stay grouped: the machine exports it where they are set
            return None if name not in st.inputs and len(st.domains.get(name, ())) > 1 else False
        if name not in st.inputs:
            return None
        # decided and not exported: unset, or set and then `export -n` (an argument: never exported)
        return is_argument(name) and st.inputs[name] is not None

    found = [(status(a), values_a), (status(b), values_b)]
    if all(s is True or s is None and None not in values for s, values in found):
        return True
    # An assigned input, exported exactly where the environment set it: a child process gets it
    # there (machine.Interp.child_env decides it), as the witness says (machine.Interp.rendering).
    if all(s is None or s is True and None not in values or s is False and set(values) == {None} for s, values in found):
        return False
    return None


def _choice(side_a: tuple[State, list[Cube], object], side_b: tuple[State, list[Cube], object], universe: dict):
    """Each side's value where one of its cubes holds; the prefix and the suffix both strings share
    stay outside the guarded value, cut where a token begins or ends, so each Choice holds the
    tokens that differ (`X="${X} k=v"` and `X="k=v ${X}"` after n joins are n Choices side by
    side, not n nested). What differs is narrowed to each side's path (_narrowed); what they share
    is kept as it is, shared."""
    (a, cubes_a, va), (b, cubes_b, vb) = side_a, side_b
    pa, pb = _pieces(va), _pieces(vb)
    if pa is None or pb is None:
        return guarded(cubes_a, _narrowed(va, a), cubes_b, _narrowed(vb, b), universe)
    common = _shared_prefix(pa, pb)
    while common < min(len(pa), len(pb)) and pa[common] == pb[common]:
        common += 1
    head = list(pa[:common])
    rest_a, rest_b = list(pa[common:]), list(pb[common:])
    if rest_a and rest_b and type(rest_a[0]) is Value and type(rest_b[0]) is Value:
        cut = _token_cut(rest_a[0].text, rest_b[0].text)
        if cut:
            head.append(_slice(rest_a[0], 0, cut))
            rest_a[0], rest_b[0] = _slice(rest_a[0], cut, None), _slice(rest_b[0], cut, None)
    shared = _shared_prefix(rest_a[::-1], rest_b[::-1])
    tail = rest_a[len(rest_a) - shared:]
    rest_a, rest_b = rest_a[:len(rest_a) - shared], rest_b[:len(rest_b) - shared]
    if rest_a and rest_b and type(rest_a[-1]) is Value and type(rest_b[-1]) is Value:
        kept = _token_tail(rest_a[-1], rest_b[-1])
        if kept:
            last_a, last_b = rest_a[-1], rest_b[-1]
            tail.insert(0, _slice(last_a, len(last_a.text) - kept, None))
            rest_a[-1], rest_b[-1] = _slice(last_a, 0, len(last_a.text) - kept), _slice(last_b, 0, len(last_b.text) - kept)
    if not head and not tail:  # still a string: an assignment to it need not decide which one (machine.Interp.assign)
        return Sym((guarded(cubes_a, _narrowed(va, a), cubes_b, _narrowed(vb, b), universe),))
    differing = guarded(cubes_a, _narrowed(_rejoined(rest_a), a), cubes_b, _narrowed(_rejoined(rest_b), b), universe)
    return Sym((*head, differing, *tail))


def _token_tail(a: Value, b: Value) -> int:
    """The length of the suffix a and b share, written in the same place, that begins a token in
    both (after a blank, or at the start)."""
    shared = 0
    while shared < min(len(a.text), len(b.text)) and a.text[-1 - shared] == b.text[-1 - shared]:
        shared += 1
    for kept in range(shared, 0, -1):
        if all(len(s.text) == kept or s.text[-1 - kept].isspace() for s in (a, b)) \
                and a.origins[len(a.text) - kept:] == b.origins[len(b.text) - kept:]:
            return kept
    return 0


def _shared_prefix(a: tuple, b: tuple) -> int:
    """How many pieces the two start with, the same objects."""
    return next(itertools.compress(itertools.count(), map(operator.is_not, a, b)), min(len(a), len(b)))


def _differing(a: Mapping, b: Mapping, names: Iterable[str]) -> list[str]:
    """The names whose values in `a` and `b` are not the same object (missing in one: differing)."""
    names = list(names)
    missing = itertools.repeat(_MISSING)
    return list(itertools.compress(names, map(operator.is_not, map(a.get, names, missing), map(b.get, names, missing))))


def _pieces(value) -> tuple | None:
    """The string's pieces, less empty ones (a quote's end leaves one)."""
    if type(value) is Sym:
        return tuple(p for p in value.pieces if not _empty(p))
    if type(value) is Value:
        return (value,)
    return None


def _empty(piece) -> bool:
    return type(piece) is Value and piece.text == "" and not piece.opaque


def _token_cut(a: str, b: str) -> int:
    """The length of the prefix a and b share, cut back to just before the last blank in it."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    while n > 0 and not a[n - 1].isspace():
        n -= 1
    return n - 1 if n > 0 else 0


def _slice(v: Value, start: int, end: int | None) -> Value:
    return Value(v.text[start:end], v.origins[start:end], v.opaque)


def _rejoined(pieces: list):
    pieces = [p for p in pieces if not _empty(p)]
    if not pieces:
        return Value("", [])
    return pieces[0] if len(pieces) == 1 else Sym(tuple(pieces))


__all__ = ["ExploredPath", "evaluate", "merge"]

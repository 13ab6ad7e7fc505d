"""Every branch of a script in one evaluation: paths that join are merged into one state.

evaluate() forks the interpreter's state where a step reads an undecided input, as explore() does,
but where the arms of an if, a case or an && / || list meet again (a Join instruction) it waits
until every path has got there or ended, and merges the paths that arrive in the same state but
for their variables and their inputs' values, whatever inputs their guards read
(`[[ $A == x && $B == y ]]`, nested ifs on different inputs). The merged path's condition is the
union of theirs (guards: an exact union of products of value sets, kept as factors over disjoint
inputs; the factors every merged path shares stay as they are), and a variable the merged paths
disagree on becomes a guarded value: Choices on the inputs that tell the paths apart, nested, each
path's value where its condition holds. `X="${X} k=v"` appends to a symbolic value instead of
resolving it (machine.Interp.symbolic_value). Reading a Choice in any other way forks on its input
again, narrowing the condition. So n independent switches cost n forks and n merges, not 2**n
paths, and the outcome's values say which inputs decide each part of them.

The paths still partition the inputs' values: a merge replaces two paths by one over the union of
their conditions.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
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
from flaglint.render.bash.guards import (
    ArmsByCondition,
    Cube,
    factor_names,
    guarded,
    product_of,
    settle,
    trimmed,
)
from flaglint.render.bash.machine import Interp
from flaglint.render.bash.state import (
    State,
    is_argument,
    is_file_test,
    is_option,
    settled_positional,
)
from flaglint.render.bash.types import (
    Choice,
    FromInput,
    Launch,
    LaunchRecogniser,
    Split,
    Sym,
    Value,
)


def evaluate(script: Path, launches: LaunchRecogniser, fixed: Mapping[str, str] = {}, vary: Mapping[str, list[str]] = {},
             text: bytes | None = None, args: Sequence[str] | None = None) -> Exploration:
    """Every feasible outcome of the script, with joined paths merged (values may be symbolic).
    `text`: the script's bytes, when `script` names no file (stdin); `args`: its arguments (None:
    not given, so they are inputs too)."""
    files: dict = {}
    argument_files: set = set()
    for _ in range(PASSES - 1):
        try:
            return _explored(script, launches, fixed, vary, text, args, files, argument_files, last=False)
        except _NewComparisons as loaded:
            files, argument_files = loaded.files, loaded.argument_files
    return _explored(script, launches, fixed, vary, text, args, files, argument_files, last=True)


class _NewComparisons(Exception):
    """A file loaded compares an input some path read before with values it was not given: the
    files loaded so far, with which the script is explored again from its start."""

    def __init__(self, files: dict, argument_files: set):
        super().__init__()
        self.files, self.argument_files = files, argument_files


def _explored(script: Path, launches: LaunchRecogniser, fixed: Mapping[str, str], vary: Mapping[str, list[str]],
              text: bytes | None, args: Sequence[str] | None, files: dict, argument_files: set, last: bool) -> Exploration:
    """The exploration (evaluate's), its candidates drawn from `files` (and their `argument_files`)
    too; unless it is the `last`, _NewComparisons where a file loaded gives an input read before it
    other candidates (a script the script runs, a file it sources late, compares it)."""
    interp = Interp(str(script), launches, text=text)
    interp.files.update(files)
    interp.argument_files.update(argument_files)
    interp.joins = True
    candidates = interp.candidates = Candidates(interp, {k: v for k, v in vary.items() if k not in fixed})
    if not last:
        # (an option's values only: asked again, the environment's variables google/tunix's
        # recipes read before the files that compare them took minutes)
        def restart_where_stale() -> None:
            if any(map(is_option, candidates.stale())):
                raise _NewComparisons(dict(interp.files), set(interp.argument_files))

        interp.on_load = restart_where_stale
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
                if st.pc < len(st.code.instrs) and type(st.code.instrs[st.pc]) is Join:
                    st.pc += 1  # else the paths met where a function returned
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
    unexplored = {name: values for name, values in interp.candidates.stale().items() if not is_argument(name)}
    return Exploration(outcomes, inputs, paths, False, unexplored)


def _join_key(st: State) -> tuple:
    return (id(st.code), st.pc, tuple((id(code), pc, kind) for code, pc, kind, _ in st.stack))


def merge(states: list[State], candidates) -> list[State]:
    """The states, with every two that differ only in their variables and their inputs' values
    merged. `candidates(name)`: the values an input no path has read yet may take. Only states at
    the same point, in the same frames, can merge; such a group is merged all at once where all of
    it can be (a merge two at a time rebuilds the growing guarded values once per state: the
    square of the group); else each sweep merges every state into the first it joins with, and
    sweeps repeat until none merges (starting over after each merge cost the cube of the states
    where many do not merge)."""
    groups: dict[tuple, list[State]] = {}
    for st in states:
        groups.setdefault(_where(st), []).append(st)
    return [merged for group in groups.values() for merged in _merged_group(group, candidates)]


def _where(st: State) -> tuple:
    return (id(st.code), st.pc, st.status, st.exit_code, len(st.scopes), len(settled_positional(st)),
            tuple((id(code), pc, kind) for code, pc, kind, _ in st.stack))


def _merged_group(states: list[State], candidates) -> list[State]:
    """The group merged: all at once where they can be (the arms of a `case` on one input, the
    values a read forked into), in one pass over their values; else two at a time, in sweeps.
    States of one condition merge first, so that its factors stay factors of theirs: where others
    of another condition join them, the union multiplies out only what they do not share."""
    if len(states) > 2:
        alike: dict[frozenset | None, list[State]] = {}
        for st in states:
            alike.setdefault(st.condition, []).append(st)
        if 1 < len(alike) < len(states):
            states = [merged for group in alike.values() for merged in (_merged_group(group, candidates) if len(group) > 1 else group)]
    if len(states) > 2:
        whole = _merge(states, candidates)
        if whole is not None:
            return [whole]
    return [merged for kin in _kin(states) for merged in _swept(kin, candidates)]


def _kin(states: list[State]) -> list[list[State]]:
    """The states in classes that agree on what no merge changes: where they launch, their frames,
    their arguments and their loops' passes (_alike). States of two classes never merge, so each
    class is swept alone: a function's returns from calls made with other arguments or at other
    passes of a loop (hundreds of them, in a launcher that starts each instance in a loop) cost a
    comparison each, not a merge tried with every other one in every sweep."""
    by_places: dict[tuple, list[tuple[tuple, list[State]]]] = {}
    for st in states:
        key = (st.stack, settled_positional(st), st.iters)
        found = by_places.setdefault(_launch_places(st), [])
        same = next((kin for known, kin in found if known == key), None)
        if same is None:
            found.append((key, [st]))
        else:
            same.append(st)
    return [kin for found in by_places.values() for _, kin in found]


def _swept(states: list[State], candidates) -> list[State]:
    """The class merged all at once where it can be, else two at a time, in sweeps until none merges."""
    if 2 < len(states):
        whole = _merge(states, candidates)
        if whole is not None:
            return [whole]
    pending = states
    changed = True
    while changed and len(pending) > 1:
        changed = False
        joined: list[State] = []
        for st in pending:
            for k, other in enumerate(joined):
                m = _merge([other, st], candidates)
                if m is not None:
                    joined[k] = m
                    changed = True
                    break
            else:
                joined.append(st)
        pending = joined
    return pending


def _launch_places(st: State) -> tuple:
    """Where the path's launches are, with their number of words: what no merge changes, and two
    paths must share to merge (_launches_alike). The arms of a `case` that each launch are told
    apart by it at once, not by a comparison of every arm with every other."""
    return tuple((launch.file, launch.line, len(launch.words)) for launch in st.launched)


_MISSING = object()
NARROWED_DEPTH = 64
# The products a path's condition may be multiplied out to where it joins others (the product of
# the factors the joined paths do not share): a path over more stays apart. n checks that each read inputs
# of their own (`O1="${O1:-$D1}"; [[ -z $O1 ]] && exit`), taken by paths that joined again at each,
# grew one union of 3**n products; apart, each path keeps its n factors.
MERGED_CUBES = 16
# Explorations of a script at most: each one after the first starts again where one loaded a file
# that compares an input a path read before with other values (evaluate).
PASSES = 4


def _universe(st: State, name: str, candidates) -> tuple:
    """The values the path lets the input take: its domain, the one it decided, or any."""
    if name in st.domains:
        return st.domains[name]
    if name in st.inputs:
        v = st.inputs[name]
        return (None if v is None else v.text,)
    return tuple(candidates(name)) if candidates else (None,)


def _explicit(st: State, universe: dict, spread: Iterable[str], shared: frozenset) -> list[Cube]:
    """The path's condition but for the factors `shared` (every merged path has them), as cubes over
    the merged universe; `spread`: the inputs whose merged universe may be wider than the path's own
    (every other one the path lets take all of it)."""
    own = {n: frozenset(_universe(st, n, None)) for n in spread if n in st.domains or n in st.inputs}
    rest = (st.condition or frozenset()) - shared
    return [trimmed(frozenset({**own, **dict(cube)}.items()), universe) for cube in product_of(rest)]


def _alike(a: State, b: State) -> bool:
    """Whether two states differ at most in their variables' values and their inputs' values."""
    return not (a.code is not b.code or a.pc != b.pc or a.status != b.status or a.exit_code != b.exit_code
                or len(a.scopes) != len(b.scopes) or a.functions is not b.functions and a.functions != b.functions
                or settled_positional(a) != settled_positional(b) or a.iters != b.iters or a.stack != b.stack
                or a.options != b.options or a.errexit_ignored != b.errexit_ignored
                or a.handoffs is not b.handoffs and a.handoffs != b.handoffs
                or a.unfound != b.unfound or a.unbounded != b.unbounded or not _launches_alike(a.launched, b.launched)
                or a.files is not b.files and a.files != b.files
                or any(set(sa) != set(sb) for sa, sb in zip(a.scopes[1:], b.scopes[1:])))


def _launches_alike(a: tuple, b: tuple) -> bool:
    """Whether two paths' launches differ at most in their words' values: the same commands, each
    with as many words, split alike (a word bash splits on both or on neither), each one launch on
    both or the launches of a loop's summarised passes on both (machine: counted loops)."""
    return a == b or len(a) == len(b) and all(
        x == y or (x.file, x.line, x.env, x.files, x.assigned, len(x.words), x.summarised)
        == (y.file, y.line, y.env, y.files, y.assigned, len(y.words), y.summarised)
        and all((type(v) is Split) == (type(w) is Split) for v, w in zip(x.words, y.words))
        for x, y in zip(a, b))


def _merged_launch(launches: list[Launch], states: list[State], cubes: list, universe: dict) -> Launch:
    """One launch for the joined paths' launches of one command (_launches_alike): each word they
    disagree on guarded by their conditions, as a variable is, so the paths need not stay apart."""
    first = launches[0]
    if all(launch == first for launch in launches[1:]):
        return first
    words = []
    for index, word in enumerate(first.words):
        found = [launch.words[index] for launch in launches]
        if all(w == word for w in found[1:]):
            words.append(word)
        elif type(word) is Split:
            value = _choice([(st, c, w.value) for st, c, w in zip(states, cubes, found)], universe)
            words.append(Split(value if type(value) is Sym else Sym((value,))))
        else:
            words.append(_choice(list(zip(states, cubes, found)), universe))
    return dataclasses.replace(first, words=tuple(words))


def _merge(states: list[State], candidates) -> State | None:
    """One state for all of `states` (each variable they disagree on guarded by their conditions),
    or None where they differ in more than their variables and inputs, or no one rule says what
    bash does on all of them."""
    a, others = states[0], states[1:]
    if not all(_alike(a, b) for b in others):
        return None
    names = set().union(*(st.domains.keys() for st in states))
    every_input = set().union(*(st.inputs.keys() for st in states))
    read_once = {}
    inputs = [st.inputs for st in states]
    for n in _differing(inputs, every_input - names):
        found = [st.inputs.get(n, _MISSING) for st in states]
        present = [v for v in found if v is not _MISSING]
        if any(v != present[0] for v in present[1:]):
            return None  # read with different values
        if len(present) == len(found):
            continue
        if not _only_candidate(present[0], n, candidates):
            return None  # another path may yet read another value
        read_once[n] = present[0]
    for other in states:
        for n in names - other.domains.keys() - other.inputs.keys():
            if n not in other.exported and any(n in scope for scope in other.scopes[1:]):
                return None  # a local of the input's name: which one an export of it would be is not followed
    # The inputs whose values the paths do not share: most are shared, untouched since they forked.
    spread = {n for b in others for n, _ in a.domains.items() ^ b.domains.items()}
    spread.update(_differing(inputs, every_input & names))
    universes = {n: [_universe(st, n, candidates) for st in states] for n in spread}
    merged = {n: tuple(dict.fromkeys(itertools.chain.from_iterable(found))) for n, found in universes.items()}
    universe = dict(sorted(({k: v for st in states for k, v in st.domains.items()} | merged).items()))
    # The inputs the paths treat differently: their exports must agree but for these.
    differ = {n for n, found in universes.items()
              if any(set(values) != set(found[0]) for values in found[1:])
              or any(st.inputs.get(n, _MISSING) != a.inputs.get(n, _MISSING) for st in others)}
    # A variable exported on some paths that the others never touched is the environment's there,
    # which bash exports too: exported on the merged path, its value the input's where it is not set.
    exported = set().union(*(st.exported for st in states)) - differ
    if any(name not in st.exported and any(name in scope for scope in st.scopes) for name in exported for st in states):
        return None
    exports = {}
    for name in differ:
        exports[name] = _exported_on_all(states, name, universes[name])
        if exports[name] is None:
            return None
    # The factors of the condition every path has, over inputs whose values they share, stay as they
    # are: the union of the paths' conditions is their product with the union of the rest.
    shared = frozenset.intersection(*(st.condition or frozenset() for st in states))
    shared = frozenset(f for f in shared if spread.isdisjoint(factor_names(f)))
    if any(len(rest) > 1 and math.prod(map(len, rest)) > MERGED_CUBES for rest in ((st.condition or frozenset()) - shared for st in states)):
        return None
    cubes = [_explicit(st, universe, spread, shared) for st in states]
    m = a.copy()
    m.exported |= exported
    m.env_exported = frozenset().union(*(st.env_exported for st in states)) | {
        name for name in exported for st in states
        if name not in st.exported and name not in st.inputs and not any(name in scope for scope in st.scopes)}
    m.inputs.update(read_once)
    m.positional = settled_positional(a)
    for index, scope in enumerate(m.scopes):
        scopes = [st.scopes[index] for st in states]
        for var in _differing(scopes, set().union(*scopes)):
            values = [sc[var] if var in sc else FromInput(var) for sc in scopes]
            if any(v is not values[0] and v != values[0] for v in values[1:]):
                scope[var] = _choice(list(zip(states, cubes, values)), universe)
    if any(st.launched != a.launched for st in others):
        m.launched = tuple(_merged_launch([st.launched[k] for st in states], states, cubes, universe) for k in range(len(a.launched)))
    m.domains = universe
    for name in differ:
        if len(universe[name]) > 1:
            m.inputs.pop(name, None)
        elif name not in m.inputs:
            source = next((st for st in others if name in st.inputs), None)
            if source is not None:
                m.inputs[name] = source.inputs[name]
        if exports[name]:
            m.exported.add(name)  # exported on every path (`export IN1` before the fork, or set on each)
        else:
            m.exported.discard(name)  # an input whose values stay grouped is exported when set (machine.py)
    settle(m, [cube for found in cubes for cube in found], shared)
    notes = a.notes
    for other in others:
        notes = notes + tuple(n for n in other.notes if n not in notes)
    m.notes = notes
    m.branches = _merged_branches([st.branches for st in states], cubes)
    m.steps = max(st.steps for st in states)
    return m


def _merged_branches(branches: list[tuple], cubes: list[list[Cube]]) -> tuple:
    """The arms the merged paths took: those they share, then each one's own beside its condition."""
    first = branches[0]
    shared = min(len(b) for b in branches)
    for other in branches[1:]:
        shared = next((i for i in range(shared) if other[i] is not first[i] and other[i] != first[i]), shared)
    return first[:shared] + (ArmsByCondition(tuple((c, b[shared:]) for c, b in zip(cubes, branches))),)


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


def _exported_on_all(states: Sequence[State], name: str, universes: Sequence[tuple]) -> bool | None:
    """How the merged path exports the input (`universes`: the values each path lets it take):
    True, on every value; False, where the environment sets it (the rule for an input whose values
    stay grouped: machine.Interp.rendering, assign); None when no one rule says what bash does on
    every path."""
    if is_file_test(name):
        return False  # whether a path exists where the script runs: no variable, never exported (Interp.decide)

    def status(st: State) -> bool | None:  # None: where the environment sets it
        if name in st.exported:
            return True
        if any(name in scope for scope in st.scopes):
            # assigned where its values stay grouped, or before the path read it (an options loop's
            # `--dry-run) DRY_RUN=true`; an unset before decides it, Interp.i_unset): bash exports
            # it exactly where the environment set it
            return None if name not in st.inputs and len(st.domains.get(name, (None, None))) > 1 else False
        if name not in st.inputs:
            return None
        # decided and not exported: unset, or set and then `export -n` (an argument: never exported)
        return is_argument(name) and st.inputs[name] is not None

    found = [(status(st), values) for st, values in zip(states, universes)]
    if all(s is True or s is None and None not in values for s, values in found):
        return True
    # An assigned input, exported exactly where the environment set it: a child process gets it
    # there (machine.Interp.child_env decides it), as the witness says (machine.Interp.rendering).
    if all(s is None or s is True and None not in values or s is False and set(values) == {None} for s, values in found):
        return False
    return None


def _choice(sides: list[tuple[State, list[Cube], object]], universe: dict):
    """Each side's value where one of its cubes holds; the prefix and the suffix all the strings
    share stay outside the guarded value, cut where a token begins or ends, so each Choice holds the
    tokens that differ (`X="${X} k=v"` and `X="k=v ${X}"` after n joins are n Choices side by
    side, not n nested). What differs is narrowed to each side's path (_narrowed); what they share
    is kept as it is, shared."""
    pieces = [_pieces(value) for _, _, value in sides]
    if any(p is None for p in pieces):
        return guarded([(cubes, _narrowed(value, st)) for st, cubes, value in sides], universe)
    first, shortest = pieces[0], min(map(len, pieces))
    common = min(_shared_prefix(first, p) for p in pieces[1:])
    while common < shortest and all(p[common] == first[common] for p in pieces[1:]):
        common += 1
    head = list(first[:common])
    rests = [list(p[common:]) for p in pieces]
    if all(rest and type(rest[0]) is Value for rest in rests):
        cut = min(_token_cut(rests[0][0].text, rest[0].text) for rest in rests[1:])
        if cut:
            head.append(_slice(rests[0][0], 0, cut))
            for rest in rests:
                rest[0] = _slice(rest[0], cut, None)
    shared = min(_shared_prefix(rests[0][::-1], rest[::-1]) for rest in rests[1:])
    tail = rests[0][len(rests[0]) - shared:]
    rests = [rest[:len(rest) - shared] for rest in rests]
    if all(rest and type(rest[-1]) is Value for rest in rests):
        kept = _token_tail([rest[-1] for rest in rests])
        if kept:
            tail.insert(0, _slice(rests[0][-1], len(rests[0][-1].text) - kept, None))
            for rest in rests:
                rest[-1] = _slice(rest[-1], 0, len(rest[-1].text) - kept)
    if not head and not tail:  # still a string: an assignment to it need not decide which one (machine.Interp.assign)
        return Sym((guarded([(cubes, _narrowed(value, st)) for st, cubes, value in sides], universe),))
    differing = guarded([(cubes, _narrowed(_rejoined(rest), st)) for (st, cubes, _), rest in zip(sides, rests)], universe)
    return Sym((*head, differing, *tail))


def _token_tail(values: list[Value]) -> int:
    """The length of the suffix the values share, written in the same place, that begins a token in
    each (after a blank, or at the start)."""
    first = values[0]
    shared = min(len(v.text) for v in values)
    for other in values[1:]:
        same = 0
        while same < shared and first.text[-1 - same] == other.text[-1 - same]:
            same += 1
        shared = same
    for kept in range(shared, 0, -1):
        if all(len(v.text) == kept or v.text[-1 - kept].isspace() for v in values) \
                and all(v.origins[len(v.text) - kept:] == first.origins[len(first.text) - kept:] for v in values[1:]):
            return kept
    return 0


def _shared_prefix(a: tuple, b: tuple) -> int:
    """How many pieces the two start with, the same objects."""
    return next(itertools.compress(itertools.count(), map(operator.is_not, a, b)), min(len(a), len(b)))


def _differing(mappings: Sequence[Mapping], names: Iterable[str]) -> list[str]:
    """The names whose values in the mappings are not all the same object (missing in one:
    differing), each mapping read at C speed: k joined paths' variables cost k dict reads each."""
    names = list(names)
    missing = itertools.repeat(_MISSING)
    first = list(map(mappings[0].get, names, missing))
    found: set[str] = set()
    for other in mappings[1:]:
        found.update(itertools.compress(names, map(operator.is_not, first, map(other.get, names, missing))))
    return [n for n in names if n in found]


def _pieces(value) -> tuple | None:
    """The string's pieces, less empty ones (a quote's end leaves one)."""
    if type(value) is Sym:
        return tuple(itertools.filterfalse(_empty, value.pieces))
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

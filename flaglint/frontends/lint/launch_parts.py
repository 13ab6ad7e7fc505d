"""A launch whose values are symbolic (render/bash/symbolic), checked as a few concrete launches.

The flag string of a merged outcome is pieces, some of them Choices on inputs; the Tunix variables
may be Choices too. Each Choice is a *part*. Two parts belong together when they write into one
flag token, set the same key or variable, or when one rule reads a name of each: no finding of one
group's names reads another's. Parts that share nothing but an input are apart: a launch of one
is a launch (the other takes its value there), whose findings of the other's names are not its
own. A group of parts is checked on every combination of its inputs' values, or, where those are
more than the cap, on each text its values take together (distinct_texts: a guard over many
inputs that gives one string wherever it holds is two texts), every other input at the path's own
value (its base), so the checks grow with the sum over groups, not with the product. Only the
combinations the path's condition allows are checked: where a guard over several inputs merged paths, or refused some of
their combinations with a non-zero exit, the others launch nothing. A finding of a group's check
whose keys are that group's belongs to the inputs' values of that check; a finding of the base
check that touches no part belongs to the whole outcome. A launch resolves again only the pieces
its inputs change (_Renderer), and a part's tokens are read in its neighbourhood (PieceTokens).

A group with more combinations than the cap is not enumerated. What the same parts alone decide
(a token MaxText refuses, a value of the wrong type, a key two parts set) is checked on those
parts' combinations where they are few (ENUMERATED); a key many parts write is checked token by
token (KeyTokens): where each token is written, where another follows it, where it is the last
written, and where none is, as many launches as tokens. The solver is asked which rules some
allowed combination of them all breaks (launch_query), a key many parts write being there the
value of its token written last; each answer is one launch checked like any other.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from flaglint.core.findings import InputError
from flaglint.frontends.lint.unverified import Unverified
from flaglint.maxtext.pyconfig import INFERRED_WHEN_EMPTY, RAW_EXCLUSIVE
from flaglint.maxtext.values import ValueError_, parse_cli_value, type_value
from flaglint.read.argv import shell_words
from flaglint.render.bash.expansion import input_value
from flaglint.render.bash.explorer import ExploredPath
from flaglint.render.bash.types import (
    OTHER,
    Choice,
    FromInput,
    Rendering,
    Spans,
    Split,
    Sym,
    Value,
    choice_names,
    ifs_fields,
    joined_origins,
    parts_of,
    read_names,
    resolve,
)
from flaglint.resolve.topology import DEVICE_NAMES, device_keys

# A group with more combinations than this is checked by the solver instead of on each of them
# (`--path-cap`): enumerating costs a launch each, so only where they are few.
COMBINATION_CAP = 64
# The most combinations of a part's own inputs, or of the inputs that decide one name, read one by
# one (a part reads an input or two: past this, FL011 says so).
PART_COMBINATIONS = 4096
# The names the same parts of a group over the cap decide are checked on every combination of
# their inputs up to this many; beyond, on the launches that show each token of theirs (KeyTokens).
ENUMERATED = 64
# What MaxText decides of a flag token alone, whatever the others (resolve/resolver.py): no '=',
# an empty key, a key the pin does not define, a dpo key.
TOKEN_RULES = frozenset({"FL001", "FL002", "FL004", "FL013"})
# What MaxText decides of a token another of its key follows: set again (FL003), and its value read
# as YAML only (FL005).
REPEATED_RULES = frozenset({"FL003", "FL005"})


@dataclass(kw_only=True)
class Owned:
    """Which findings of a concrete launch are its own: those that read one of `names` (None: any)
    and none of `excluded`, and are of `rule` where the launch was checked for that rule alone
    (the solver's answer)."""

    names: frozenset | None = None
    excluded: frozenset = frozenset()
    rule: str | None = None
    only: frozenset | None = None  # the rules it owns (None: any)
    at: object = None  # of a launch that shows one token or one place of a rule (the solver's answer), the place the findings it owns are at (None: any)

    def owns(self, read: set, rule: str) -> bool:
        return ((self.names is None or not self.names.isdisjoint(read)) and self.excluded.isdisjoint(read)
                and self.rule in (None, rule) and (self.only is None or rule in self.only))

    def owns_at(self, location) -> bool:
        """Whether a finding at `location` (a place in a script) is its own."""
        return self.at is None or location is not None and (location.file, location.line, location.column) == (
            self.at.file, self.at.line, self.at.column)


@dataclass
class Concrete(Owned):
    """One concrete launch: its rendering and the path condition it stands for."""

    rendering: Rendering
    path: ExploredPath


@dataclass
class ConcreteArgv(Owned):
    """One concrete command line of a launch whose words are symbolic."""

    words: tuple  # tuple[Value, ...]
    path: ExploredPath


@dataclass
class _Part:
    inputs: set
    names: set
    members: list = field(default_factory=list)  # a group's parts
    origin: object = None  # Origin | None: where the script writes the part (a group: its first part)
    pieces: list = field(default_factory=list)  # of a part of the flag string: the indices of its pieces
    values: list = field(default_factory=list)  # the symbolic values it is written by (a group: its parts')


@dataclass
class _FlagPieces:
    """The flag string's pieces, and their tokens at the path's values (PieceTokens)."""

    pieces: tuple
    tokens: PieceTokens


@dataclass
class KeyTokens:
    """The tokens of one key that several parts of a group write, in the order of the flag string.
    `present[i]`: where token i is written, as combinations of classes of its part's inputs (each
    input's values, in the classes that part alone tells apart: a part that reads one option of a
    loop over many tells that option from the rest, not each from each); `last[i]`: the values of the inputs to fix for a launch where token i is the last one
    written (None: it never is); `none`: the same where none is written."""

    present: list
    last: list
    none: dict | None


class SharedParts:
    """What the checks of one script's launches find alike: the trainer reads the flag string that
    a MaxText command line of the script also splits (`… base.yml $MAXTEXT_EXTRA_FLAGS`), so on
    each path its parts, the tokens of a key many of them write (KeyTokens) and the paths that show
    those are found once for both. Everything here is read only by its users."""

    def __init__(self):
        self._parts: dict[tuple, tuple] = {}
        self._tokens: dict[tuple, tuple] = {}
        self._writes: dict[tuple, tuple] = {}  # (a path, a piece of a flag string, its inputs, cap) -> (what the key is kept by, _piece_writes of them)
        self._narrowed: dict[tuple, tuple] = {}
        self.splits: dict[tuple, tuple] = {}  # (a path, classes of inputs' values) -> (the path, it narrowed to each combination)
        self.distinct_paths: dict[tuple, tuple] = {}  # (a path, values, cap) -> (the path, the values, _distinct_paths of them)
        self.texts: dict[tuple, tuple] = {}  # (values, their inputs' values) -> (the values, distinct_texts of them)
        self.argv_words: dict[tuple, tuple] = {}  # (a launch's words, their inputs' values) -> (the words, them concrete there)
        self.sites: dict[int, _Site] = {}  # a launch's words -> what they give whatever path reaches them
        self.made = _Made()  # the words' pieces, words and fields made concrete, one object each
        self.own: dict[tuple, tuple] = {}  # (a piece of a flag string, its inputs' values, cap) -> (the piece, _own_texts of it)
        self.origins: dict[int, tuple] = {}  # a piece of a flag string -> (the piece, _first_origin of it)
        self.classes: dict[tuple, tuple] = {}  # (a path, value sets, inputs) -> (the path, the splits, _input_classes of them)

    def flag_parts(self, flags, path: ExploredPath, cap: int, values: _Values) -> tuple[list[_Part], _FlagPieces]:
        """_flag_parts of the flags at the path's values, each caller given parts of its own: they
        are grouped and emptied. Found once for a string of the same pieces at the same values of
        the inputs it reads, whatever path reaches it (a launch's words are one string a call)."""
        pieces = flags.pieces if type(flags) is Sym else (flags,)
        key = (tuple(map(id, pieces)), tuple([path.env.get(name) for name in sorted(_inputs(flags))]), cap)
        if key not in self._parts:  # the pieces kept: their ids stay their own
            self._parts[key] = (pieces, _flag_parts(flags, dict(path.env), cap, values, self.own, self.origins))
        parts, flag_pieces = self._parts[key][1]
        return [_Part(set(p.inputs), set(p.names), origin=p.origin, pieces=list(p.pieces), values=p.values) for p in parts], flag_pieces

    def key_tokens(self, path: ExploredPath, members: list[_Part], key: str, flag_pieces: _FlagPieces | None,
                   explored: Mapping[str, Sequence], cap: int, fixes: list[tuple[dict, dict]], pin) -> KeyTokens | None:
        """_key_tokens, with the refusals of `pin` (a part is known by its piece of `flag_pieces`)."""
        if flag_pieces is None or any(len(p.pieces) != 1 for p in members):
            return None
        memo = (id(path), id(flag_pieces), tuple(sorted(p.pieces[0] for p in members)), key, id(explored), cap, id(pin))
        if memo not in self._tokens:
            found: list[tuple[dict, dict]] = []
            self._tokens[memo] = (path, flag_pieces, explored, pin, found,
                                  _key_tokens(path, members, key, flag_pieces, self._piece_writes(path, flag_pieces, explored, cap),
                                              fixes=found, refused=_refusal(pin)))
        *_, found, tokens = self._tokens[memo]
        fixes.extend(found)
        return tokens

    def _piece_writes(self, path: ExploredPath, flag_pieces: _FlagPieces, explored: Mapping[str, Sequence],
                      cap: int) -> Callable[[int, set], tuple | None]:
        """_piece_writes of a piece of the flag string on the path, once whatever key is asked of it."""
        def writes(index: int, inputs: set) -> tuple | None:
            memo = (id(path), id(flag_pieces), index, tuple(sorted(inputs)), id(explored), cap)
            if memo not in self._writes:  # the path, the pieces and the inputs' values kept: their ids stay their own
                self._writes[memo] = (path, flag_pieces, explored, _piece_writes(path, flag_pieces, index, inputs, explored, cap))
            return self._writes[memo][3]

        return writes

    def narrowed(self, path: ExploredPath, fixed: Mapping[str, list]) -> ExploredPath | None:
        """_narrowed, once for each of the values to fix that key_tokens gives (and any other)."""
        key = (id(path), id(fixed))
        if key not in self._narrowed:
            self._narrowed[key] = (path, fixed, _narrowed(path, fixed))
        return self._narrowed[key][2]


def concrete_launches(rendering: Rendering, path: ExploredPath, explored: Mapping[str, Sequence],
                      flags_variable: str, variables: Mapping, rule_names: Iterable[frozenset],
                      bound: Mapping[str, set], selectors: Iterable[str] = (),
                      cap: int = COMBINATION_CAP, judge=None, shared: SharedParts | None = None) -> list[Concrete]:
    """The launches to check for one outcome. `variables`: the Tunix variables; `bound`: the
    MaxText keys each one binds; `rule_names`: the names each rule reads; `selectors`: variables
    that decide whether the flags reach MaxText at all (TRAINER_BACKEND); `judge`: how the solver's
    answers for a group over `cap` are judged (launch_query.Judge on a Rendering); `shared`: what
    the script's command lines find alike (SharedParts)."""
    shared = shared if shared is not None else SharedParts()
    base = dict(path.env)
    symbolic = {name: v for name, v in rendering.variables.items()
                if (name == flags_variable or name in variables) and _is_symbolic(v)}
    values = _Values()
    renderer = _Renderer(rendering, base, values)
    if not symbolic:
        return [Concrete(renderer.base, path)]
    splits = _Splits(symbolic.values())
    deciding = [name for name in selectors if name in symbolic]
    if deciding:  # split the path on the selectors' inputs first: each part then has one selector value
        launches = []
        for sub in _split(path, set().union(*(_inputs(symbolic[n]) for n in deciding)), splits, explored, cap, "the trainer backend"):
            pick, read_input = _picker(sub.env, {})
            fixed = {n: resolve(symbolic[n], pick, read_input) for n in deciding}
            narrowed = Rendering(rendering.exported, {**rendering.variables, **fixed}, rendering.notes, rendering.script,
                                 rendering.handoffs, rendering.status, rendering.branches)
            launches.extend(concrete_launches(narrowed, sub, explored, flags_variable, variables, rule_names, bound, (), cap, judge, shared))
        return launches
    parts: list[_Part] = []
    flags = symbolic.get(flags_variable)
    flag_pieces = None
    if flags is not None:
        found, flag_pieces = shared.flag_parts(flags, path, max(cap, PART_COMBINATIONS), values)
        parts.extend(found)
    for name, value in symbolic.items():
        if name != flags_variable:
            parts.append(_Part(_inputs(value), {name, *bound.get(name, ())}, origin=_first_origin(value), values=[value]))
    groups = _groups(parts, rule_names)
    launches = [Concrete(renderer.base, path, excluded=frozenset().union(*(g.names for g in groups)))]
    for group in groups:
        launch_at = _GroupLaunches(renderer, group, base)
        for sub, owned in _group_paths(path, group, splits, explored, cap, judge, launch_at, shared, flag_pieces):
            launches.append(Concrete(launch_at(sub.env), sub, **owned))
    return launches


class _Renderer:
    """The rendering made concrete at the path's own values (`base`), and at other values of a
    few inputs: only the values (and, of a string joined from pieces, only the pieces: _Joined)
    that read one of those inputs are resolved again, so a launch costs what its inputs change;
    each value once for the values of the inputs it reads, and each launch once (a group's solver
    query reads a launch from the tables of several names)."""

    def __init__(self, rendering: Rendering, base: Mapping, values: _Values):
        self.rendering, self.values = rendering, values
        pick, read_input = _picker(base, {})
        self._at_base: dict[int, object] = {}
        self._joined: dict[int, _Joined] = {}
        self._reads: dict[int, tuple[frozenset, tuple]] = {}  # the inputs each symbolic value reads, as a set and in order
        for value in (*rendering.exported.values(), *rendering.variables.values()):
            if id(value) not in self._at_base:
                if type(value) is Sym:
                    joined = self._joined[id(value)] = _Joined(value, pick, read_input)
                    self._at_base[id(value)] = joined.base
                else:
                    self._at_base[id(value)] = _concrete(value, pick, read_input)
                if _is_symbolic(value) or type(value) is FromInput:
                    reads = choice_names(value) | read_names(value)
                    self._reads[id(value)] = (reads, tuple(sorted(reads)))
        self.base = self._rendering(lambda value: self._at_base[id(value)])
        # of the rendering's exported variables and its variables, those whose value reads an input
        self._symbolic = [[(name, value) for name, value in found.items() if id(value) in self._reads]
                          for found in (rendering.exported, rendering.variables)]
        self._distinct = list({id(value): value for found in self._symbolic for _, value in found}.values())
        self._plans: dict[frozenset, tuple[list, list]] = {}
        self._made: dict[tuple, Rendering] = {}
        self._values: dict[tuple, object] = {}  # (value, its inputs' values, those of them changed) -> the value there

    def at(self, env: Mapping, changed: frozenset) -> Rendering:
        """The rendering where the inputs `changed` take their values in `env` (the others, the path's)."""
        key = (tuple(sorted(env.items())), changed)  # names sort alone: each is once in env
        if key not in self._made:
            self._made[key] = self._at(env, changed)
        return self._made[key]

    def _at(self, env: Mapping, changed: frozenset) -> Rendering:
        pick, read_input = _picker(env, {})
        values, names = self._plan(changed)
        done: dict[int, object] = {}  # the values that read a changed input, there
        for value, order, changed_here in values:
            key = (id(value), tuple([env.get(name) for name in order]), changed_here)
            if key not in self._values:
                self._values[key] = (self._joined[id(value)].at(changed, lambda piece: self.values.at(piece, env, pick, read_input))
                                     if type(value) is Sym else self.values.at(value, env, pick, read_input))
            done[id(value)] = self._values[key]
        # the path's own rendering with those values in place: a variable they unset goes, one
        # they set that the path leaves unset is made in the order of the whole rendering
        made = []
        for found, named in zip((self.base.exported, self.base.variables), names):
            out = dict(found)
            for name, value_id in named:
                v = _present(done[value_id])
                if v is None:
                    out.pop(name, None)
                elif name in out:
                    out[name] = v
                else:
                    return self._rendering(lambda value: done.get(id(value), self._at_base[id(value)]))
            made.append(out)
        r = self.rendering
        return Rendering(*made, r.notes, r.script, r.handoffs, r.status, r.branches)

    def _plan(self, changed: frozenset) -> tuple[list, list]:
        """The values that read one of the inputs `changed` (each with the inputs it reads in order,
        and those of them changed), and of the exported variables and the variables, the names
        that hold one (each with the value's id); found once for each set of inputs."""
        if changed not in self._plans:
            values = [(value, order, reads & changed) for value in self._distinct
                      for reads, order in [self._reads[id(value)]] if not reads.isdisjoint(changed)]
            read = {id(value) for value, _, _ in values}
            self._plans[changed] = (values, [[(name, id(value)) for name, value in found if id(value) in read] for found in self._symbolic])
        return self._plans[changed]

    def _rendering(self, concrete) -> Rendering:
        def values(found: dict) -> dict:
            out = {}
            for name, value in found.items():
                v = _present(concrete(value))
                if v is not None:
                    out[name] = v
            return out

        r = self.rendering
        return Rendering(values(r.exported), values(r.variables), r.notes, r.script, r.handoffs, r.status, r.branches)


class _GroupLaunches:
    """A group's launches (launch_query.Launches): the rendering where the group's inputs take
    their values in `env` (the others, the path's), and what of it writes some names: the values
    of the group's parts that write them, there, each told by its content (WrittenWays)."""

    def __init__(self, renderer: _Renderer, group: _Part, base: Mapping):
        self.renderer, self.group, self.base = renderer, group, base
        self.inputs = frozenset(group.inputs)
        self.ways = WrittenWays(base, renderer.values)
        self._writing: dict[frozenset, Callable[[Mapping[str, Sequence]], list]] = {}

    def __call__(self, env: Mapping) -> Rendering:
        return self.renderer.at(env, frozenset(_changed(env, self.base) & self.inputs))

    def writing(self, names: Iterable[str]) -> Callable[[Mapping[str, Sequence]], list]:
        names = set(names)
        writers = frozenset(i for i, part in enumerate(self.group.members) if not part.names.isdisjoint(names))
        if writers not in self._writing:
            written = [value for i in sorted(writers) for value in self.group.members[i].values]

            def ways(inputs: Mapping[str, Sequence]) -> list:
                columns = [self.ways.column(value, inputs) for value in written]
                if len(columns) == 1:
                    return columns[0]
                return list(zip(*columns)) if columns else [()] * _count(inputs)

            self._writing[writers] = ways
        return self._writing[writers]


class WrittenWays:
    """Symbolic values numbered by their content (text, opacity and origins) on each combination
    of some inputs' values (the others at `base`): a value is resolved once for each combination
    of the inputs it reads, and less where a Choice picks it (each alternative on the inputs it
    reads) or a string joins it (where its pieces' numbers are new). `values`: the concrete values
    found so far (_Values), shared with the launches made of the same values."""

    def __init__(self, base: Mapping, values: _Values | None = None):
        self.base, self.values = base, values if values is not None else _Values()
        self._numbers_of: dict[tuple, int] = {}  # each content, numbered
        # (a value, the values of the inputs it reads, or of a string the numbers of its pieces) -> the number of its content
        self._numbered: dict[tuple, int] = {}
        self._split: dict[tuple, list[int]] = {}  # _numbers', by the value and the inputs' values (the caller keeps the values)
        self._columns: dict[tuple, list[int]] = {}  # column's, by the value and the inputs' values

    def column(self, value, inputs: Mapping[str, Sequence]) -> list[int]:
        """The number of the value's content on each combination of the inputs' values (in
        itertools.product order; the others at base): the same number where the content is."""
        key = (id(value), tuple((name, tuple(found)) for name, found in inputs.items()))
        if key not in self._columns:
            reads = sorted(_inputs(value))
            own = [list(inputs[name]) if name in inputs else [self.base.get(name)] for name in reads]
            numbers = self._numbers(value, reads, own, 0)
            self._columns[key] = _spread(list(inputs), [len(found) for found in inputs.values()], reads, [len(found) for found in own], numbers)
        return self._columns[key]

    def _numbers(self, value, reads: list[str], own: list[list], depth: int) -> list[int]:
        """The number of the value's content on each combination of `own` (the values of the inputs
        `reads`, in product order; the others at base). Where a Choice picks the value, each
        alternative is read on the inputs it reads, once; a string, where the numbers of its pieces
        are new; another value, on each combination."""
        key = (id(value), tuple(reads), tuple(map(tuple, own)))
        found = self._split.get(key)
        if found is not None:
            return found
        sizes = [len(values) for values in own]
        if type(value) is Choice and depth < _SPLIT_DEPTH:
            at = reads.index(value.name)
            alone = [1 if i == at else size for i, size in enumerate(sizes)]
            spreads = []  # on each value of the Choice's input, the alternative's numbers
            for taken in own[at]:
                alternative = _alternative(value, taken)
                names = sorted(_inputs(alternative) & set(reads))
                fixed = [[taken] if name == value.name else own[reads.index(name)] for name in names]
                spreads.append(_spread(reads, alone, names, [len(v) for v in fixed], self._numbers(alternative, names, fixed, depth + 1)))
            stride = _product(sizes[at + 1:])
            numbers = []
            for start in range(0, _product(sizes[:at]) * stride, stride):
                for spread in spreads:
                    numbers.extend(spread[start:start + stride])
        elif type(value) is Sym and depth < _SPLIT_DEPTH:
            # a string is read where the numbers of its pieces that read inputs are new
            columns = []
            for piece in value.pieces:
                names = sorted(_inputs(piece))
                if names:
                    fixed = [own[reads.index(name)] for name in names]
                    columns.append(_spread(reads, sizes, names, [len(v) for v in fixed], self._numbers(piece, names, fixed, depth + 1)))
            numbers = [self._number(value, reads, values, (id(value), pieces))
                       for values, pieces in zip(itertools.product(*own), zip(*columns) if columns else [()] * _product(sizes))]
        else:
            numbers = [self._number(value, reads, values, (id(value), values)) for values in itertools.product(*own)]
        self._split[key] = numbers
        return numbers

    def _number(self, value, reads: list[str], values: tuple, key: tuple) -> int:
        """The number of the value's content where the inputs `reads` take `values`, found once for `key`."""
        number = self._numbered.get(key)
        if number is None:
            env = {**self.base, **dict(zip(reads, values))}
            concrete = _present(self.values.at(value, env, *_picker(env, {})))
            content = None if concrete is None else (
                concrete.text, concrete.opaque, concrete.origins if type(concrete.origins) is Spans else tuple(concrete.origins))
            number = self._numbered[key] = self._numbers_of.setdefault(content, len(self._numbers_of))
        return number


# The Choices and strings a value's numbers are split at, one inside another (WrittenWays): below,
# the value is read on each combination of the inputs.
_SPLIT_DEPTH = 64


def _product(sizes: Iterable[int]) -> int:
    count = 1
    for size in sizes:
        count *= size
    return count


def _spread(names: list[str], sizes: list[int], reads: list[str], read_sizes: list[int], numbers: list) -> list:
    """`numbers`, given on each combination of the inputs `reads` (of `read_sizes` values; in the
    order of `names`, and those not among them of one value), on each combination of the inputs
    `names` (of `sizes` values), in product order: built from the last input, a run of the numbers
    for each of one it reads, the runs so far repeated for one it does not."""
    among = set(names)
    reads, read_sizes = [name for name in reads if name in among], [size for name, size in zip(reads, read_sizes) if name in among]
    runs = [[number] for number in numbers]
    last = len(reads) - 1
    for name, size in zip(reversed(names), reversed(sizes)):
        if last >= 0 and reads[last] == name:
            width = read_sizes[last]
            runs = [list(itertools.chain.from_iterable(runs[start:start + width])) for start in range(0, len(runs), width)]
            last -= 1
        else:
            runs = [run * size for run in runs]
    return runs[0]


def _present(value):
    """A concrete value as a rendering holds it (an array: its first element; None: unset)."""
    if isinstance(value, list):
        return value[0] if value and value[0] is not None else None
    return value


class _Joined:
    """A string joined from pieces, concrete at the path's own values (`base`) and at other values
    of a few inputs, where only the pieces that read one of them are resolved again."""

    def __init__(self, value: Sym, pick, read_input):
        self.value = value
        self.pieces = [_concrete(piece, pick, read_input) for piece in value.pieces]
        self.readers: dict[str, list[int]] = {}
        for index, piece in enumerate(value.pieces):
            for name in _inputs(piece):
                self.readers.setdefault(name, []).append(index)
        self.base = _joined([p for p in self.pieces if p is not None])
        self._reading: dict[frozenset, set[int]] = {}  # the pieces that read one of some inputs

    def at(self, changed: frozenset, concrete: Callable) -> Value:
        """The string where the inputs `changed` take other values: `concrete(piece)`, a piece there."""
        if changed not in self._reading:
            self._reading[changed] = {i for name in changed for i in self.readers.get(name, ())}
        pieces = list(self.pieces)
        for index in self._reading[changed]:
            pieces[index] = concrete(self.value.pieces[index])
        return _joined([p for p in pieces if p is not None])


class _Words:
    """A launch's words made concrete at the path's own values (`base`) and at others: a word bash
    splits (Split) into its fields; its pieces, and those of a word joined from pieces (an XPK
    --command string), resolved again only where they read a changed input. Each is the one
    object `made` (SharedParts.made) holds for it there, so the paths that give a launch site the
    same words give it the same tuple."""

    def __init__(self, words: Sequence, base: Mapping, made: _Made):
        self.words, self.base, self.made = words, base, made
        pick, read_input = _picker(base, {})
        self._pieces: dict[int, tuple[tuple, list]] = {}  # of each joined word: its pieces, and them at base
        self._readers: dict[int, dict[str, list[int]]] = {}  # of each joined word: the pieces that read each input
        self._known = {index: made.first(w) for index, w in enumerate(words) if not (_is_symbolic(w) or type(w) is Split)}
        for index, w in enumerate(words):
            if type(w) is Split or type(w) is Sym:
                value = w.value if type(w) is Split else w
                pieces = value.pieces if type(value) is Sym else (value,)
                self._pieces[index] = (pieces, [made.piece(piece, base, pick, read_input) for piece in pieces])
                readers = self._readers[index] = {}
                for at, piece in enumerate(pieces):
                    for name in _inputs(piece):
                        readers.setdefault(name, []).append(at)

    def at(self, env: Mapping) -> tuple:
        changed = _changed(env, self.base)
        pick, read_input = _picker(env, {})
        made = self.made
        resolved: list = []
        for index, w in enumerate(self.words):
            if index in self._pieces:
                pieces, concrete = self._pieces[index]
                readers = self._readers[index]
                reading = {at for name in changed for at in readers.get(name, ())}
                if reading:
                    concrete = list(concrete)
                    for at in reading:
                        concrete[at] = made.piece(pieces[at], env, pick, read_input)
                joined = made.joined(concrete)
                if type(w) is Split:
                    resolved.extend(made.fields(joined))
                else:
                    resolved.append(joined)
            elif _is_symbolic(w):
                resolved.append(made.word(w, env, pick, read_input))
            else:
                resolved.append(self._known[index])
        return made.words(resolved)


class _Made:
    """Concrete pieces, words and fields of launches, each one object for its content's making: a
    piece (or word) at the same values of the inputs it reads, and the first of the same content
    (text, opacity and origins) whatever the values (a guard's other inputs leave it as it is), a
    word joined from the same pieces, the fields of the same word, a tuple of the same words.
    Everything made is kept (ids stay theirs)."""

    def __init__(self):
        self._reads: dict[int, tuple] = {}  # a symbolic value -> (it, the inputs it reads, in order)
        self._contents: dict[tuple, Value] = {}  # the first value made of each content
        self._pieces: dict[tuple, tuple] = {}
        self._joined: dict[tuple, tuple] = {}
        self._fields: dict[int, tuple] = {}
        self._words: dict[tuple, tuple] = {}

    def _key(self, value, env: Mapping) -> tuple:
        reads = self._reads.get(id(value))
        if reads is None:
            reads = self._reads[id(value)] = (value, tuple(sorted(_inputs(value))))
        return id(value), tuple([env.get(name) for name in reads[1]])

    def piece(self, piece, env: Mapping, pick, read_input):
        """A piece of a word where the inputs take their values in `env` (`pick`, `read_input`: _picker's of it)."""
        key = self._key(piece, env)
        if key not in self._pieces:
            self._pieces[key] = (piece, self.first(resolve(piece, pick, read_input)))
        return self._pieces[key][1]

    def first(self, value):
        """The first value made of the content of `value` (a Value; anything else is itself)."""
        if type(value) is not Value:
            return value
        content = (value.text, value.opaque, joined_origins([value.origins]))  # origins as spans, however kept
        return self._contents.setdefault(content, value)

    def word(self, word, env: Mapping, pick, read_input) -> Value:
        """A symbolic word there (an empty one where it is unset)."""
        key = ("word", *self._key(word, env))
        if key not in self._pieces:
            found = resolve(word, pick, read_input)
            self._pieces[key] = (word, self.first(found if found is not None else Value("", [])))
        return self._pieces[key][1]

    def joined(self, pieces: list) -> Value:
        written = [p for p in pieces if p is not None and (p.text or p.opaque)]  # an empty piece adds nothing
        key = tuple(map(id, written))
        if key not in self._joined:
            self._joined[key] = (written, written[0] if len(written) == 1 else _joined(written))  # one piece: that piece
        return self._joined[key][1]

    def fields(self, value: Value) -> list[Value]:
        if id(value) not in self._fields:
            self._fields[id(value)] = (value, ifs_fields(value))
        return self._fields[id(value)][1]

    def words(self, words: list) -> tuple:
        key = tuple(map(id, words))
        if key not in self._words:
            self._words[key] = tuple(words)
        return self._words[key]


def _changed(env: Mapping, base: Mapping) -> set:
    """The inputs whose values differ (one missing is unset, None): the items of both compared as
    sets, as a launch's inputs are hundreds and it changes a few."""
    return {n for n, _ in env.items() ^ base.items() if env.get(n) != base.get(n)}


def _concrete(value, pick, read_input):
    return resolve(value, pick, read_input) if _is_symbolic(value) or type(value) is FromInput else value


class _Values:
    """Values made concrete at the inputs' values: each one below the Choices that pick it resolved
    once for the values of the inputs it reads (of a launch's flag string, the branch a guard picks
    reads fewer inputs than the launch: its value is read again for every value of the others)."""

    def __init__(self):
        self._reads: dict[int, tuple] = {}  # the inputs each value reads, in order
        self._found: dict[tuple, tuple] = {}  # (value, its inputs' values) -> (the value, it there): kept, its id stays its own

    def at(self, value, env: Mapping, pick, read_input):
        """The value where the inputs take their values in `env` (`pick`, `read_input`: _picker's of it)."""
        while type(value) is Choice or type(value) is FromInput:
            value = pick(value) if type(value) is Choice else read_input(value.name)
        if type(value) is not Sym:
            return value
        order = self._reads.get(id(value))
        if order is None:
            order = self._reads[id(value)] = tuple(sorted(_inputs(value)))
        key = (id(value), tuple([env.get(name) for name in order]))
        if key not in self._found:
            self._found[key] = (value, resolve(value, pick, read_input))
        return self._found[key][1]


def _joined(values: list) -> Value:
    """Concrete values joined, as resolve() joins a string's pieces (a Sym piece is a Value here);
    their origins are joined when read (a launch's are read only where it has a finding)."""
    text = "".join([v.text for v in values])
    return Value(text, Spans(parts=[v.origins for v in values], length=len(text)), any([v.opaque for v in values]))


class _Splits:
    """The value sets the Choices of some symbolic values tell apart, of each input, and the
    inputs those values read whole (each value walked once)."""

    def __init__(self, values: Iterable):
        self.by_input: dict[str, set] = {}
        self.read_whole: set = set()
        for value in values:
            for part in parts_of(value):
                if type(part) is Choice:
                    self.by_input.setdefault(part.name, set()).update(found for found, _ in part.alts)
            self.read_whole |= read_names(value)


def _group_paths(path: ExploredPath, group: _Part, splits: _Splits, explored: Mapping[str, Sequence], cap: int,
                 judge, launch_at, shared: SharedParts, flag_pieces: _FlagPieces | None = None) -> list[tuple[ExploredPath, dict]]:
    """The paths on which to check a group, each with what it owns (Owned's fields): every combination of its inputs' values; or, over `cap`, the combinations of the parts
    that set a name, for the names only they set (the other parts stay at the path's values there,
    so a rule that reads names of other parts too is the solver's), and each launch the solver
    finds a rule broken on, for that rule at that place (the inputs it left free take one value each there).
    `launch_at(env)`: the launch with those inputs' values."""
    try:
        return _checked_group(path, group, splits, explored, cap, judge, launch_at, shared, flag_pieces)
    except Unverified as err:
        err.origin = err.origin or group.origin
        raise


def _checked_group(path: ExploredPath, group: _Part, splits: _Splits, explored: Mapping[str, Sequence], cap: int,
                   judge, launch_at, shared: SharedParts, flag_pieces: _FlagPieces | None) -> list[tuple[ExploredPath, dict]]:
    # the inputs' classes, once for the path, the value sets and the inputs (a site's groups are alike on its paths)
    memo = (id(path), id(splits), id(explored), tuple(sorted(group.inputs)))
    if memo not in shared.classes:  # the path, the value sets and the inputs' values kept: their ids stay their own
        shared.classes[memo] = (path, splits, explored, _input_classes(path, group.inputs, splits, explored))
    classes = shared.classes[memo][3]
    if _count(classes) <= cap:
        # the path narrowed to each combination, once for every check of the script that splits it so
        key = (id(path), tuple((name, tuple(map(tuple, found))) for name, found in classes.items()))
        if key not in shared.splits:  # the path kept: its id stays its own
            combos = (dict(zip(classes, combo)) for combo in itertools.product(*classes.values()))
            shared.splits[key] = (path, [sub for fixed in combos if (sub := _narrowed(path, fixed)) is not None])
        return [(sub, {"names": frozenset(group.names)}) for sub in shared.splits[key][1]]
    # inputs that decide more combinations than the cap may still give few launches: those of
    # the texts the group's values take together (with no solver to ask, as many as the names of
    # one part are checked on below)
    few = max(cap, PART_COMBINATIONS)
    ways = _distinct_paths(path, group.values, explored, cap if judge is not None else few, shared)
    if ways is not None:
        return [(sub, {"names": frozenset(group.names)}) for sub in ways]
    if judge is None:
        raise Unverified(f"{', '.join(sorted(group.inputs))} decide the launch together in more than {few} ways")
    writers: dict[str, frozenset] = {}
    for index, part in enumerate(group.members):
        for name in part.names:
            writers[name] = writers.get(name, frozenset()) | {index}
    depends = {name: set().union(*(group.members[i].inputs for i in who)) for name, who in writers.items()}
    decided: dict[frozenset, set] = {}
    for name, who in writers.items():
        decided.setdefault(who, set()).add(name)
    # What the same parts alone decide (a token of one key, one key set by two parts) is checked on
    # those parts' combinations where they are few (a part reads an input or two); a key that many
    # parts write, on the launches where each of its tokens is the last written, where one is
    # written again after it, and where none is (KeyTokens): as many as its tokens. Parts that
    # give few texts over many inputs (a guard over many inputs) are checked on those texts.
    # Each set of names' launches, in order; the combinations enumerated are narrowed only once the
    # solver has answered (where it cannot, the group is not verified and they are never launched).
    found: list[Callable[[], list]] = []
    sequences: dict[str, KeyTokens] = {}
    config = judge.config(launch_at(path.env))[0]
    pin = None if config is None else config.pin
    for who, names in decided.items():
        inputs = depends[next(iter(names))]
        owned = {"names": frozenset(names), "excluded": frozenset(group.names - names)}
        if _count(_input_classes(path, inputs, splits, explored)) <= ENUMERATED:
            found.append(_enumerated(path, inputs, splits, explored, few, ", ".join(sorted(names)), owned))
            continue
        ways = _distinct_paths(path, [v for i in sorted(who) for v in group.members[i].values], explored, few, shared)
        if ways is not None and len(ways) <= ENUMERATED:
            found.append(lambda ways=ways, owned=owned: [(sub, owned) for sub in ways])
            continue
        members = [group.members[i] for i in sorted(who)]
        fixes: list[tuple[dict, dict]] = []
        for name in sorted(names):
            tokens = shared.key_tokens(path, members, name, flag_pieces, explored, few, fixes, pin)
            if tokens is None:  # not one piece a part, or parts that share inputs: every combination
                fixes = None
                break
            sequences[name] = tokens
        if fixes is None:
            found.append((lambda ways=ways, owned=owned: [(sub, owned) for sub in ways]) if ways is not None
                         else _enumerated(path, inputs, splits, explored, few, ", ".join(sorted(names)), owned))
            continue
        shown = [(sub, {**owned, **own}) for fixed, own in fixes if (sub := shared.narrowed(path, fixed)) is not None]
        found.append(lambda shown=shown: shown)
    answers = [] if config is None else _violations(path, group, splits, explored, depends, launch_at, judge, few, sequences, shared)
    return [launch for launches in found for launch in launches()] + [
        (_narrowed(path, fixed), {"names": frozenset(group.names), "rule": rule, "at": place}) for rule, fixed, place in answers]


def _violations(path: ExploredPath, group: _Part, splits: _Splits, explored: Mapping[str, Sequence], depends: dict,
                launch_at, judge, cap: int, sequences: dict, shared: SharedParts) -> list:
    """launch_query.violations of the group, on a path whose launch has a config to judge (where
    it has none, the solver has nothing to ask, and is not loaded)."""
    cubes = list(path.products(group.inputs))
    classes = _input_classes(path, group.inputs, splits, explored, cubes)
    from flaglint.frontends.lint.launch_query import violations  # noqa: PLC0415 z3: only for a group over the path cap

    return violations(classes, cubes, depends, path.env, launch_at, lambda fixed: launch_at(shared.narrowed(path, fixed).env), judge,
                      cap, sequences)


def _distinct_paths(path: ExploredPath, values: list, explored: Mapping[str, Sequence], cap: int,
                    shared: SharedParts) -> list[ExploredPath] | None:
    """The path narrowed to each text the values take together (distinct_texts), found in each
    product of the path's condition apart (where a condition links inputs, a way to a text in one product
    may be ruled out in another); None where there are more than `cap`. The texts are found once
    for the same values over the same values of the inputs they read, whatever path asks, and the
    paths once for every check of the script."""
    if not values:
        return None
    key = (id(path), tuple(map(id, values)), cap)
    if key not in shared.distinct_paths:  # the path and the values kept: their ids stay their own
        shared.distinct_paths[key] = (path, values, _texts_paths(path, values, explored, cap, shared))
    return shared.distinct_paths[key][2]


def _texts_paths(path: ExploredPath, values: list, explored: Mapping[str, Sequence], cap: int,
                 shared: SharedParts) -> list[ExploredPath] | None:
    found: dict[tuple, dict] = {}
    reads = sorted(set().union(*(_inputs(v) for v in values)))
    for cube in path.products(reads):
        def domain(name: str, cube=cube) -> list:
            return list(cube[name]) if name in cube else _domain(name, path, explored)

        key = (tuple(map(id, values)), tuple(tuple(domain(name)) for name in reads), cap)
        if key not in shared.texts:  # the values kept: their ids stay their own
            shared.texts[key] = (values, distinct_texts(values, domain, cap))
        ways = shared.texts[key][1]
        if ways is None:
            return None
        for text, way in ways.items():
            found.setdefault(text, way)
            if len(found) > cap:
                return None
    return [sub for way in found.values() if (sub := _narrowed(path, way)) is not None]


def _piece_writes(path: ExploredPath, flag_pieces: _FlagPieces, index: int, inputs: set, explored: Mapping[str, Sequence],
                  cap: int) -> tuple[dict[str, list[list]], list[tuple]] | None:
    """The classes of the piece's inputs (those the piece alone tells apart), and on each
    combination of them: that combination (each input's class), the piece's value and text there,
    and the tokens touching it (PieceTokens.touching); None over `cap` combinations."""
    classes = _input_classes(path, inputs, _Splits([flag_pieces.pieces[index]]), explored)
    if _count(classes) > cap:
        return None
    rows = []
    for combo in itertools.product(*classes.values()):
        chosen = dict(zip(classes, combo))
        value = resolve(flag_pieces.pieces[index], *_picker(path.env, {n: found[0] for n, found in chosen.items()}))
        text = "" if value is None else value.text
        rows.append((chosen, value, text, [t for t, _ in flag_pieces.tokens.touching(index, text)]))
    return classes, rows


def _key_tokens(path: ExploredPath, members: list[_Part], key: str, flag_pieces: _FlagPieces,
                writes: Callable[[int, set], tuple | None], fixes: list[tuple[dict, dict]],
                refused: Callable[[str, str], bool]) -> KeyTokens | None:
    """The tokens of `key` the parts write (each one piece of the flag string, no two reading an
    input together, on a path of one product; else None), and, into `fixes`, the launches that
    show each (the values of the parts' inputs, and what of theirs they own: Owned's fields):
    where none is written, every part's inputs fixed (the others at the path's own values); where
    it is written at all, what a token alone decides (TOKEN_RULES); where another follows it, its
    being written again (REPEATED_RULES); where it is the last written, all else; each with only
    the inputs of the parts that decide that fixed, owning only the findings at the token (the
    parts left free change nothing there). The tokens one place of a
    part writes with values MaxText refuses alike (`refused(key, value)`: an option's value that is
    another option's name, given to a number or a switch) are one token, shown by the first: each
    launch of another judges as it does, so the launches grow with the part's values MaxText reads,
    not with every value the script compares its arguments with."""
    if path.factors is not None or sum(len(p.inputs) for p in members) != len(set().union(*(p.inputs for p in members))):
        return None
    # per part, in the string's order: its piece, each combination of its inputs' classes with the
    # tokens of the key it writes there and the inputs' values that take it, and its own values'
    parts: list[tuple[int, list, dict]] = []
    present: dict[tuple, list] = {}
    origins: dict[tuple, object] = {}  # token -> where the script writes its first character, when in its piece
    alike: dict[tuple, str] = {}  # (piece, place) -> the first token written there with a value MaxText refuses alike
    for part in sorted(members, key=lambda p: p.pieces[0]):
        (index,) = part.pieces
        found = writes(index, part.inputs)
        if found is None:
            return None
        classes, rows = found
        names = list(classes)
        combos = []
        for chosen, value, text, touching in rows:
            texts = [t for t in touching if t.split("=", 1)[0] == key]
            written = [(index, place, alike.setdefault((index, place), token) if refused(key, token.split("=", 1)[1]) else token)
                       for place, token in enumerate(texts)]
            for token, start in zip(written, _starts(text, texts)):
                present.setdefault(token, []).append(dict(chosen))
                if start is not None and token not in origins:
                    origins[token] = value.origins[start]
            combos.append((written, {n: list(found) for n, found in chosen.items()}))
        # the path's own class of each input (one it never decided, only a guarded part reads: the first)
        own = {n: next((found for found in classes[n] if path.env.get(n) in found), classes[n][0]) for n in names}
        parts.append((index, combos, own))
    base = {n: v for _, _, own in parts for n, v in own.items()}
    quiet = {index: next((values for written, values in combos if not written), None) for index, combos, _ in parts}

    # from the end, for the parts after piece i: quiet_after[i], the values with which none writes the
    # key (None: one always does); writes_after[i], the first combination of theirs that writes it
    quiet_after: dict[int, dict | None] = {}
    writes_after: dict[int, dict | None] = {}
    following: dict | None = {}
    writing: dict | None = None
    for index, combos, _ in reversed(parts):
        quiet_after[index], writes_after[index] = following, writing
        following = None if following is None or quiet[index] is None else {**quiet[index], **following}
        writing = next((values for written, values in combos if written), writing)
    quiet_after[-1] = following

    # of each token, the first combination that writes it, the first where it is the last written,
    # and the first where another token follows it
    with_token: dict[tuple, dict] = {}
    written_last: dict[tuple, dict] = {}
    followed: dict[tuple, dict] = {}
    for _, combos, _ in parts:
        for written, values in combos:
            for token in written:
                with_token.setdefault(token, values)
                (written_last if written[-1] == token else followed).setdefault(token, values)

    tokens = sorted(present, key=lambda token: token[:2])
    last = []
    for token in tokens:
        index = token[0]
        own = written_last.get(token)
        rest = quiet_after[index]
        # what the token written last decides: the parts before it do not matter
        shown = None if own is None or rest is None else {**rest, **own}
        last.append(None if shown is None else {**base, **shown})
        again = followed.get(token)
        if again is None:
            after = writes_after[index]
            again = None if after is None else {**with_token[token], **after}
        at = origins.get(token)
        if at is None:  # a token begun in another piece: its launches are whole
            fixes.extend(({**base, **fixed}, {}) for fixed in (shown, again) if fixed is not None)
            continue
        fixes.append((with_token[token], {"only": TOKEN_RULES, "at": at}))
        if shown is not None:
            fixes.append((shown, {"at": at}))
        if again is not None:
            fixes.append((again, {"only": REPEATED_RULES, "at": at}))
    none = quiet_after[-1]
    if none is not None:
        none = {**base, **none}
        fixes.append((none, {}))
    return KeyTokens([present[t] for t in tokens], last, none)


def _refusal(pin) -> Callable[[str, str], bool]:
    """Whether MaxText refuses `key=value` alike wherever the token stands (`pin`: the launch's
    resolved config's, which types the keys; None: no value is): a value a number or a switch
    cannot be, which YAML still reads, so the last such token is FL005 and the key is not judged,
    and one another token follows is only set again. A value the evaluator does not know, a key
    whose raw value or emptiness MaxText reads itself, are never alike."""
    def refused(key: str, value: str) -> bool:
        schema = None if pin is None else pin.keys.get(key)
        if schema is None or schema.kind not in ("bool", "int", "float") or OTHER in value \
                or key in INFERRED_WHEN_EMPTY or key in RAW_EXCLUSIVE:
            return False
        try:
            parse_cli_value(value)
        except ValueError_:
            return False
        try:
            type_value(schema, value)
        except ValueError_:
            return True
        return False

    return refused


def _starts(text: str, tokens: list[str]) -> list[int | None]:
    """Where each of `tokens` (the ones touching a piece whose text is `text`, in order) begins in
    it; None for one begun or ended in a neighbouring piece."""
    inside = [(m.start(), m.group()) for m in _TOKEN.finditer(text)]
    inside = [(start, token) for start, token in inside if token in tokens]
    for before in range(len(tokens) - len(inside) + 1):  # tokens glued to the piece's neighbours come first or last
        if [token for _, token in inside] == tokens[before:before + len(inside)]:
            return [None] * before + [start for start, _ in inside] + [None] * (len(tokens) - before - len(inside))
    return [None] * len(tokens)


def _input_classes(path: ExploredPath, inputs: set, splits: _Splits, explored: Mapping[str, Sequence],
                   cubes: Sequence[Mapping] = ()) -> dict[str, list[list]]:
    """Each input's values, in the classes that the symbolic values (`splits`) and `cubes`
    (products of the path's condition) tell apart."""
    by_input = splits.by_input
    if cubes:
        by_input = {name: set(found) for name, found in by_input.items()}
        for cube in cubes:
            for name, values in cube.items():
                by_input.setdefault(name, set()).add(frozenset(values))
    return {name: _classes(_domain(name, path, explored), None if name in splits.read_whole else by_input.get(name))
            for name in sorted(inputs)}


def _count(classes: Mapping[str, list]) -> int:
    count = 1
    for c in classes.values():
        count *= len(c)
    return count


def _split(path: ExploredPath, inputs: set, splits: _Splits, explored: Mapping[str, Sequence], cap: int,
           deciding: str = "") -> list[ExploredPath]:
    """The path, once for each combination of the inputs' values that the symbolic values tell
    apart; more than `cap` of them for what the inputs decide (`deciding`) is Unverified."""
    return _splitting(path, inputs, splits, explored, cap, deciding)()


def _enumerated(path: ExploredPath, inputs: set, splits: _Splits, explored: Mapping[str, Sequence], cap: int,
                deciding: str, owned: dict) -> Callable[[], list]:
    """_split's paths, each with what it owns, made when called (Unverified now)."""
    subs = _splitting(path, inputs, splits, explored, cap, deciding)
    return lambda: [(sub, owned) for sub in subs()]


def _splitting(path: ExploredPath, inputs: set, splits: _Splits, explored: Mapping[str, Sequence], cap: int,
               deciding: str) -> Callable[[], list[ExploredPath]]:
    """_split's paths, narrowed when called; more than `cap` combinations is Unverified now."""
    by_input = _input_classes(path, inputs, splits, explored)
    count = _count(by_input)
    if count > cap:
        raise Unverified(f"{deciding or 'a part of the launch'} is decided by {count} combinations of {', '.join(by_input)} (more than {cap})")
    names, classes = list(by_input), list(by_input.values())

    def subs() -> list[ExploredPath]:
        found = (_narrowed(path, dict(zip(names, combo))) for combo in itertools.product(*classes))
        return [sub for sub in found if sub is not None]

    return subs


def _narrowed(path: ExploredPath, fixed: Mapping[str, list]) -> ExploredPath | None:
    """The part of the path where each input in `fixed` takes one of its values; None where the
    path's condition rules that out (a guard over several inputs, or one that exits, took it)."""
    if path.factors is None:  # one product: only the inputs in `fixed` change (their values shared, never changed)
        changes = {}
        for name, values in fixed.items():
            changes[name] = _within(path.domains.get(name, values), values)
            if not changes[name]:
                return None
        env = {**path.env, **{name: found[0] for name, found in changes.items()}}
        return ExploredPath(env, path.branches, {**path.domains, **changes}, narrowed_from=path, changed=changes)
    allowed = {name: set(values) for name, values in fixed.items()}  # a value looked up, not a list walked, in each product
    domains, env, factors, named = dict(path.domains), dict(path.env), [], set()
    for factor in path.factors:
        names = allowed.keys() & factor[0].keys()
        if not names:  # the factor's products take the same values as before
            factors.append(factor)
            continue
        named |= names
        products = [{**product, **changes} for product in factor
                    if all((changes := {name: [v for v in product[name] if v in allowed[name]] for name in names}).values())]
        if not products:
            return None
        domains.update({name: list(dict.fromkeys(v for p in products for v in p[name])) for name in factor[0]})
        for name, values in products[0].items():
            if name in fixed or env.get(name) not in values:
                env[name] = values[0]
        if len(products) > 1:
            factors.append(tuple(products))
    for name, values in fixed.items():  # an input no factor names: as in a path of one product
        if name not in named:
            domains[name] = _within(path.domains.get(name, values), values)
            if not domains[name]:
                return None
            env[name] = domains[name][0]
    return ExploredPath(env, path.branches, domains, tuple(factors) or None)


# Of each domain a path narrows (by id, the list kept alive), where each value stands in it: a path
# narrowed once per value of a domain of n costs n look-ups, not n walks of it.
_POSITIONS: dict[int, tuple[Sequence, dict]] = {}


def _within(domain: Sequence, values: Sequence) -> list:
    """The values of `domain` among `values`, in the domain's order."""
    if len(domain) <= 8 and len(values) <= 8:  # a few values compared: no set, no look-up
        return [v for v in domain if v in values]
    if len(domain) <= 8:
        allowed = set(values)
        return [v for v in domain if v in allowed]
    found = _POSITIONS.get(id(domain))
    if found is None or found[0] is not domain:
        if len(_POSITIONS) > 256:
            _POSITIONS.clear()
        found = _POSITIONS[id(domain)] = (domain, {v: at for at, v in reversed(list(enumerate(domain)))})
    positions = found[1]
    return sorted(dict.fromkeys(v for v in values if v in positions), key=positions.__getitem__)


def _classes(domain: list, splits: set | None) -> list[list]:
    """The input's values, grouped where no Choice tells them apart; an input read as a value
    (FromInput) has every value apart."""
    if splits is None:
        return [[v] for v in domain]
    held: dict = {v: [] for v in domain}  # each value: the sets that hold it (each set read once)
    for s in splits:
        for v in s:
            if v in held:
                held[v].append(id(s))
    grouped: dict[tuple, list] = {}
    for v, sets in held.items():
        grouped.setdefault(tuple(sets), []).append(v)
    return list(grouped.values())


def _is_symbolic(value) -> bool:
    return type(value) is Choice or type(value) is Sym


def _inputs(value) -> set:
    return set(choice_names(value) | read_names(value))


def _domain(name: str, path: ExploredPath, explored: Mapping[str, Sequence]) -> list:
    values = path.domains.get(name)
    if values is None:
        values = explored.get(name) or [path.env.get(name)]
    return list(dict.fromkeys(values))


# Of each Choice read, its alternatives by value: a path picks one by a look-up, not a walk of them all.
_ALTERNATIVES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _alternative(choice: Choice, value):
    """The alternative of `choice` whose value set holds `value`; the first where none does."""
    by_value = _ALTERNATIVES.get(choice)
    if by_value is None:
        by_value = {}
        for values, alt in choice.alts:
            for held in values:
                by_value.setdefault(held, alt)
        _ALTERNATIVES[choice] = by_value
    return by_value.get(value, choice.alts[0][1])


def _picker(base: Mapping, assignment: Mapping):
    def value_of(name: str):
        return assignment[name] if name in assignment else base.get(name)

    def pick(choice: Choice):
        return _alternative(choice, value_of(choice.name))

    return pick, lambda name: input_value(value_of(name))


def _flag_parts(flags, base: Mapping, cap: int, values: _Values, own_texts: dict,
                origins: dict) -> tuple[list[_Part], _FlagPieces]:
    """One part per Choice among the flag string's pieces, with the keys of the tokens it writes
    into in any of its values (the other pieces at the path's values); parts that write into one
    token are one part. Each value of a part is tokenised in its neighbourhood only (PieceTokens),
    so a part costs its own tokens, not the whole string's; its values are found once for the
    values of the inputs it reads (`own_texts`: _own_texts's, kept by the caller), whatever the
    rest of the string reads, and where the script writes it once (`origins`: by the piece's id,
    kept by the caller with the piece)."""
    pieces = flags.pieces if type(flags) is Sym else (flags,)
    indices = [i for i, p in enumerate(pieces) if type(p) is not Value]
    pick_base, read_base = _picker(base, {})
    base_texts = ["" if v is None else v.text for v in (resolve(p, pick_base, read_base) for p in pieces)]
    for i in indices:
        if id(pieces[i]) not in origins:
            origins[id(pieces[i])] = (pieces[i], _first_origin(pieces[i]))
    parts = {i: _Part(_inputs(pieces[i]), set(), origin=origins[id(pieces[i])][1]) for i in indices}
    owner = {i: i for i in indices}

    def find(i: int) -> int:
        while owner[i] != i:
            i = owner[i]
        return i

    own = {i: _own_texts(pieces[i], base, cap, values, own_texts) for i in indices}
    tokens = PieceTokens(base_texts, {i: own[i][1] for i in indices})
    for i in indices:
        for text in own[i][0]:
            for token, touched in tokens.touching(i, text):
                parts[i].names.add(token.split("=", 1)[0])
                for j in touched:
                    if j in owner and find(j) != find(i):
                        owner[find(j)] = find(i)
        # the base value's tokens too: a part that is empty elsewhere still removes them
        for token, _ in tokens.touching(i, base_texts[i]):
            parts[i].names.add(token.split("=", 1)[0])
    merged: dict[int, _Part] = {}
    for i in indices:
        root = find(i)
        into = merged.setdefault(root, _Part(set(), set(), origin=parts[i].origin))
        into.inputs |= parts[i].inputs
        into.names |= parts[i].names
        into.pieces.append(i)
        into.values.append(pieces[i])
    return list(merged.values()), _FlagPieces(pieces, tokens)


def _own_texts(piece, base: Mapping, cap: int, values: _Values, found: dict) -> tuple[tuple[str, ...], tuple[bool, bool]]:
    """The texts a piece of a flag string takes (_own_assignments: the path's own first), and
    whether some would join the token before it and the one after it (_joins); found once for the
    piece at the same values of the inputs it reads (`found`, kept by the caller: its ids stay theirs)."""
    key = (id(piece), tuple([base.get(name) for name in sorted(_inputs(piece))]), cap)
    if key not in found:
        own = [values.at(piece, {**base, **assignment}, *_picker(base, assignment)) for assignment in _own_assignments(piece, base, cap)]
        found[key] = (piece, (tuple(dict.fromkeys("" if value is None else value.text for value in own)), _joins(own)))
    return found[key][1]


def _first_origin(value):
    """Where the script writes the first character in which the value's alternatives differ
    (of a string, of its first part that has one). Without recursion: values nest as deep as joins go."""
    memo: dict[int, Sequence] = {}
    stack = [iter((value,))]
    while stack:
        part = next(stack[-1], None)
        if part is None:
            stack.pop()
        elif type(part) is Sym:
            stack.append(iter(part.pieces))
        elif type(part) is Choice:
            alts = [_origins(alt, memo) for _, alt in part.alts]
            shared = 0
            while all(shared < len(a) for a in alts) and all(a[shared] == alts[0][shared] for a in alts):
                shared += 1
            found = next((o for a in alts for o in a[shared:] if o is not None), None)
            if found is not None:
                return found
    return None


def _origins(value, memo: dict[int, Sequence]) -> Sequence:
    """The origins of the value's characters, each Choice at its first alternative that has any
    (each part computed once, its parts first)."""
    for part in (*parts_of(value), value):
        if id(part) in memo:
            continue
        if type(part) is Value:
            memo[id(part)] = part.origins
        elif type(part) is Sym:
            memo[id(part)] = joined_origins(_origins(p, memo) if type(p) is Value else memo.get(id(p), ()) for p in part.pieces)
        elif type(part) is Choice:
            memo[id(part)] = next((found for _, alt in part.alts if len(found := _origins(alt, memo) if type(alt) is Value else memo.get(id(alt), ()))), ())
        else:
            memo[id(part)] = ()
    return memo[id(value)]


def _own_assignments(piece, base: Mapping, cap: int) -> list[dict]:
    """The path's own assignment (empty: the path's values) and, of each value the piece takes,
    one assignment of its inputs that gives it (distinct_texts; each input among the path's own value and
    one value of each set its Choices tell apart). More than `cap` values is Unverified, naming
    where the script writes the piece."""
    candidates: dict[str, list] = {}
    for part in parts_of(piece):
        if type(part) is Choice:
            found = candidates.setdefault(part.name, [base.get(part.name)])
            found.extend(min(values, key=lambda v: (v is None, str(v))) for values, _ in part.alts)
    ways = distinct_texts([piece], lambda name: list(dict.fromkeys(candidates.get(name, [base.get(name)]))), cap)
    if ways is None:
        raise Unverified(f"a part of the flags takes more than {cap} values, decided by {', '.join(sorted(_inputs(piece)))}",
                         _first_origin(piece))
    return [{}, *({name: values[0] for name, values in way.items()} for way in ways.values())]


def distinct_texts(values: Sequence, domain: Callable[[str], list], cap: int) -> dict[tuple, dict] | None:
    """Of each text the values take together (each input's values in `domain(name)`; the text
    with its opacity), the values of the inputs that give it: the values' Choices are walked down,
    each input narrowed to the values that take an alternative where a Choice reads it (read
    whole, to one value), and two ways that have written the same text and allow the same values
    of what the rest reads are one.
    So a guard over many inputs that gives one string wherever it holds costs its ways down, not
    the product of its inputs' values, and values that read no input in common cost the product of
    their own texts. None where there are more than `cap` texts, or the walk forks into more than
    16 * `cap` ways on the way (steps along one way are not counted: a long value of few texts is
    walked whole)."""
    parts = _apart(values)
    if len(parts) > 1 and math.prod(_count_of(part, domain, cap) for part in parts) > cap:
        return None  # values that read no input in common take the product of their texts
    found: dict[tuple, tuple] = {}
    seen: set = set()
    reads: dict[int, frozenset] = {}  # what the rest of a way reads, by its cell
    # the rest of a way: (what comes next, the rest after it), one cell per pair, so that ways that
    # meet on the same rest are known to (the cells keep what they hold alive: their ids stay theirs)
    cells: dict[tuple[int, int], tuple] = {}
    # A way's allowed values are split: those of inputs the rest still reads (`live`, name ->
    # (order, values)), and a chain of those it no longer reads (`settled`), shared by the ways
    # that branch after it, so a way's step costs what the rest reads, not every input decided
    # before. `order` keeps the order in which the way decided its inputs.
    order = itertools.count()

    def cell(item, after) -> tuple:
        key = (id(item), id(after))
        if key not in cells:
            cells[key] = (item, after)
        return cells[key]

    def read_by(rest) -> frozenset:
        if rest is None:
            return frozenset()
        if id(rest) not in reads:
            reads[id(rest)] = frozenset(_inputs(rest[0])) | read_by(rest[1])
        return reads[id(rest)]

    def allowed_of(live: dict, settled) -> dict:
        entries = [(at, name, values) for name, (at, values) in live.items()]
        while settled is not None:
            entries.extend(settled[0])
            settled = settled[1]
        return {name: values for _, name, values in sorted(entries, key=lambda e: e[0])}

    rest = None
    for value in reversed(values):  # a separator between values: texts that only shift between them stay apart
        rest = cell(_SEPARATOR, cell(value, rest))
    # each way carries what it has decided of the inputs the rest reads (`decided`: (name, values)
    # pairs), hashed once where it changes, not at each step, and how many inputs the rest read
    # where it last settled some (what the rest reads only shrinks along a way: the same count is
    # the same inputs)
    ways = [(rest, "", False, {}, None, frozenset(), -1)]
    met = 1  # the ways the walk has met: one, and each fork's more
    while ways:
        rest, text, opaque, live, settled, decided, reading = ways.pop()
        if rest is None:
            if len(found) >= cap and (text, opaque) not in found:
                return None
            found.setdefault((text, opaque), (live, settled))
            continue
        item, after = rest
        relevant = read_by(rest)
        if len(relevant) != reading:
            reading = len(relevant)
            left = [(at, n, v) for n, (at, v) in live.items() if n not in relevant]
            if left:
                settled = (left, settled)
                live = {n: entry for n, entry in live.items() if n in relevant}
                decided = frozenset((n, tuple(v)) for n, (_, v) in live.items())
        key = (id(rest), text, opaque, decided)
        if key in seen:
            continue
        seen.add(key)
        if type(item) is Sym:
            for piece in reversed(item.pieces):
                after = cell(piece, after)
            ways.append((after, text, opaque, live, settled, decided, reading))
            continue
        if type(item) in (Choice, FromInput):
            entry = live.get(item.name)
            here = domain(item.name) if entry is None else entry[1]
            at = next(order) if entry is None else entry[0]
            by_alt: dict[int, tuple] = {}  # the values that take each alternative (read whole: each value)
            for v in here:
                alt = _alternative(item, v) if type(item) is Choice else input_value(v)
                by_alt.setdefault(id(alt) if type(item) is Choice else v, (alt, []))[1].append(v)
            met += len(by_alt) - 1
            if met > 16 * cap:
                return None
            unread = decided - {(item.name, tuple(here))} if entry is not None else decided
            for alt, taking in reversed(list(by_alt.values())):
                ways.append((cell(alt, after), text, opaque, {**live, item.name: (at, taking)}, settled,
                             unread | {(item.name, tuple(taking))}, reading))
            continue
        if isinstance(item, list):
            item = _present(item)
        ways.append((after, text if item is None else text + item.text, opaque or (item is not None and item.opaque), live,
                     settled, decided, reading))
    return {text: allowed_of(*way) for text, way in found.items()}


def _apart(values: Sequence) -> list[list]:
    """The values in groups that read no input in common, each in the values' order."""
    groups: list[tuple[set, list]] = []
    for value in values:
        reads = _inputs(value)
        joined = [g for g in groups if g[0] & reads]
        merged = (reads.union(*(g[0] for g in joined)), [v for g in joined for v in g[1]] + [value])
        groups = [g for g in groups if not any(g is j for j in joined)] + [merged]
    order = {id(v): i for i, v in enumerate(values)}
    return [sorted(g[1], key=lambda v: order[id(v)]) for g in groups]


def _count_of(values: list, domain: Callable[[str], list], cap: int) -> int:
    """How many texts the values take together; more than `cap` where they take more."""
    texts = distinct_texts(values, domain, cap)
    return cap + 1 if texts is None else len(texts)


_SEPARATOR = Value("\0", Spans.unwritten(1))


def _joins(values: list) -> tuple[bool, bool]:
    """Whether some value of a piece would join the token before it, and the token after it."""
    texts = [v.text for v in values if v is not None and v.text]
    return any(not t[0].isspace() for t in texts), any(not t[-1].isspace() for t in texts)


_TOKEN = re.compile(r"\S+")


class PieceTokens:
    """The whitespace-separated tokens of a string joined from pieces (`texts`), each with the
    pieces it touches: those that write one of its characters, and an empty piece where it would
    split the token, or join it (`joins[i]`: whether some value of piece i would join the token
    before it, and the token after it; (True, True) for a piece not in `joins`). touching(i, text)
    gives the tokens that touch piece i when its text is `text` and every other piece keeps its
    own, reading only the tokens around piece i: the empty pieces that share a position are found
    by position, never scanned."""

    def __init__(self, texts: Sequence[str], joins: Mapping[int, tuple[bool, bool]]):
        self.texts = list(texts)
        self.starts = list(itertools.accumulate((len(t) for t in self.texts[:-1]), initial=0)) if self.texts else []
        text = "".join(self.texts)
        self.bounds = [m.span() for m in _TOKEN.finditer(text)]
        self.token_starts = [start for start, _ in self.bounds]
        self.filled = [j for j, t in enumerate(self.texts) if t]
        self.filled_ends = [self.starts[j] + len(self.texts[j]) for j in self.filled]
        self.joins = joins
        # the empty pieces at each position, in order: all, those that join left, those that join right
        self.empty: dict[int, tuple[list, list, list]] = {}
        for j, t in enumerate(self.texts):
            if not t:
                left, right = joins.get(j, (True, True))
                found = self.empty.setdefault(self.starts[j], ([], [], []))
                found[0].append(j)
                if left:
                    found[1].append(j)
                if right:
                    found[2].append(j)
        self.empty_positions = sorted(self.empty)

    def _around(self, position: int, default: int, side: int) -> int:
        """The start (side 0) or end (side 1) of the token that holds `position` or ends or starts there."""
        k = bisect.bisect_right(self.token_starts, position) - 1
        if k >= 0 and self.bounds[k][1] >= position:
            return self.bounds[k][side]
        return default

    def touching(self, i: int, text: str) -> list[tuple[str, set]]:
        start, end = self.starts[i], self.starts[i] + len(self.texts[i])
        low, high = self._around(start, start, 0), self._around(end, end, 1)
        # the written pieces in [low, high], cut to it, with piece i's text in its place
        segments: list[tuple[int, str]] = []
        for k in range(bisect.bisect_right(self.filled_ends, low), len(self.filled)):
            j = self.filled[k]
            if self.starts[j] >= high:
                break
            if j != i:
                segments.append((j, self.texts[j][max(low - self.starts[j], 0):high - self.starts[j]]))
        at = next((n for n, (j, _) in enumerate(segments) if j > i), len(segments))
        segments.insert(at, (i, text))
        joined = "".join(t for _, t in segments)
        owners = [j for j, t in segments for _ in t]
        # the empty pieces in [low, high], at their positions in `joined`: where piece i starts,
        # those before it stay, those after it move past its text
        here, past = start - low, start - low + len(text)
        everyone = (0, len(self.texts))
        groups: list[tuple[int, tuple, tuple]] = []  # (position, (all, left, right), pieces from, to)
        for position in range(bisect.bisect_left(self.empty_positions, low), len(self.empty_positions)):
            q = self.empty_positions[position]
            if q > high:
                break
            if q < start:
                groups.append((q - low, self.empty[q], everyone))
            elif q > end:
                groups.append((q - low + len(text) - (end - start), self.empty[q], everyone))
            else:
                groups.append((here, self.empty[q], (0, i)))
                groups.append((past, self.empty[q], (i + 1, len(self.texts))))
        if not text:
            left, right = self.joins.get(i, (True, True))
            groups.append((here, ([i], [i] if left else [], [i] if right else []), everyone))
        result = []
        for match in _TOKEN.finditer(joined):
            s, e = match.span()
            touched = set(owners[s:e])
            for q, (every, left, right), (first, last) in groups:
                found = every if s < q < e else left if q == e else right if q == s else ()
                if found:
                    touched.update(found[bisect.bisect_left(found, first):bisect.bisect_left(found, last)])
            if i in touched:
                result.append((match.group(), touched))
        return result


def _groups(parts: list[_Part], rule_names: Iterable[frozenset]) -> list[_Part]:
    """The parts, joined where they must be checked together."""
    owner = list(range(len(parts)))

    def find(i: int) -> int:
        while owner[i] != i:
            i = owner[i]
        return i

    def union(i: int, j: int) -> None:
        a, b = find(i), find(j)
        if a != b:
            owner[b] = a

    by_name: dict[str, list[int]] = {}
    for i, part in enumerate(parts):
        for name in part.names:
            by_name.setdefault(name, []).append(i)
    for indices in by_name.values():
        for j in indices[1:]:
            union(indices[0], j)
    for names in rule_names:
        if not names.isdisjoint(DEVICE_NAMES):  # the device count is read from the launch's keys
            names = names | device_keys()
        hit = {i for name in names for i in by_name.get(name, ())}
        if len(hit) > 1:
            first = min(hit)
            for j in hit:
                union(first, j)
    groups: dict[int, _Part] = {}
    for i, part in enumerate(parts):
        into = groups.setdefault(find(i), _Part(set(), set(), origin=part.origin))
        into.inputs |= part.inputs
        into.names |= part.names
        into.values.extend(part.values)
        into.members.append(part)
    return list(groups.values())


def concrete_argvs(words: Sequence, path: ExploredPath, explored: Mapping[str, Sequence],
                   rule_names: Iterable[frozenset], cap: int = COMBINATION_CAP, judge=None,
                   shared: SharedParts | None = None) -> list[ConcreteArgv]:
    """The command lines to check for a launched program's words, some of them symbolic: one part
    per symbolic word, named by the key it sets (`key=...`) in any of its values; the words bash
    splits (Split) are read as one flag string, a part per Choice (as _flag_parts reads one); all
    grouped and split as a flag string's parts are (`judge`: launch_query.Judge on the words;
    `shared`: what the trainer's check of the same flags finds alike, SharedParts). What the words
    give whatever path reaches them is found once (_Site), and the words once for each of the
    values of the inputs they read, the same tuple for the same words (_Words)."""
    shared = shared if shared is not None else SharedParts()
    if not any(_is_symbolic(w) or type(w) is Split for w in words):  # the same words of every outcome: one tuple
        return [ConcreteArgv(shared.made.words([shared.made.first(w) for w in words]), path)]
    site = shared.sites.get(id(words))
    if site is None:
        site = shared.sites[id(words)] = _Site(words)
    base = dict(path.env)
    parts = []
    values = _Values()
    for index, word in enumerate(site.words):
        if type(word) is Sym:
            # a word joined from pieces (an XPK --command string of fifty optional parts): a part
            # per Choice among them, named by the keys of the tokens it writes, as in a flag string
            found, _ = shared.flag_parts(word, path, max(cap, PART_COMBINATIONS), values)
            for part in found:
                part.pieces = []  # its pieces are this word's, not the split words' string (_key_tokens)
            parts.extend(found)
        elif _is_symbolic(word):
            parts.append(_Part(_inputs(word), set(site.keys(index, base, max(cap, PART_COMBINATIONS))),
                               origin=_first_origin(word), values=[word]))
    flag_pieces = None
    if site.split is not None:
        found, flag_pieces = shared.flag_parts(site.split, path, max(cap, PART_COMBINATIONS), values)
        parts.extend(found)
    groups = _groups(parts, rule_names)
    concrete: list[_Words] = []  # made at the first words not made before

    def words_at(env: Mapping) -> tuple:
        # the words at the values of the inputs they read, made once whatever path or group asks:
        # the launches alike are one object, so their judgement is found without reading their origins
        key = (id(words), tuple([env.get(name) for name in site.read]))
        if key not in shared.argv_words:  # the words kept: their id stays their own
            if not concrete:
                concrete.append(_Words(words, base, shared.made))
            shared.argv_words[key] = (words, concrete[0].at(env))
        return shared.argv_words[key][1]

    argvs = [ConcreteArgv(words_at(base), path, excluded=frozenset().union(*(g.names for g in groups)))]
    for group in groups:
        for sub, owned in _group_paths(path, group, site.splits, explored, cap, judge, words_at, shared, flag_pieces):
            argvs.append(ConcreteArgv(words_at(sub.env), sub, **owned))
    return argvs


class _Site:
    """What a launch's words give whatever path reaches them: their symbolic words, the values of
    those bash splits as one flag string (_one_string), the value sets the Choices of both tell
    apart (_Splits), the inputs they read, and the keys each symbolic word sets at the values of
    the inputs it reads."""

    def __init__(self, words: Sequence):
        self.words = words
        symbolic = [w for w in words if _is_symbolic(w)]
        split = [w.value for w in words if type(w) is Split]
        self.split = _one_string(split) if split else None
        self.splits = _Splits([*symbolic, *split])
        self.read = sorted(set().union(*(_inputs(w) for w in (*symbolic, *split))))
        self._keys: dict[tuple, set] = {}

    def keys(self, index: int, base: Mapping, cap: int) -> set:
        """The keys the symbolic word at `index` sets in any of its own values (_own_assignments)."""
        word = self.words[index]
        key = (index, tuple([base.get(name) for name in sorted(_inputs(word))]), cap)
        if key not in self._keys:
            keys = set()
            for assignment in _own_assignments(word, base, cap):
                pick, read_input = _picker(base, assignment)
                value = resolve(word, pick, read_input)
                keys |= _word_keys("" if value is None else value.text)
            self._keys[key] = keys
        return self._keys[key]


def _one_string(values: list) -> Sym:
    """The values of the words bash splits, one string: their fields are its tokens."""
    blank = Value(" ", Spans.unwritten(1))
    pieces: list = []
    for value in values:
        if pieces:
            pieces.append(blank)
        pieces.extend(value.pieces if type(value) is Sym else (value,))
    return Sym(tuple(pieces))


def _word_keys(text: str) -> set:
    """The names a word sets: `key=…`, and the keys of the key=value words inside it when it holds
    a command line (an XPK `--command "… train.py base.yml ici_pipeline_parallelism=${STAGES}"`)."""
    keys = {text.split("=", 1)[0]}
    try:
        keys.update(token.text.split("=", 1)[0] for token in shell_words(text) if "=" in token.text)
    except InputError:
        pass
    return keys

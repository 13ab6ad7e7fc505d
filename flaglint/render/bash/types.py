"""The values the bash evaluator hands out, and its error."""

from __future__ import annotations

import bisect
import itertools
import re
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from flaglint.core.location import Location

# The text of a value that is not known here: an input's "something else", and the output of a
# command substitution this evaluator does not run. A MaxText key whose value holds it is not judged.
OTHER = "flaglint-other"


def preference(value: str | None) -> int:
    """How a witness prefers an input's value, lowest first: a non-empty literal, unset, empty,
    "anything else" (as a user would write it)."""
    return 1 if value is None else 3 if value.startswith(OTHER) else 2 if value == "" else 0

Origin = Location  # where a character of a rendered value was written: file, line, column, byte offset


class Spans(Sequence):
    """The origins of a value's characters, one Origin or None per character, kept as spans: a
    run (source, start, length) for characters one script wrote one after another (source None:
    characters no script wrote). An Origin is made only for a character that is read, so
    joining and slicing values costs their number of spans, not of characters. `source` is
    anything with .origin(index) (lexer.Source)."""

    __slots__ = ("_runs", "length", "_ends", "_parts")

    def __init__(self, runs: Iterable[tuple] = (), parts: list[Sequence] | None = None, length: int = 0, merged: bool = False):
        """`runs`; or `parts` (each a Spans or a sequence of Origins and None) of `length`
        characters in all, spanned only when first read. `merged`: the runs (a tuple, of `length`
        characters) are merged already, as _merged gives them."""
        self._parts = parts
        self._runs = None if parts is not None else runs if merged else _merged(runs)
        self.length = length if parts is not None or merged else sum(run[2] for run in self._runs)
        self._ends: list[int] | None = None

    @classmethod
    def unwritten(cls, length: int) -> Spans:
        """`length` characters no script wrote."""
        return cls(((None, 0, length),))

    @property
    def runs(self) -> tuple:
        if self._runs is None:
            self._runs = _merged(run for part in self._parts for run in _runs_of(part))
            self._parts = None
        return self._runs

    def __len__(self) -> int:
        return self.length

    def _run_at(self, index: int) -> int:
        if self._ends is None:
            self._ends = list(itertools.accumulate(run[2] for run in self.runs))
        return bisect.bisect_right(self._ends, index)

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(self.length)
            if step != 1:
                return list(self)[index]
            return Spans(self._between(start, stop))
        if index < 0:
            index += self.length
        if not 0 <= index < self.length:
            raise IndexError("origin index out of range")
        position = self._run_at(index)
        source, start, length = self.runs[position]
        offset = index - (self._ends[position] - length)
        return None if source is None else source.origin(start + offset)

    def _between(self, start: int, stop: int) -> Iterator[tuple]:
        at = 0
        for source, first, length in self.runs:
            low, high = max(start - at, 0), min(stop - at, length)
            if low < high:
                yield (source, first + low if source is not None else 0, high - low)
            at += length
            if at >= stop:
                break

    def __iter__(self):
        for source, start, length in self.runs:
            if source is None:
                yield from itertools.repeat(None, length)
            else:
                yield from map(source.origin, range(start, start + length))

    def __eq__(self, other) -> bool:
        if type(other) is Spans:
            return self.runs == other.runs
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(self.runs)

    def __repr__(self) -> str:
        return f"Spans({self.runs!r})"


def _merged(runs: Iterable[tuple]) -> tuple:
    """The runs with empty ones dropped and each one that continues the one before joined to it."""
    merged: list[tuple] = []
    for source, start, length in runs:
        if length <= 0:
            continue
        if source is None:
            start = 0  # characters no script wrote: where they start says nothing
        if merged:
            last_source, last_start, last_length = merged[-1]
            if last_source is source and (source is None or last_start + last_length == start):
                merged[-1] = (source, last_start, last_length + length)
                continue
        merged.append((source, start, length))
    return tuple(merged)


def _runs_of(origins: Sequence) -> Iterable[tuple]:
    if type(origins) is Spans:
        return origins.runs
    return [(None, 0, 1) if origin is None else (_Written(origin), 0, 1) for origin in origins]


class _Written:
    """The source of one character whose Origin is made already; one is another where their
    Origins are equal, so the same characters give the same runs however often they are joined."""

    __slots__ = ("made",)

    def __init__(self, made: Origin):
        self.made = made

    def origin(self, index: int) -> Origin:
        return self.made

    def __eq__(self, other) -> bool:
        return type(other) is _Written and self.made == other.made

    def __hash__(self) -> int:
        return hash(self.made)


def joined_origins(parts: Iterable[Sequence]):
    """The origins of values joined one after another, as spans (a part kept as a list of Origins
    gives a run per character). Each part's runs are merged already,
    so only where two parts meet are runs joined: a value that a loop grows costs its own runs."""
    parts = [part for part in parts if len(part)]
    if len(parts) == 1 and type(parts[0]) is Spans:
        return parts[0]
    runs: list[tuple] = []
    length = 0
    for part in parts:
        if type(part) is Spans:
            added = part.runs
        else:
            # characters kept one Origin each: spans of their own (a list here would walk every
            # character of the spans it is joined with, and of every value joined from it later)
            added = _merged(_runs_of(part))
        length += len(part)
        if runs:
            runs[-1:] = _merged((runs[-1], added[0]))
            runs.extend(added[1:])
        else:
            runs.extend(added)
    return Spans(tuple(runs), length=length, merged=True)


@dataclass
class Value:
    text: str
    origins: Sequence  # Spans, or a list of Origin | None: one per character; None: not a literal of a script
    opaque: bool = False  # some part comes from something the evaluator cannot know


# The Values that are parts of symbolic values, one per content (text, opacity, spans), and the ids
# of those alive: a part already in a symbolic value is found by its id, without reading it.
_VALUES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_CANONICAL: set[int] = set()


def _canonical(parts: tuple) -> tuple:
    """The parts, each Value with spans replaced by the one Value of its content."""
    ids = tuple(map(id, parts))
    fresh = set(ids) - _CANONICAL
    if not fresh:
        return parts
    by_id = dict(zip(ids, parts))
    swapped = {}
    for found in fresh:
        value = by_id[found]
        if type(value) is not Value or type(value.origins) is not Spans:
            continue
        key = (value.text, value.opaque, value.origins)
        same = _VALUES.get(key)
        if same is None:
            _VALUES[key] = same = value
            _CANONICAL.add(found)
            weakref.finalize(value, _CANONICAL.discard, found)
        if same is not value:
            swapped[found] = same
    if not swapped:
        return parts
    return tuple(map(swapped.get, ids, parts))  # each part, or the one Value of its content


class _Interned:
    """A symbolic value made once per content: building an equal one gives the same object (its
    parts are: a Value with spans one per content, every other part by construction), so a value
    that n joins grow is a graph of shared parts, and a walk that remembers the parts it has seen
    costs their number, not the number of ways down to them. Made ones are found by their parts'
    ids: the table entry goes when the value does, before any of its parts can."""

    __slots__ = ("chosen", "read", "__weakref__")  # chosen, read: _names(), once asked
    _table: weakref.WeakValueDictionary

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._table = weakref.WeakValueDictionary()

    @classmethod
    def _made(cls, key: tuple, fill) -> _Interned:
        found = cls._table.get(key)
        if found is None:
            found = object.__new__(cls)
            fill(found)
            found.chosen = found.read = None
            cls._table[key] = found
            _CANONICAL.add(id(found))
            weakref.finalize(found, _CANONICAL.discard, id(found))
        return found


class Choice(_Interned):
    """A value that depends on one input: the alternative whose value set holds the input's value
    (None in a set: unset). Made where two paths join that this input tells apart; an alternative
    may be a Choice on another input, where a guard over several inputs told them apart (guards.py)."""

    __slots__ = ("name", "alts")
    name: str
    alts: tuple  # ((frozenset of str | None, Value | Sym | Choice | list | None | FromInput), ...)

    def __new__(cls, name: str, alts: tuple):
        values, taken = zip(*alts) if alts else ((), ())
        taken = _canonical(taken)
        alts = tuple(zip(values, taken))

        def fill(made):
            made.name, made.alts = name, alts

        return cls._made((name, values, tuple(map(id, taken))), fill)

    def __repr__(self) -> str:  # one level: the value below may be a graph of 2**n ways down
        return f"Choice({self.name!r}, {[(sorted(values, key=str), _shallow(alt)) for values, alt in self.alts]!r})"


class Sym(_Interned):
    """A string joined from pieces, each a Value or a Choice (`X="${X} k=v"` after a join)."""

    __slots__ = ("pieces",)
    pieces: tuple

    def __new__(cls, pieces: tuple):
        pieces = _canonical(tuple(pieces))

        def fill(made):
            made.pieces = pieces

        return cls._made(tuple(map(id, pieces)), fill)

    def __repr__(self) -> str:  # one level, as Choice's
        return f"Sym({[_shallow(piece) for piece in self.pieces]!r})"


def _shallow(part) -> object:
    """A part as repr shows it: a Value's text, a symbolic part's kind."""
    if type(part) is Value:
        return part.text
    if type(part) in (Choice, Sym):
        return f"<{type(part).__name__}>"
    return part


@dataclass(frozen=True)
class FromInput:
    """The alternative of a variable that one joined path never assigned: it reads the input."""

    name: str


@dataclass(frozen=True)
class Split:
    """An unquoted word of a launched program whose joined (symbolic) value may hold blanks: bash
    splits it into as many fields as its value has (none where it is empty). Kept whole, so a
    launch after n joins that expands `$FLAGS` is one launch, not 2**n paths; its fields are made
    where its inputs are decided (ifs_fields)."""

    value: object  # Sym | Choice


_IFS_FIELD = re.compile(r"[^ \t\n]+")


class ElementBreak(Location):
    """The origin of the blank written before each element of a Split that holds an array's
    elements whole (expansion: command_elements): the value's fields are cut there, and there only,
    so an element keeps its own blanks and an empty one is a field, as in `"${CMD[@]}"`."""

    __slots__ = ()


ELEMENT_BREAK = ElementBreak(None, 0, 0)


def ifs_fields(value: Value | None) -> list[Value]:
    """The fields of a Split's value: each run of characters that are not a blank, tab or newline
    (bash's splitting with the default IFS); in a value that holds element breaks, the characters
    after each break up to the next. Origins are sliced, never read one by one."""
    if value is None:
        return []
    breaks = _break_positions(value.origins) if " " in value.text else []
    if breaks:
        ends = [*breaks[1:], len(value.text)]
        return [Value(value.text[start + 1:end], value.origins[start + 1:end], value.opaque) for start, end in zip(breaks, ends)]
    return [Value(m.group(), value.origins[m.start():m.end()], value.opaque) for m in _IFS_FIELD.finditer(value.text)]


def _break_positions(origins: Sequence) -> list[int]:
    """Where the characters whose origin is an element break are."""
    if type(origins) is not Spans:
        return [i for i, origin in enumerate(origins) if type(origin) is ElementBreak]
    found, at = [], 0
    for source, _, length in origins.runs:
        if type(source) is _Written and type(source.made) is ElementBreak:
            found.extend(range(at, at + length))
        at += length
    return found


def parts_of(value) -> list:
    """The symbolic parts of a value, each once (children before the parts that hold them), found
    without recursion however deep the value nests."""
    found: list = []
    seen: set[int] = set()
    stack = [(value, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            found.append(node)
            continue
        if type(node) not in (Choice, Sym, FromInput) or id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        children = node.pieces if type(node) is Sym else [alt for _, alt in node.alts] if type(node) is Choice else ()
        stack.extend((child, False) for child in reversed(children))
    return found


def _names(value) -> tuple[frozenset, frozenset]:
    """The inputs whose Choices a value holds, and those it reads whole (FromInput): one walk over
    its distinct parts, remembered on the value asked about (a part's own sets would cost the
    square of a deep value's size)."""
    if type(value) is FromInput:
        return frozenset(), frozenset((value.name,))
    if type(value) not in (Choice, Sym):
        return frozenset(), frozenset()
    if value.chosen is None:
        found = parts_of(value)
        value.chosen = frozenset(part.name for part in found if type(part) is Choice)
        value.read = frozenset(part.name for part in found if type(part) is FromInput)
    return value.chosen, value.read


def choice_names(value) -> frozenset:
    """The inputs whose Choices a (possibly symbolic) value depends on."""
    return _names(value)[0]


def read_names(value) -> frozenset:
    """The inputs a (possibly symbolic) value reads whole (FromInput) on some alternative."""
    return _names(value)[1]


def resolve(value, pick, read_input):
    """The concrete value: `pick(choice)` gives the alternative taken at each Choice, and
    `read_input(name)` the value of an input a path left unassigned. Without recursion: a value
    nested however deep resolves."""

    def decided(value):
        while True:
            if type(value) is Choice:
                value = pick(value)
            elif type(value) is FromInput:
                value = read_input(value.name)
            else:
                return value

    value = decided(value)
    if type(value) is not Sym:
        return value
    texts, origins, opaque = [], [], False
    stack = [iter(value.pieces)]
    while stack:
        piece = next(stack[-1], _END)
        if piece is _END:
            stack.pop()
            continue
        piece = decided(piece)
        if type(piece) is Sym:
            stack.append(iter(piece.pieces))
        elif piece is not None:
            texts.append(piece.text)
            origins.append(piece.origins)
            opaque = opaque or piece.opaque
    return Value("".join(texts), joined_origins(origins), opaque)


_END = object()


class CounterOrigin(Location):
    """Where the characters of a loop counter summarised over its passes come from (machine:
    counted loops): the loop's header. The machine watches where a value holding them is read."""

    __slots__ = ()


def counter_value(file: str, line: int) -> Value:
    """The counter of the loop whose header is at FILE:LINE on any of the passes it summarises:
    a value not known here."""
    return Value(OTHER, [CounterOrigin(file, line, 1)] * len(OTHER), True)


def holds_counter(value) -> bool:
    """Whether a variable's value (a Value, an array, or a joined value) holds characters of a
    summarised counter (counter_value). Shared parts are read once."""
    todo, seen = [value], set()
    while todo:
        current = todo.pop()
        kind = type(current)
        if kind is Value:
            origins = current.origins
            if type(origins) is Spans:
                if any(type(run[0]) is _Written and type(run[0].made) is CounterOrigin for run in origins.runs):
                    return True
            elif any(type(origin) is CounterOrigin for origin in origins):
                return True
        elif kind in (list, tuple, Sym, Choice) and id(current) not in seen:
            seen.add(id(current))
            todo.extend(current if kind in (list, tuple) else current.pieces if kind is Sym else (alt for _, alt in current.alts))
    return False


@dataclass(frozen=True)
class Note:
    file: str
    line: int
    message: str


class ScriptError(Exception):
    """A script that cannot be evaluated: unreadable, not UTF-8, or with a syntax error."""

    def __init__(self, file: str, line: int, message: str, column: int = 1):
        super().__init__(f"{file}:{line}:{column}: {message}" if line else f"{file}: {message}")
        self.file = file
        self.line = line
        self.column = column
        self.message = message


class TooDeep(ScriptError):
    """A script nested deeper than the evaluator follows: what it launches is not verified (FL011)."""


class LaunchRecogniser(Protocol):
    """What the machine is told of the programs it never runs: which commands it keeps as launches
    (Rendering.launched), and which variables of their environment it keeps with them."""

    def may_launch(self, program: str, arguments: Sequence[str | None] = ()) -> bool:
        """Whether a command that runs `program` (a name or a path) with `arguments` (None: a word
        not known here) may start the launched program."""

    def reads_variable(self, name: str) -> bool:
        """Whether the launched program reads this variable of its environment."""

    def has_default(self, name: str) -> bool:
        """Whether what the script launches gives this variable a meaning of its own where it is
        unset (its flags, a variable its launcher or trainer reads): a script that reads it
        without setting it leaves it to that default, never to its caller (explorer.Candidates)."""

    def unwrap(self, words: Sequence[str | None]) -> Unwrapped | None:
        """When words[0] is a wrapper (`nice -n 5`, `timeout 1h`, `env K=V`): where the command it
        runs starts, and how it changes that command's environment; None otherwise (None in
        words: a word whose text is not known)."""


class Unwrapped(Protocol):
    """What a wrapper does to the command it runs (LaunchRecogniser.unwrap)."""

    start: int  # the index of the word the command starts at
    assigned: tuple[int, ...]  # the indices of the NAME=VALUE words it sets in the command's environment
    unset: tuple[str, ...]  # the names it removes from that environment
    cleared: bool  # the command starts with an empty environment


@dataclass(frozen=True)
class Launch:
    """A command line of another program the script would run (one that may start the launched
    program, or a `bash -c` or `eval` string that may hold one): its words as fields, and the
    variables of its environment the launched program reads."""

    file: str
    line: int
    words: tuple  # tuple[Value, ...]
    env: dict  # dict[str, Value]
    files: dict = field(default_factory=dict)  # dict[str, Value]: the files the script wrote before it (cat <<EOF > FILE)
    assigned: dict = field(default_factory=dict)  # dict[str, Value | None]: what its own command line sets (`K=V cmd`, `env K=V cmd`; None: `env -u K`)
    summarised: bool = False  # made on a loop's summarised passes: it stands for one launch a pass (machine: counted loops)


def alike(a, b) -> bool:
    """Whether two of the machine's values (and the tuples, lists, dicts and Launches that hold
    them) hold the same content: joined values built apart from parts of equal content are alike,
    though not one object (a part whose origins are a list is not interned). Without recursion,
    each pair of shared parts compared once."""
    todo, seen = [(a, b)], set()
    while todo:
        x, y = todo.pop()
        if x is y or (id(x), id(y)) in seen:
            continue
        seen.add((id(x), id(y)))
        kind = type(x)
        if kind is not type(y):
            return False
        if kind is Sym:
            if len(x.pieces) != len(y.pieces):
                return False
            todo.extend(zip(x.pieces, y.pieces))
        elif kind is Choice:
            if x.name != y.name or [v for v, _ in x.alts] != [v for v, _ in y.alts]:
                return False
            todo.extend((p, q) for (_, p), (_, q) in zip(x.alts, y.alts))
        elif kind in (tuple, list):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y))
        elif kind is dict:
            if x.keys() != y.keys():
                return False
            todo.extend((x[k], y[k]) for k in x)
        elif kind is Launch:
            if (x.file, x.line, x.summarised) != (y.file, y.line, y.summarised):
                return False
            todo.extend([(x.words, y.words), (x.env, y.env), (x.files, y.files), (x.assigned, y.assigned)])
        elif kind is Split:
            todo.append((x.value, y.value))
        elif x != y:
            return False
    return True


@dataclass
class Rendering:
    exported: dict  # dict[str, Value]: the final exported variables
    variables: dict  # dict[str, Value]: every final shell variable
    notes: list = field(default_factory=list)  # list[Note]
    script: str = ""  # the file whose final state this is
    handoffs: list = field(default_factory=list)  # list[Rendering]: scripts run with `bash other.sh`
    status: int = 0  # the exit status: a non-zero one launches nothing
    branches: list = field(default_factory=list)  # (file, line) of each if/elif/else arm and case item taken
    unfound: list = field(default_factory=list)  # list[Note]: scripts run or sourced that cannot be found
    unbounded: Note | None = None  # the construct evaluation did not get past; nothing after it is known
    launched: list = field(default_factory=list)  # list[Launch]: the command lines kept as launches, in order

"""The values the bash evaluator hands out, and its error."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from flaglint.core.location import Location

# The text of a value that is not known here: an input's "something else", and the output of a
# command substitution this evaluator does not run. A MaxText key whose value holds it is not judged.
OTHER = "flaglint-other"

Origin = Location  # where a character of a rendered value was written: file, line, column, byte offset


@dataclass
class Value:
    text: str
    origins: list  # list[Origin | None], one per character; None: not a literal of a script
    opaque: bool = False  # some part comes from something the evaluator cannot know


@dataclass(frozen=True, eq=False)
class Choice:
    """A value that depends on one input: the alternative whose value set holds the input's value
    (None in a set: unset). Made where two paths join that this input tells apart; an alternative
    may be a Choice on another input, where a guard over several inputs told them apart (guards.py)."""

    name: str
    alts: tuple  # ((frozenset of str | None, Value | Sym | Choice | list | None | FromInput), ...)


@dataclass(frozen=True, eq=False)
class Sym:
    """A string joined from pieces, each a Value or a Choice (`X="${X} k=v"` after a join)."""

    pieces: tuple


@dataclass(frozen=True)
class FromInput:
    """The alternative of a variable that one joined path never assigned: it reads the input."""

    name: str


def choice_names(value, into: set | None = None) -> set:
    """The inputs a (possibly symbolic) value depends on."""
    into = set() if into is None else into
    if type(value) is Choice:
        into.add(value.name)
        for _, alt in value.alts:
            choice_names(alt, into)
    elif type(value) is Sym:
        for piece in value.pieces:
            choice_names(piece, into)
    return into


def resolve(value, pick, read_input):
    """The concrete value: `pick(choice)` gives the alternative taken at each Choice, and
    `read_input(name)` the value of an input a path left unassigned."""
    while True:
        if type(value) is Choice:
            value = pick(value)
        elif type(value) is FromInput:
            value = read_input(value.name)
        else:
            break
    if type(value) is Sym:
        text, origins, opaque = [], [], False
        for piece in value.pieces:
            part = resolve(piece, pick, read_input)
            if part is None:
                continue
            text.append(part.text)
            origins.extend(part.origins)
            opaque = opaque or part.opaque
        return Value("".join(text), origins, opaque)
    return value


@dataclass(frozen=True)
class Note:
    file: str
    line: int
    message: str


class ScriptError(Exception):
    """A script that cannot be evaluated: unreadable, not UTF-8, or with a syntax error."""

    def __init__(self, file: str, line: int, message: str):
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message


class LaunchRecogniser(Protocol):
    """What the machine is told of the programs it never runs: which commands it keeps as launches
    (Rendering.launched), and which variables of their environment it keeps with them."""

    def may_launch(self, program: str) -> bool:
        """Whether a command that runs `program` (a name or a path) may start the launched program."""

    def reads_variable(self, name: str) -> bool:
        """Whether the launched program reads this variable of its environment."""

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

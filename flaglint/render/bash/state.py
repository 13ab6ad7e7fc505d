"""The state of one path through a script: variables, frames, what it has read, noted and launched."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from flaglint.render.bash.types import OTHER, FromInput

ARGUMENT_COUNT = "$#"  # the input that is how many arguments the script is given


def argument_input(index: int) -> str:
    """The input that is the script's argument `index` (`$1`)."""
    return f"${index}"


def file_test_input(op: str, path: str) -> str:
    """The input that is whether a file test (`[ -d PATH ]`) holds where the script runs, on a path
    outside the recipe's own tree: set where it holds, unset where not."""
    return f"[ {op} {path} ]"


def is_file_test(name: str) -> bool:
    """Whether an input is a file test (file_test_input), never a variable of the environment."""
    return name.startswith("[ ")


def is_argument(name: str) -> bool:
    """Whether an input is the script's argument count or one of its arguments (never a variable)."""
    return name.startswith("$")


def option_input(index: int, arm: int, count: int, valued: tuple = ()) -> str:
    """The input that is word `index` (1: the option itself) of the arm at line `arm` of an options
    loop (`while [[ $# -gt 0 ]]; do case "$1" in …`), an arm that takes `count` words: where the
    script's arguments are not given, each arm is an option a run gives or not, apart from the
    others (its first word unset where not), in the order of the arms (compiler.OptionArms).
    `valued`: where arms that set one variable are one option, the words of theirs that take a
    value (`--image` of `--image) IMAGE="$2"` beside `--image=*) …`), the others taking none."""
    return f"${index}@{arm}/{count}" + (f"[{'|'.join(valued)}]" if valued else "")


def is_option(name: str) -> bool:
    """Whether an input is a word of an options loop's arm (option_input)."""
    return name.startswith("$") and "@" in name


OPTION_INPUT = re.compile(r"\$(\d+)@(\d+)/(\d+)(?:\[([^\]]*)\])?")  # option_input's names


def option_arguments(options: Mapping[str, str | None]) -> list[str]:
    """The script's arguments of a run that gives these options (option_input's values): each arm
    whose option is set, in the arms' order, with the words it takes (OTHER where one is not known)."""
    arms: dict[tuple, dict[int, str | None]] = {}
    for name, value in options.items():
        m = OPTION_INPUT.fullmatch(name)
        arms.setdefault((int(m[2]), int(m[3]), m[4]), {})[int(m[1])] = value
    out: list[str] = []
    for (_, count, valued), words in sorted(arms.items(), key=lambda item: item[0][:2]):
        first = words.get(1)
        if first is None:
            continue
        taken = count if valued is None else 2 if first in valued.split("|") else 1
        out.extend(OTHER if words.get(i) is None else words[i] for i in range(1, taken + 1))
    return out


def input_label(name: str) -> str:
    """An input as a finding names it: an option's words by the line of their arm."""
    m = OPTION_INPUT.fullmatch(name)
    if m is None:
        return name
    return f"the argument matched at line {m[2]}" if m[1] == "1" else f"the value after the argument matched at line {m[2]}"


class NeedInput(Exception):
    """A step read an input whose value the path has not decided yet. `groups`: where the step
    treats some of the candidates alike (whether a value is empty), those classes: the path forks
    once per class, not once per value."""

    def __init__(self, name: str, candidates: tuple, groups: tuple | None = None):
        super().__init__(name)
        self.name = name
        self.candidates = candidates
        self.groups = groups

    def classes(self) -> tuple:
        """The candidates in the classes the path forks into."""
        return self.groups if self.groups is not None else tuple((v,) for v in self.candidates)


@dataclass(frozen=True)
class UnknownArguments:
    """The positional parameters of a script whose arguments are not given: inputs, like its
    environment. Their count is the input `$#` and each one the input `$N`; a path decides them
    when it reads them (Expansion.positional)."""


UNKNOWN_ARGUMENTS = (UnknownArguments(),)


def settled_positional(st: State) -> tuple:
    """The positional parameters, the script's arguments as inputs once the path has decided how
    many there are: two paths that agree on them then look alike (symbolic merges them)."""
    if st.positional == UNKNOWN_ARGUMENTS and ARGUMENT_COUNT in st.inputs:
        count = int(st.inputs[ARGUMENT_COUNT].text)
        return tuple(FromInput(argument_input(index)) for index in range(1, count + 1))
    return st.positional


def words_read(st: State) -> frozenset:
    """The script's arguments the path holds values of (read, or narrowed), less an options
    loop's and their count."""
    return frozenset(name for name in (*st.inputs, *st.domains) if is_argument(name) and not is_option(name) and name != ARGUMENT_COUNT)


class State:
    __slots__ = ("scopes", "exported", "functions", "positional", "code", "pc", "stack", "status",
                 "inputs", "domains", "condition", "notes", "branches", "handoffs", "iters", "steps", "done", "exit_code",
                 "unfound", "unbounded", "output", "launched", "options", "errexit_ignored", "files", "env_exported",
                 "widened", "count_read")

    def __init__(self):
        self.count_read = None  # what a fork's count test read (arrays.CountRead), kept for its states

    def copy(self) -> "State":
        s = State.__new__(State)
        s.scopes = [d.copy() for d in self.scopes]
        s.exported = self.exported.copy()
        s.functions = self.functions  # replaced, never changed in place
        s.positional = self.positional
        s.code = self.code
        s.pc = self.pc
        s.stack = self.stack.copy()
        s.status = self.status
        s.inputs = self.inputs.copy()
        s.domains = self.domains.copy()
        s.condition = self.condition  # replaced, never changed in place
        s.notes = self.notes
        s.branches = self.branches
        s.handoffs = self.handoffs
        s.iters = self.iters.copy()
        s.steps = self.steps
        s.done = self.done
        s.exit_code = self.exit_code
        s.unfound = self.unfound
        s.unbounded = self.unbounded
        s.output = self.output
        s.launched = self.launched
        s.options = self.options
        s.errexit_ignored = self.errexit_ignored
        s.files = self.files  # replaced, never changed in place
        s.env_exported = self.env_exported
        s.widened = self.widened
        s.count_read = self.count_read  # (arrays.CountRead: replaced, never changed in place)
        return s

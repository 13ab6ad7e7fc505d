"""The state of one path through a script: variables, frames, what it has read, noted and launched."""

from __future__ import annotations

from dataclasses import dataclass

from flaglint.render.bash.types import FromInput

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


class State:
    __slots__ = ("scopes", "exported", "functions", "positional", "code", "pc", "stack", "status",
                 "inputs", "domains", "condition", "notes", "branches", "handoffs", "iters", "steps", "done", "exit_code",
                 "unfound", "unbounded", "output", "launched", "options", "errexit_ignored", "files", "env_exported")

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
        return s

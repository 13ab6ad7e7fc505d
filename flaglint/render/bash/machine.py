"""The machine that runs compiled bash on a State: variables, stepping, frames, calls and launches.
Expansion, conditions and builtins are its parts (mixins), each in its own module."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from flaglint.core.reading import SCRIPT, Unreadable, names_a_file, regular_file
from flaglint.render.bash.arrays import factored, has_absent, may_be_absent
from flaglint.render.bash.builtins import BUILTINS, Builtins, shell_operand
from flaglint.render.bash.compiler import (
    ArithCmd,
    ArmArguments,
    Assign,
    Branch,
    Case,
    Code,
    Command,
    ForInit,
    ForNext,
    FuncDef,
    Join,
    Jump,
    JumpIf,
    Negate,
    NoteInstr,
    OptionArms,
    OptionGiven,
    PipeEnd,
    PipeStage,
    SetStatus,
    Subshell,
    Test,
    Unset,
    WriteFile,
    compile_file,
    compile_text,
)
from flaglint.render.bash.conditions import Conditions
from flaglint.render.bash.counted import CAPTURED, KEEPING, CountedLoops, CounterRead
from flaglint.render.bash.expansion import (
    AbortCommand,
    ExitScript,
    Expansion,
    glob_pieces,
    input_value,
    is_symbolic,
    join_segments,
    plain_variable,
    segment,
    split_words,
)
from flaglint.render.bash.guards import forget
from flaglint.render.bash.lead import leading_words
from flaglint.render.bash.lexer import Lit, Param
from flaglint.render.bash.state import (
    ARGUMENT_COUNT,
    UNKNOWN_ARGUMENTS,
    NeedInput,
    State,
    argument_input,
    is_argument,
    is_file_test,
    is_option,
    settled_positional,
    words_read,
)
from flaglint.render.bash.types import (
    Choice,
    FromInput,
    Launch,
    LaunchRecogniser,
    Note,
    Rendering,
    Spans,
    Split,
    Sym,
    Value,
    choice_names,
    read_names,
    resolve,
)

UNSET = None  # a scope entry that is declared but unset
_NOT_READ = Value("", [], True)  # a joined value a launch's line assigns and its program never reads
STEP_LIMIT = 200_000
ARRAY_LIMIT = 2**14  # elements of one array: arrays are held whole, and a recipe's hold a few hosts or flags
# Characters of one value: the most Linux hands a program as one argument or variable (MAX_ARG_STRLEN),
# so a longer one reaches no launch; a loop that grows a value without end stops here.
VALUE_LIMIT = 128 * 1024
# Pieces of one value (runs of characters one script wrote one after another): a loop that appends a
# few characters each time costs its pieces at each step, so it stops here.
PIECE_LIMIT = 2**14
CALL_DEPTH_LIMIT = 1_000  # functions, subshells and sourced files inside one another (bash recursing without end crashes)
SHELLS = ("bash", "sh")
DEFAULT_IFS = (" \t\n", " ")  # IFS values that split words on blanks, as flaglint splits them
NESTING_LIMIT = 8  # how deep one file may run inside itself (a sourced file that sources itself, guarded)


def _joined(old, new):
    """old followed by new, either of them symbolic."""
    if not (is_symbolic(old) or is_symbolic(new)):
        return join_segments([segment(old, True), segment(new, True)])
    pieces = []
    for v in (old, new):
        pieces.extend(v.pieces if type(v) is Sym else (v,))
    return Sym(tuple(pieces))


def _size(value) -> tuple[int, int]:
    """A scalar's characters, and the pieces it is joined from (runs of characters one script wrote
    one after another, or a joined value's parts)."""
    if type(value) is Value:
        return len(value.text), len(value.origins.runs) if type(value.origins) is Spans else 1
    if type(value) is Sym:
        return sum(len(piece.text) for piece in value.pieces if type(piece) is Value), len(value.pieces)
    return 0, 0


def _forwards_arguments(words: list) -> bool:
    """Whether the words are `"$@"` alone: the positional parameters handed on as they are."""
    if len(words) != 1:
        return False
    parts = [p for p in words[0].parts if not (type(p) is Lit and p.text == "")]
    return (len(parts) == 1 and type(parts[0]) is Param and parts[0].name == "@" and parts[0].quoted
            and not parts[0].op and parts[0].index is None and not parts[0].length)


def _hands_on_an_argument(word) -> bool:
    """Whether the word is one of the script's arguments, or all of them, alone (`"$1"`, `${2:-x}`,
    `"$@"`): a script run with it compares what the script was given."""
    parts = [p for p in word.parts if not (type(p) is Lit and p.text == "")]
    return (len(parts) == 1 and type(parts[0]) is Param and not parts[0].indirect
            and (parts[0].name in ("@", "*") or parts[0].name.isdigit() and parts[0].name != "0"))


def _all_elements(word):
    """The parameter of a word that is `"$@"`, `"$*"`, `"${A[@]}"` or `"${A[*]}"` alone; None for
    any other word."""
    parts = [p for p in word.parts if not (type(p) is Lit and p.text == "")]
    if len(parts) != 1 or type(parts[0]) is not Param:
        return None
    p = parts[0]
    if not p.quoted or p.op or p.length or p.indirect:
        return None
    whole = p.name in ("@", "*") and p.index is None or (p.name[0].isalpha() or p.name[0] == "_") and p.index in ("@", "*")
    return p if whole else None


def _find_repo_root(path: str) -> str | None:
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


# Interp._loop_words: the path's arguments are not an options loop's to take apart
_AS_WRITTEN = object()
# State.iters: the script's arguments a path read before an options loop took the others apart
_WORDS_BEFORE_OPTIONS = ("words before options",)


class Interp(Expansion, Conditions, Builtins, CountedLoops):
    """Runs compiled bash on a State. `launches` says which commands it keeps as launches;
    `candidates` gives the values an unread input may take."""

    def __init__(self, script: str, launches: LaunchRecogniser, candidates=None, text: bytes | None = None):
        """`text`: the script's bytes, when `script` is a virtual path (nothing is read from it)."""
        self.script = script
        self.launches = launches
        self.text = text
        self.repo_root = _find_repo_root(script) if text is None else None
        self.candidates = candidates  # callable(name) -> tuple of str | None; None: inputs are unset
        self.grouping = False  # the explorer steps one state on each class of an input's values (Explorer._fork_in_place)
        # Paths that join are merged (symbolic.evaluate): a value may then be guarded on inputs the
        # path has not decided (a Choice), instead of forking the path on them.
        self.joins = False
        self.files: dict[str, object] = {}
        # The files whose top-level positional parameters may be the script's own arguments: the
        # script, what it sources, and a script it runs with an argument handed on whole (`"$@"`,
        # `"$1"`); a script run with words of its own (`--target="$1"`) compares its own.
        self.argument_files: set[str] = set()
        self.on_load = None  # called where a file is first loaded, or first shares the arguments
        self.line = 0  # the line of the instruction being run, for notes
        self._literal_fields: dict[int, tuple] = {}  # id(word) -> (word, fields); Values never change
        self._case_arms: dict[int, tuple] = {}  # id(Case) -> (Case, exact patterns, other patterns): _arms

    # ---- setup ----
    def load(self, path: str, shares_arguments: bool = True):
        if path == os.path.abspath(self.script):
            path = self.script  # the script sourcing itself: its words keep the origins the script's have
        compiled = compile_text(path, self.text) if path == self.script and self.text is not None else compile_file(path)
        new = path not in self.files or shares_arguments and path not in self.argument_files
        self.files[path] = compiled
        if shares_arguments:
            self.argument_files.add(path)
        if new and self.on_load is not None:
            self.on_load()
        return compiled

    def start(self, env: dict[str, str], args: Sequence[str] | None = ()) -> State:
        """The state before the script's first command: `env` its environment, `args` its
        arguments (None: not given, so they are inputs like the environment's variables)."""
        compiled = self.load(self.script)
        st = State()
        st.scopes = [{k: input_value(v) for k, v in env.items()}]
        st.exported = set(env)
        st.functions = {}
        st.positional = UNKNOWN_ARGUMENTS if args is None else tuple(input_value(a) for a in args)
        st.code = compiled.code
        st.pc = 0
        st.stack = []
        st.status = 0
        st.inputs = {}
        st.domains = {}
        st.condition = None  # several inputs' values together (guards); None: the product of domains
        st.notes = ()
        st.branches = ()
        st.handoffs = ()
        st.iters = {}
        st.steps = 0
        st.done = False
        st.exit_code = 0
        st.unfound = ()  # Notes: the scripts and files the path runs or sources that cannot be found
        st.unbounded = None  # a Note: the construct the path did not get past (a loop beyond the step limit)
        st.output = None  # inside $(fn): the (text, origins) pieces echo and printf write (printf.OPAQUE_OUTPUT: not known)
        st.launched = ()  # Launches: the command lines the path keeps as launches (never run here)
        st.options = frozenset()  # `set -e` (e), `set -u` (u) and `set -o pipefail` (pipefail) in force
        st.errexit_ignored = None  # the stack depth from which `set -e` is ignored: a function or subshell run as a condition
        st.files = {}  # path -> Value: the files the path has written (WriteFile), for the commands that read them
        # Exported on some of the joined paths and never touched on the others, where bash exports
        # it only if the environment set it: an assignment that would tell these apart stops the path.
        st.env_exported = frozenset()
        st.widened = None  # the counted loop whose passes the path runs summarised (counted.CountedLoops)
        return st

    # ---- variables ----
    def lookup(self, st: State, name: str):
        """The variable's value (a Value, a list of Values for an array, or None when unset)."""
        for scope in reversed(st.scopes):
            if name in scope:
                value = self.concrete(st, scope[name])
                if type(value) is list:  # an array's elements may be symbolic (array_fields)
                    if not has_absent(value):
                        return [self.concrete(st, element) for element in value]
                    elements = [(element, self.concrete(st, element)) for element in value]
                    return [found for element, found in elements if found is not None or not may_be_absent(element)]
                return value
        return self._input(st, name)

    def concrete(self, st: State, value):
        """A stored value as this path sees it: a joined (symbolic) one is decided here (it may fork)."""
        if type(value) is Choice or type(value) is Sym:
            return resolve(value, lambda c: self._pick(st, c), lambda n: self._input(st, n))
        return value

    def _decided(self, st: State, value):
        """A stored value as this path sees it where the path has decided it; else as stored."""
        try:
            return self.concrete(st, value)
        except NeedInput:
            return value

    def raw(self, st: State, name: str):
        """The variable's value as stored: a Choice or Sym stays symbolic."""
        for scope in reversed(st.scopes):
            if name in scope:
                return scope[name]
        return FromInput(name)

    def _pick(self, st: State, choice: Choice):
        """The alternative of `choice` this path takes; NeedInput when the path has not decided."""
        name = choice.name
        if name in st.inputs:
            v = st.inputs[name]
            domain = (None if v is None else v.text,)
        else:
            domain = st.domains.get(name)
            if domain is None:
                domain = self.candidates(name) if self.candidates else (None,)
        taken = [alt for values, alt in choice.alts if not values.isdisjoint(domain)]
        if len(taken) == 1:
            return taken[0]
        if not taken:  # a value no joined path took (a domain that grew later): the first alternative
            return choice.alts[0][1]
        raise NeedInput(name, tuple(domain))

    def _input(self, st: State, name: str):
        if name in st.inputs:
            return st.inputs[name]
        if name == "BASH_SOURCE":
            return Value(st.code.src.path, [None] * len(st.code.src.path))
        cands = st.domains.get(name)
        if cands is None:
            cands = self.candidates(name) if self.candidates else (None,)
        if len(cands) != 1:
            raise NeedInput(name, cands)
        return self.decide(st, name, cands[0])

    def decide(self, st: State, name: str, text: str | None) -> Value | None:
        v = input_value(text)
        st.inputs[name] = v
        if v is not None and not is_argument(name) and not is_file_test(name):
            st.exported.add(name)
        return v

    def scalar(self, st: State, name: str) -> Value | None:
        v = self.lookup(st, name)
        if isinstance(v, list):
            return v[0] if v else None
        return v

    def assign(self, st: State, name: str, value, local: bool = False) -> None:
        if local and len(st.scopes) > 1:
            st.scopes[-1][name] = value
            return
        if name in st.env_exported and value is not UNSET and not self._is_local(st, name):
            self.stop(st, self.line, f"{name} is exported on some of the paths that join before line {self.line} and left"
                      " to the environment on the others: whether bash exports what line"
                      f" {self.line} assigns is not followed")
            return
        group = st.domains.get(name)
        for scope in reversed(st.scopes):
            if name in scope:
                # Assigned as an input (below) or not, it is stored alike unless the path holds the
                # input's values grouped: only then is it asked whether the path reads the input's
                # own value, which forks the path on the joined value's Choices.
                if (scope is not st.scopes[0] or value is UNSET or group is None or name in st.inputs
                        or not self._reads_input(st, scope[name])):
                    scope[name] = value
                    return
                break  # a joined path that never assigned it: assigned now, as an input
        if value is not UNSET and group is not None and name not in st.inputs:
            if None in group and len(group) > 1:
                raise NeedInput(name, group)  # whether it stays exported depends on whether it was set
            if None not in group:
                st.exported.add(name)  # set in the environment on every value of the path: exported
        st.scopes[0][name] = value

    def _reads_input(self, st: State, value) -> bool:
        """Whether a stored (joined) value is, on this path, the input's own (FromInput)."""
        while type(value) is Choice:
            value = self._pick(st, value)
        return type(value) is FromInput

    def _is_local(self, st: State, name: str) -> bool:
        return any(name in scope for scope in st.scopes[1:])

    def note(self, st: State, line: int, message: str) -> None:
        st.notes = st.notes + (Note(st.code.src.path, line, message),)

    def stop(self, st: State, line: int, why: str) -> None:
        """The path meets a construct it does not get past (a bound of the evaluator's): nothing
        after it is known (FL011 at `line`)."""
        st.unbounded = Note(st.code.src.path, line, f"{why}; the rest of the script is not evaluated")
        st.notes = st.notes + (st.unbounded,)
        st.done = True

    def _too_large(self, st: State, name: str, values: list, line: int, elements: int = 0) -> bool:
        """Whether `name`'s new values (and its `elements`, for an array) are past what the evaluator
        holds; if so the path stops there."""
        if elements > ARRAY_LIMIT:
            self.stop(st, line, f"the array {name} grows past {ARRAY_LIMIT:,} elements at line {line}")
            return True
        for characters, pieces in map(_size, values):
            if characters > VALUE_LIMIT:
                self.stop(st, line, f"{name} grows past {VALUE_LIMIT:,} characters at line {line}, the most Linux hands"
                          " a program as one argument or variable (MAX_ARG_STRLEN)")
                return True
            if pieces > PIECE_LIMIT:
                self.stop(st, line, f"{name} grows past {PIECE_LIMIT:,} pieces at line {line} (a loop that appends to it"
                          " with no end)")
                return True
        return False

    # ---- stepping ----
    def run(self, st: State) -> None:
        while not st.done:
            self.step(st)

    def step(self, st: State) -> None:
        code = st.code
        depth = len(st.stack)
        if st.pc >= len(code.instrs):
            self.leave(st)
            self._returned(st, depth)
            return
        st.steps += 1
        instr = code.instrs[st.pc]
        self.line = getattr(instr, "line", self.line)
        if st.steps > STEP_LIMIT:
            self.stop(st, self.line, f"the loop around line {self.line} does not end within {STEP_LIMIT:,} steps")
            return
        try:
            _DISPATCH[type(instr)](self, instr, st)
        except ExitScript:
            if self.grouping:  # the explorer tries values on a state it shares: it forks instead
                raise
            self.exit(st, 1)
        except AbortCommand:
            self.abort(st)
        except CounterRead:
            if self.grouping or st.widened is CAPTURED:  # the path that shares the state, or captures the output, goes back
                raise
            self.unsummarised(st)
            return
        else:
            if len(st.stack) == depth and st.code is code and instr.checked:
                self._errexit(st)
            if len(st.stack) > depth:  # a function, sourced file or subshell begins
                if not instr.checked and not getattr(instr, "stage", False) and st.errexit_ignored is None:
                    st.errexit_ignored = len(st.stack)  # run as a condition: `set -e` is ignored inside
            elif len(st.stack) < depth:
                self._returned(st, depth)
        if st.widened is not None:
            self.check_summary(st)

    def _returned(self, st: State, depth: int) -> None:
        """A frame ended (a function returned, a subshell or sourced file ended): the command that
        ran it gets its status, which `set -e` looks at."""
        while True:
            if st.errexit_ignored is not None and len(st.stack) < st.errexit_ignored:
                st.errexit_ignored = None
            if st.done or len(st.stack) >= depth or st.pc == 0 or not st.code.instrs[st.pc - 1].checked:
                return
            depth = len(st.stack)
            self._errexit(st)  # it may end a subshell in turn, whose command gets the status

    def _errexit(self, st: State) -> None:
        if st.status and "e" in st.options and st.errexit_ignored is None:
            self.note(st, self.line, f"set -e: the command fails (status {st.status}); the script stops here")
            self.exit(st, st.status)

    def i_jump(self, ins: Jump, st: State) -> None:
        st.pc = ins.target

    def i_jumpif(self, ins: JumpIf, st: State) -> None:
        if ins.counter:
            self.counted_jump(ins, st)
            return
        if ins.loop and self._repeats(ins, st):
            if ins.settled:  # nothing the test reads can change: bash runs this loop for ever, and nothing after it
                while st.stack:
                    self.pop(st)
                st.done = True
                return
            st.pc = ins.target  # more iterations give this state again: the loop can only be left, in it
            return
        st.pc = ins.target if (st.status == 0) == ins.on_success else st.pc + 1
        if ins.loop and st.pc == ins.target:
            # The loop is left: what its iterations were like is forgotten, so that paths that ran it
            # a different number of times can merge after it.
            st.iters.pop(("loop", id(ins), len(st.stack)), None)

    def _repeats(self, ins: JumpIf, st: State) -> bool:
        """Whether the path comes back to a loop's test in the state of its last visit there: a wait
        (`while kill -0 $PID; do sleep 5; done`) whose test asks a program this evaluator never runs."""
        key = ("loop", id(ins), len(st.stack))
        seen = self.loop_state(st)
        if st.iters.get(key) == seen:
            del st.iters[key]
            return True
        st.iters[key] = seen
        return False

    def i_join(self, ins: Join, st: State) -> None:
        st.pc += 1

    def i_negate(self, ins: Negate, st: State) -> None:
        st.status = 0 if st.status else 1
        st.pc += 1

    def i_pipestage(self, ins: PipeStage, st: State) -> None:
        key = ("pipe", id(ins.end), len(st.stack))
        st.iters[key] = st.iters.get(key, ()) + (st.status,)
        st.pc += 1

    def i_pipeend(self, ins: PipeEnd, st: State) -> None:
        statuses = st.iters.pop(("pipe", id(ins), len(st.stack)), ()) + (st.status,)
        status = next((s for s in reversed(statuses) if s), 0) if "pipefail" in st.options else statuses[-1]
        st.status = (0 if status else 1) if ins.negated else status
        st.pc += 1

    def i_setstatus(self, ins: SetStatus, st: State) -> None:
        st.status = ins.status
        st.pc += 1

    def i_branch(self, ins: Branch, st: State) -> None:
        st.branches = st.branches + ((st.code.src.path, ins.line),)
        st.pc += 1

    def i_optionarms(self, ins: OptionArms, st: State) -> None:
        """An options loop over arguments no caller gives takes each arm as an option given or not
        (compiler.OptionArms), also after the path has read some of them: those shifted away
        before the loop (a subcommand: `start --image=x`) are not the loop's, and a first word read
        and kept (`-*) COMMAND=start ;;`) is read again by the loop, as one of its options, so the
        path no longer holds it. Where the path decided others the loop reads, it runs as written."""
        first = self._loop_words(st)
        if first is not None and first is not _AS_WRITTEN:
            forget(st, first)
        before = words_read(st)
        if before:
            # a witness's run gives these words before the options (explorer.run_inputs): the path
            # never merges with one whose runs may give any word there (State.iters tells them apart)
            st.iters[_WORDS_BEFORE_OPTIONS] = before
        st.pc = ins.target if first is _AS_WRITTEN else st.pc + 1

    def _loop_words(self, st: State):
        """The input that is the first word an options loop reads, where the path read it before
        the loop (None where it did not); _AS_WRITTEN where the arguments are given, none is left,
        or the path decided one past the first."""
        count = st.inputs.get(ARGUMENT_COUNT)
        if count is not None and count.text == "0":
            return _AS_WRITTEN
        if st.positional == UNKNOWN_ARGUMENTS:
            first, read = argument_input(1), words_read(st)
        elif st.positional and all(type(v) is FromInput and is_argument(v.name) and not is_option(v.name) for v in st.positional):
            first, read = st.positional[0].name, words_read(st) & {v.name for v in st.positional}
        else:
            return _AS_WRITTEN
        if any(name != first for name in read):
            return _AS_WRITTEN
        return first if read else None

    def i_armarguments(self, ins: ArmArguments, st: State) -> None:
        st.positional = tuple(FromInput(name) for name in ins.names)
        st.pc += 1

    def i_optiongiven(self, ins: OptionGiven, st: State) -> None:
        option = self._input(st, st.positional[0].name)
        st.pc = st.pc + 1 if option is not None else ins.target

    def i_note(self, ins: NoteInstr, st: State) -> None:
        self.note(st, ins.line, ins.message)
        st.pc += 1

    def i_test(self, ins: Test, st: State) -> None:
        st.status = self.test(ins.expr, st, ins.double, ins.line)
        st.pc += 1

    def i_arith(self, ins: ArithCmd, st: State) -> None:
        if ins.header is not None and self.summarised_header(ins, st):
            return
        st.status = 0 if self.arith(ins.expr, st, ins.line) else 1
        st.pc += 1

    def i_case(self, ins: Case, st: State) -> None:
        subject = self.value(ins.word, st)
        self.watch(st, subject)
        subject = subject.text
        _, exact, others = self._arms(ins, st)
        first = exact.get(subject)
        for position, pattern, target in others:  # a pattern before the exact one that matches wins
            if first is not None and position > first[0]:
                break
            if st.widened is not None:
                self.watch(st, self.value(pattern, st))
            if self.glob(pattern, st).fullmatch(subject):
                first = (position, target)
                break
        if first is None:
            st.pc = ins.end
            return
        st.pc = first[1]
        st.status = 0

    def _arms(self, ins: Case, st: State) -> tuple:
        """The case's patterns in order: (position, target) of the first literal pattern that
        matches only its own text, by that text; every other pattern as (position, word, target).
        An arm is then found by one look-up and the other patterns before it, so a case costs its
        own arms, not its arms for each path that runs it."""
        found = self._case_arms.get(id(ins))
        if found is None:
            exact: dict[str, tuple] = {}
            others: list[tuple] = []
            for position, (pattern, target) in enumerate((p, target) for patterns, target in ins.items for p in patterns):
                text = None if pattern.literal is None else "".join(t for t, _ in glob_pieces(self.segments(pattern, st)))
                if text is not None and self.glob(pattern, st).pattern == re.escape(text):  # it matches its text alone
                    exact.setdefault(text, (position, target))
                else:
                    others.append((position, pattern, target))
            found = self._case_arms[id(ins)] = (ins, exact, others)
        return found

    def i_forinit(self, ins: ForInit, st: State) -> None:
        items = tuple(self.positional_values(st)) if ins.words is None else tuple(self.fields(ins.words, st))
        st.iters[(id(ins), len(st.stack))] = (items, 0)
        st.pc += 1

    def i_fornext(self, ins: ForNext, st: State) -> None:
        key = (id(ins.init), len(st.stack))
        items, i = st.iters.get(key, ((), 0))
        if i >= len(items):
            st.iters.pop(key, None)
            st.pc = ins.end
            return
        self.assign(st, ins.var, items[i])  # first: it may fork (NeedInput), and the fork runs this step again
        st.iters[key] = (items, i + 1)
        st.pc += 1

    def i_funcdef(self, ins: FuncDef, st: State) -> None:
        st.functions = {**st.functions, ins.name: ins.code}
        st.status = 0
        st.pc += 1

    def i_subshell(self, ins: Subshell, st: State) -> None:
        self.push(st, ins.code, "subshell", self.snapshot(st))

    def i_unset(self, ins: Unset, st: State) -> None:
        if ins.functions:
            st.functions = {k: v for k, v in st.functions.items() if k not in ins.names}
        else:
            for name in ins.names:
                holder = next((i for i in range(len(st.scopes) - 1, -1, -1) if name in st.scopes[i]), 0)
                if 0 < holder < len(st.scopes) - 1:
                    # A local of a calling function: that instance goes, and the one it shadowed
                    # shows again (bash's unset of a previous scope; one of this scope stays local).
                    del st.scopes[holder][name]
                    continue
                if not self._is_local(st, name):  # a local's export attribute is not kept
                    st.env_exported = st.env_exported - {name}
                    if name in st.domains and name not in st.inputs:
                        # An input whose values stay grouped is exported when set; unset ends that.
                        self.decide(st, name, st.domains[name][0])
                    elif name not in st.inputs:
                        # Nothing the script does from here tells whether the environment set it: the
                        # path holds it unset, so an assignment after this is not exported (symbolic:
                        # a path that assigned an input it never read exports it where it was set).
                        self.decide(st, name, None)
                    st.exported.discard(name)
                self.assign(st, name, UNSET)
        st.status = 0
        st.pc += 1

    def i_assign(self, ins: Assign, st: State) -> None:
        builtin, flags = ins.builtin, ins.flags
        if builtin in st.functions:  # a function named like the builtin runs instead of it
            arg = ins.name if ins.value is None else f"{ins.name}={self.value(ins.value, st).text}"
            self.call(st, st.functions[builtin], [input_value(arg)], {})
            return
        if "n" in flags and ins.name not in st.inputs and not self._is_local(st, ins.name) \
                and (ins.name in st.domains or ins.name not in st.scopes[0]):
            # `export -n` of an input not yet decided (never read, or its values grouped): bash exports
            # a variable its environment set; decided first (it may fork), -n then ends that
            self._input(st, ins.name)
        local = builtin == "local" or (builtin in ("declare", "typeset") and "g" not in flags and len(st.scopes) > 1)
        if (builtin == "export" or "x" in flags) and "n" not in flags and not local and not self._is_local(st, ins.name):
            st.env_exported = st.env_exported - {ins.name}  # exported on every joined path from here on
        if "n" in flags and builtin in ("declare", "typeset", "local"):
            self.stop(st, ins.line, f"{ins.name} is a name reference at line {ins.line} ({builtin} -n), which is not followed")
            return
        if "x" in flags and local and len(st.scopes) > 1:
            self.stop(st, ins.line, f"{ins.name} is exported from a function's own scope at line {ins.line} ({builtin} -x),"
                      " which is not followed")
            return
        if ins.name == "IFS" and ins.value is not None and (ins.value.literal is None or ins.value.literal not in DEFAULT_IFS):
            self.stop(st, ins.line, f"IFS is set at line {ins.line}: words split on other characters than blanks are not followed")
            return
        if ins.array is not None:
            # An element that is one field whatever its joined variables hold stays symbolic, so
            # `a=("$X" "$Y")` after n joins is one array, not a path per combination (lookup decides
            # it); words that assign as they expand are expanded once, as bash does.
            added = new = self.fields(ins.array, st) if ins.mutates else self.array_fields(ins.array, st)
            size = len(new)
            if ins.append:
                old = self.raw(st, ins.name)  # elements as stored: appending decides none of them
                if type(old) is Choice:  # where the joined arrays share their first elements, one array
                    old = factored(old) or old
                grown: dict = {}
                joined = _appended(old, new, grown) if type(old) is Choice else None
                if joined is not None:  # arrays joined paths left apart (`missing+=("$v")` behind tests): each grows
                    new, size = joined, max(len(a) for a in grown.values() if type(a) is list)
                else:
                    if type(old) is not list:
                        old = self.lookup(st, ins.name)
                        old = old if isinstance(old, list) else ([old] if old is not None else [])
                    new = old + new
                    size = len(new)
            if self._too_large(st, ins.name, added, ins.line, size):
                return
            self.assign(st, ins.name, new, local)
        elif ins.value is not None and ins.index is not None:
            value = self.value(ins.value, st)
            old = self.raw(st, ins.name)  # elements as stored: setting one decides none of the others
            if type(old) is not list or has_absent(old):  # an absent element is no index
                old = self.lookup(st, ins.name)
            elems = list(old) if isinstance(old, list) else ([old] if old is not None else [])
            index = self.value(ins.index, st)
            self.watch(st, index)
            i = self.arith_text(index.text or "0", st, ins.line)
            i = i + len(elems) if i < 0 else i  # bash counts a negative index from the end
            if i < 0:
                self.note(st, ins.line, f"{ins.name}[{i - len(elems)}]: bad array subscript")
                st.status = 1
                st.pc += 1
                return
            if i >= ARRAY_LIMIT:
                self.stop(st, ins.line, f"{ins.name}[{i}] at line {ins.line} is past the {ARRAY_LIMIT:,} array elements flaglint follows")
                return
            elems.extend([None] * (i + 1 - len(elems)))
            if ins.append and elems[i] is not None:
                value = join_segments([segment(self.concrete(st, elems[i]), True), segment(value, True)])
            if self._too_large(st, ins.name, [value], ins.line):
                return
            elems[i] = value
            self.assign(st, ins.name, elems, local)
        elif ins.value is not None:
            value = self.symbolic_value(ins.value, st)
            if ins.append:
                old = self.raw(st, ins.name)
                if not is_symbolic(old):
                    old = self.scalar(st, ins.name)
                if old is not None:
                    value = _joined(old, value)
            if self._too_large(st, ins.name, [value], ins.line):
                return
            self.assign(st, ins.name, value, local)
        elif local and len(st.scopes) > 1 and ins.name not in st.scopes[-1]:
            self.assign(st, ins.name, UNSET, True)
        if not self._is_local(st, ins.name):  # a local's export attribute is not kept
            if builtin == "export" or "x" in flags:
                st.exported.add(ins.name)
            if "n" in flags:
                st.exported.discard(ins.name)

        st.status = 0
        st.pc += 1

    def record_launch(self, ins: Command, st: State, words: list, extra: dict, cleared: bool) -> None:
        """Keep a launched program's words (and the variables it gets that it reads) for the command
        lines of that program in them. `extra`: what the command line itself assigns (None: unsets);
        `cleared`: the program starts with `extra` alone (env -i)."""
        reads = self.launches.reads_variable
        given = extra if cleared else self.child_env(st, extra, reads)
        exported = [n for n, v in given.items() if reads(n) and v is not None and not isinstance(v, list)]
        # a joined value (a variable set on some branches) is decided here: it may fork
        env = {n: self.concrete(st, extra[n]) if n in extra else self.scalar(st, n) for n in exported}
        env = {n: v for n, v in env.items() if isinstance(v, Value)}
        # what the line assigns that the program never reads is the same launch whatever its value
        assigned = {n: v if not is_symbolic(v) else self.concrete(st, v) if reads(n) else _NOT_READ for n, v in extra.items()}
        launch = Launch(st.code.src.path, ins.line, tuple(words), env, st.files, assigned, st.widened is not None)
        if launch not in st.launched:  # the same launch again (a loop polling `gcloud … describe`) says nothing new, and a loop must reach its fixed point
            st.launched = st.launched + (launch,)

    def i_writefile(self, ins: WriteFile, st: State) -> None:
        target = self.value(ins.target, st)
        self.watch(st, target)
        if not target.opaque and target.text:
            if ins.content is not None:
                content = self.value(ins.content, st)
                self.watch(st, content)
            else:
                fields = self.fields(ins.words, st)
                self.watch(st, *fields)
                newline = not (fields and fields[0].text == "-n")
                fields = fields[1:] if fields and fields[0].text in ("-n", "-e", "-E") else fields
                content = Value("", [])
                for i, f in enumerate(fields):
                    content = Value(content.text + (" " if i else "") + f.text, [*content.origins, *([None] if i else []), *f.origins],
                                    content.opaque or f.opaque)
                if newline:
                    content = Value(content.text + "\n", [*content.origins, None], content.opaque)
            if ins.append and target.text in st.files:
                earlier = st.files[target.text]
                content = Value(earlier.text + content.text, [*earlier.origins, *content.origins], earlier.opaque or content.opaque)
            st.files = {**st.files, target.text: content}
        st.pc += 1

    def i_command(self, ins: Command, st: State) -> None:
        if st.output is not None and ins.words[0].literal == "echo":
            if not ins.silent:
                self.b_echo(ins, st)
                return
        if st.output is not None and ins.words[0].literal == "cat" and len(ins.words) == 1 and ins.stdin is not None:
            if not ins.silent:  # `cat <<< word` inside a captured function writes the word and a newline (a here-document: its text)
                value = self.value(ins.stdin, st)
                self.watch(st, value)
                end = ("", ()) if ins.heredoc else ("\n", (None,))
                st.output.append((value.text, value.origins))
                if end[0]:
                    st.output.append(end)
            st.status = 0
            st.pc += 1
            return
        if not ins.mutates:
            # Leading words that expand to no field (`${DRY_RUN_CMD} python3 -m …` with it empty)
            # are no part of the command: the command is the first word that gives one.
            words = ins.words
            replace = self._execs(words, st)
            if replace:
                words = words[1:]  # `exec CMD …`: CMD runs in the shell's place, as any program's words
            lead = self._symbolic_head(words[0], st)
            if lead is not None and not (replace and lead[0].text.startswith("-")):
                self.watch(st, lead[0])
                self.run_program(ins, st, [*lead, *self.launch_fields(words[1:], st)], replace, words)
                return
            head = self.fields(words[:1], st)
            while not head and len(words) > 1:
                words = words[1:]
                head = self.fields(words[:1], st)
            if head:
                self.watch(st, head[0])  # the name decides what runs
            if head and not self._runs_here(head[0].text, st) and not (replace and head[0].text.startswith("-")):
                # Another program, never run: its name as the path decides it, its other words
                # symbolic where they may (launch_fields).
                self.run_program(ins, st, [*head, *self.launch_fields(words[1:], st)], replace, words)
                return
            if replace:
                head = []  # exec's own options, or a builtin: exec reads its fields (b_exec)
            elif self._prints_unread(ins, st):
                return
            # `main "$@"`, `source lib.sh "$@"`: the arguments are handed on as they are, so a script's
            # arguments are decided where the code that reads them (and its comparisons) is loaded.
            if head and head[0].text in st.functions and _forwards_arguments(words[1:]):
                self.call(st, st.functions[head[0].text], st.positional, self.prefix(ins, st))
                return
            if len(head) == 1 and head[0].text in st.functions and words[0].literal is not None:
                # its arguments stay symbolic where they may (array_fields): what the function
                # reads of them forks the path, not every combination of them
                self.call(st, st.functions[head[0].text], self.array_fields(words[1:], st), self.prefix(ins, st))
                return
            if head and head[0].text in ("source", ".") and len(words) == 3 and _forwards_arguments(words[2:]):
                named = self.fields(words[1:2], st)
                if named:
                    self.source(ins, st, named[0].text, st.positional)
                    return
        fields = self.fields(ins.words, st)
        if not fields:
            for a in ins.prefix:
                self.assign(st, a.name, self.value(a.value, st))
            st.status = 0
            st.pc += 1
            return
        self.run_fields(ins, st, fields)

    def run_fields(self, ins: Command, st: State, fields: list, functions: bool = True) -> None:
        """Run the command the fields name: a function of the script (unless `functions` is False:
        `command NAME`), a builtin, or another program."""
        self.watch(st, fields[0])  # the name decides what runs
        name = fields[0].text
        handler = BUILTINS.get(name)
        if functions and name in st.functions:
            self.call(st, st.functions[name], fields[1:], self.prefix(ins, st))
        elif handler is not None:
            if name not in KEEPING:
                self.watch(st, *fields)
            handler(self, ins, st, fields, [f.text for f in fields[1:]])
        else:
            self.run_program(ins, st, fields)

    def _symbolic_head(self, word, st: State) -> list | None:
        """`$CMD` where CMD is joined (symbolic) and every alternative of it starts with the same
        program, which runs no function or builtin: its leading fields concrete, the rest one Split
        (lead.leading_words); `"${CMD[@]}"` of an array joined paths grew differently, its elements
        (command_elements); None for any other first word."""
        if not self.joins or len(word.parts) != 1 or word.mutates():
            return None
        part = word.parts[0]
        if (type(part) is Param and part.quoted and part.index == "@" and not part.op and not part.length
                and not part.indirect and (part.name[0].isalpha() or part.name[0] == "_")):
            lead = self.command_elements(part, st)
        elif not plain_variable(part) or part.quoted:
            return None
        else:
            raw = self.raw(st, part.name)
            if not is_symbolic(raw) or self._may_stop(raw, st):
                return None
            lead = leading_words(raw)
        return None if lead is None or self._runs_here(lead[0].text, st) else lead

    def _execs(self, words: list, st: State) -> bool:
        """Whether the command is `exec` (bash's) followed by a word that is no option of it."""
        return (words[0].literal == "exec" and len(words) > 1 and "exec" not in st.functions
                and not (words[1].literal or "").startswith("-"))

    def _prints_unread(self, ins: Command, st: State) -> bool:
        """Run `echo …` or `printf FORMAT …` whose output nobody reads (the terminal: not captured;
        what is written to a file is a WriteFile) and return True, where some of its words are
        `"$@"` or `"${A[@]}"`: its other words are expanded for what that does (an error, an
        assignment), but expanding those does nothing, so elements that some alternatives have
        not are not decided (a joined array handed to a function that prints it stays one)."""
        words = ins.words
        name = words[0].literal
        if st.output is not None or name not in ("echo", "printf") or name in st.functions:
            return False
        given = words[1:]
        if name == "printf" and not (given and given[0].literal is not None and not given[0].literal.startswith("-")):
            return False  # `printf -v NAME`, or a format not known yet
        elements = [part for word in given if (part := _all_elements(word)) is not None]
        if not elements:
            return False
        fields = self.fields([word for word in given if _all_elements(word) is None], st)
        if name not in KEEPING:
            held = [settled_positional(st) if part.name in ("@", "*") else self.raw(st, part.name) for part in elements]
            self.watch(st, *fields, *held)
        st.status = 0
        st.pc += 1
        return True

    def _runs_here(self, name: str, st: State) -> bool:
        """Whether the command is a function or builtin, which run in this shell."""
        return name in st.functions or name in BUILTINS

    def run_program(self, ins: Command, st: State, words: list, replace: bool = False, source: list | None = None) -> None:
        """Run a program this evaluator never runs. `words`: its fields, symbolic where
        launch_fields keeps them (one field each); `source`: the command's words they come from
        (ins.words, or those after `exec`). A wrapper's command runs in its place with the
        environment it gives (`env K=V bash x.sh`, `timeout 1h python3 …`); a shell or a script is
        followed; a program that may launch is kept (record_launch). `replace`: run by exec, so the
        script (or the subshell) ends with it."""
        source = ins.words if source is None else source
        extra, cleared, at = self.prefix(ins, st, symbolic=True), False, 0
        while (unwrapped := self.launches.unwrap([w.text if type(w) is Value else None for w in words[at:]])) is not None:
            if unwrapped.cleared:
                extra, cleared = {}, True
            for name in unwrapped.unset:
                extra[name] = UNSET
            for index in unwrapped.assigned:
                word = words[at + index]
                start = word.text.index("=") + 1
                extra[word.text[:start - 1]] = Value(word.text[start:], word.origins[start:], word.opaque)
            at += unwrapped.start
        if any(type(w) is Split for w in words[:at + 1]):  # where the program starts depends on how a word splits
            self.run_program(ins, st, self.fields(source, st), replace)
            return
        split = self._env_split(words, at)
        if split == []:
            self.unfollowed(st, ins.line, f"env -S at line {ins.line} splits a string that is not known here")
        if split:
            self.run_program(ins, st, split, replace)
            return
        program = words[at].text if at < len(words) and type(words[at]) is Value else ""
        if os.path.basename(program) in SHELLS or program.endswith(".sh"):
            if any(type(w) is not Value for w in words):
                words = self.fields(source, st)  # the same fields, concrete (only a command that mutates nothing has symbolic ones)
            # a value the path has decided is handed on as it is; one it has not stays joined, decided
            # where the script reads it (a prefix of n such values is not a run per combination)
            extra = {name: self._decided(st, value) for name, value in extra.items()}
            self._run_script(ins, st, words[at:], extra, cleared, replace)
            return
        if self.launches.may_launch(program, [w.text if type(w) is Value else None for w in words[at + 1:]]):
            self.record_launch(ins, st, words[at:], extra, cleared)
        if replace:
            self.exit(st, 0)  # this process became the program: the script ends here
        else:
            st.status = 0  # another program: never run, its arguments change nothing here
            st.pc += 1

    def _env_split(self, words: list, at: int) -> list | None:
        """Where words[at] is `env` with -S STRING (-SSTRING, --split-string[=]STRING) among its
        options: the words with the string replaced by the words env splits it into (quotes and
        backslashes as the shell reads them), or [] where the string is not known here. None
        where it is not."""
        if at >= len(words) or type(words[at]) is not Value or os.path.basename(words[at].text) != "env":
            return None
        i = at + 1
        while i < len(words) and type(words[i]) is Value and words[i].text.startswith("-") and words[i].text not in ("-", "--"):
            text = words[i].text
            if text in ("-S", "--split-string"):
                string, start, end = (words[i + 1] if i + 1 < len(words) else None), 0, i + 2
            elif text.startswith(("-S", "--split-string=")):
                string, start, end = words[i], 2 if text.startswith("-S") else len("--split-string="), i + 1
            else:
                i += 2 if text in ("-u", "-C", "--unset", "--chdir") else 1
                continue
            split = split_words(string, start) if type(string) is Value and not string.opaque else None
            return [] if split is None else [*words[:i], *split, *words[end:]]
        return None

    def _run_script(self, ins: Command, st: State, words: list, extra: dict, cleared: bool, replace: bool) -> None:
        """`bash [options] script args`, `bash -c STRING`, `./script.sh args`: the script is followed
        as its own process; a command string is kept as a launch (the MaxText command lines in it are
        checked)."""
        if words[0].text.endswith(".sh"):
            self.child(ins, st, words[0].text, words[1:], replace, extra, cleared)
            return
        script, command_string = shell_operand([w.text for w in words[1:]])
        if command_string:
            self.note(st, ins.line, "bash -c is not evaluated: only the MaxText command lines in its string are checked")
            self.record_launch(ins, st, words, extra, cleared)
        elif script is None and ins.stdin is not None:
            # `bash <<EOF`, `bash <<< "…"`: the shell reads its commands from the text, as `bash -c` would
            self.note(st, ins.line, f"{words[0].text} reads its commands from a here-document: only the MaxText command lines in it are checked")
            self.record_launch(ins, st, [words[0], input_value("-c"), self.value(ins.stdin, st)], extra, cleared)
        elif script is None:
            self.unfollowed(st, ins.line, f"{words[0].text} at line {ins.line} reads its commands from standard input"
                            " (a pipe or a file), which is not known here")
        elif script is not None:
            self.child(ins, st, words[script + 1].text, words[script + 2:], replace, extra, cleared)
            return
        if replace:
            self.exit(st, 0)
        else:
            st.status = 0
            st.pc += 1

    def prefix(self, ins: Command, st: State, symbolic: bool = False) -> dict:
        """What a command's own line assigns (`K=V cmd`). `symbolic`: a value joined paths give
        (`O=${O:-d} python3 …`) stays a Choice, decided only where the program reads it
        (record_launch): a prefix of n such assignments is one launch, not a path per combination."""
        if symbolic and self.joins:
            return {a.name: self.symbolic_value(a.value, st) for a in ins.prefix}
        return {a.name: self.value(a.value, st) for a in ins.prefix}

    # ---- frames ----
    def snapshot(self, st: State) -> tuple:
        return ([d.copy() for d in st.scopes], st.exported.copy(), st.positional, st.functions)

    def push(self, st: State, code: Code, kind: str, saved) -> None:
        st.stack.append((st.code, st.pc + 1, kind, saved))
        st.code = code
        st.pc = 0

    def call(self, st: State, code: Code, args: list, prefix: dict) -> None:
        if len(st.stack) >= CALL_DEPTH_LIMIT:
            self.stop(st, self.line, f"at line {self.line} functions run inside one another {CALL_DEPTH_LIMIT:,} levels"
                      " deep (a function that calls itself with no end: bash crashes when its stack runs out)")
            return
        self.push(st, code, "func", st.positional)
        st.scopes.append(dict(prefix))
        st.positional = tuple(args)

    def leave(self, st: State) -> None:
        """The current code block ended."""
        if not st.stack:
            st.done = True
            return
        self.pop(st)

    def pop(self, st: State) -> str:
        code, pc, kind, saved = st.stack.pop()
        if kind == "func":
            st.scopes.pop()
            st.positional = saved
        elif kind == "source":
            positional, scoped = saved
            if positional is not None:
                st.positional = positional
            if scoped:
                st.scopes.pop()
        elif kind in ("subshell", "proc"):
            joined = ()
            if kind == "proc":
                st.handoffs = st.handoffs + (self.rendering(st),)
                *saved, joined = saved
            scopes, exported, positional, functions = saved
            # copies: the frame is shared by every path forked inside the subshell (State.copy)
            st.scopes, st.exported = [d.copy() for d in scopes], exported.copy()
            st.positional, st.functions = positional, functions
            for name in joined:  # the variables handed on joined (child)
                if name in st.inputs and len(st.domains.get(name, ())) > 1:
                    # decided by the script run's `unset` (i_unset), on none of its values: that
                    # ended the export in that process alone
                    del st.inputs[name]
                elif (st.inputs[name] is not None) if name in st.inputs else (None not in st.domains.get(name, (None,))):
                    # the script run took the values the environment sets: exported here too, as
                    # where a path decides it (decide, guards.narrow)
                    st.exported.add(name)
        st.code, st.pc = code, pc
        return kind

    def exit(self, st: State, status: int) -> None:
        st.exit_code = status  # the status a script run as its own process (`bash other.sh`) ends with
        while st.stack:
            if self.pop(st) in ("subshell", "proc"):
                st.status = status
                st.exit_code = 0
                return
        st.status = status
        st.done = True

    def abort(self, st: State) -> None:
        if not st.stack:
            st.pc += 1
        while st.stack and self.pop(st) not in ("subshell", "proc"):
            pass
        st.status = 1

    def ret(self, st: State, status: int) -> None:
        while st.stack:
            if self.pop(st) in ("func", "source", "subshell", "proc"):
                st.status = status
                return
        st.status = status
        st.done = True

    def child_env(self, st: State, extra: dict, wanted=lambda name: True, joined: bool = False) -> dict:
        """The environment a child process gets: the exported variables (those `wanted`), and `extra`.
        `joined`: a variable exported only where the environment set it (_set_by_environment) is
        handed on as that, a Choice on its input, unset where the environment did not set it."""
        env: dict = {}
        for scope in st.scopes:
            for name, v in scope.items():
                if not wanted(name):
                    continue
                domain = self._set_by_environment(st, name)
                if domain is not None:
                    if joined and v is not None and not isinstance(v, list):
                        env[name] = Choice(name, ((frozenset({None}), UNSET), (frozenset(domain) - {None}, v)))
                        continue
                    # one fork: set or not, not one per value
                    raise NeedInput(name, domain, ((None,), tuple(value for value in domain if value is not None)))
                env[name] = v if (name in st.exported and v is not None and not isinstance(v, list)) else UNSET
        env.update(extra)
        return env

    def _set_by_environment(self, st: State, name: str) -> tuple | None:
        """The input's values, where bash exports the variable exactly where the environment set it
        and the path has not decided whether it did (None where not so): joined paths that
        assigned the input and hold its values grouped, unset among them (a domain without None is
        exported already, guards.narrow), or a value made from the input's own (`X="${X:-d}"`)."""
        if name in st.exported or name in st.inputs:
            return None
        domain = st.domains.get(name)
        if domain is None:
            stored = st.scopes[0].get(name)
            if stored is None or isinstance(stored, list) or name not in choice_names(stored) | read_names(stored):
                return None
            domain = self.candidates(name) if self.candidates else (None,)
        return tuple(domain) if len(domain) > 1 and None in domain else None

    def resolve(self, st: State, path: str) -> str | None:
        if not path:
            return None
        if os.path.isabs(path):
            return path if names_a_file(path) else None
        # As bash does: from the working directory; then, for a recipe run from its own directory
        # or from the repository root, from the file's directory and the root.
        bases = [os.getcwd(), os.path.dirname(os.path.abspath(st.code.src.path))]
        if self.repo_root:
            bases.append(self.repo_root)
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, path))
            if names_a_file(candidate):
                return candidate
        return None

    def script_file(self, st: State, line: int, what: str, name: str) -> str | None:
        """The file of a script the path sources or runs, or None when it cannot be followed: then
        the reason is kept (st.unfound), since what the file sets and launches is not known."""
        substituted = name.startswith(("<(", ">("))
        resolved = None if substituted else self.resolve(st, name)
        if substituted:
            reason = f"the {what} is a process substitution ({name[:2]}…)), whose output is not known here"
        elif resolved is None:
            glob = any(c in name for c in "*?[")
            reason = f"the {what} {name!r} is {'a glob: the files it names are not known here' if glob else 'not found'}"
        elif (refused := _unreadable(resolved)) is not None:
            reason = f"the {what} {name!r}: {refused}"
        elif self._running(st, resolved) >= NESTING_LIMIT:
            reason = f"the {what} {name!r} runs inside itself {NESTING_LIMIT} levels deep (it sources or runs itself, directly or through other files)"
        else:
            return resolved
        self.unfollowed(st, line, reason)
        return None

    def unfollowed(self, st: State, line: int, reason: str) -> None:
        """What runs at `line` cannot be followed (FL011 there): what it sets and launches is not known."""
        st.unfound = st.unfound + (Note(st.code.src.path, line, reason),)

    def _running(self, st: State, path: str) -> int:
        """How many of the path's frames (and the code it is in) run code of the file `path`."""
        codes = [frame[0] for frame in st.stack] + [st.code]
        return sum(os.path.abspath(code.src.path) == path for code in codes)

    def child(self, ins: Command, st: State, path: str, args: list, replace: bool, extra: dict, cleared: bool) -> None:
        """Run another script as a new process (`bash other.sh`), or in place of this one (exec),
        with the environment the command line gives it (`extra`; `cleared`: that alone)."""
        resolved = self.script_file(st, ins.line, "script", path)
        if resolved is None:
            if replace:
                self.exit(st, 0)
            else:
                st.status = 0
                st.pc += 1
            return
        compiled = self.load(resolved, shares_arguments=any(map(_hands_on_an_argument, ins.words[1:])))
        # A script run after a join sees a variable the joined paths export where the environment
        # set it as that, not a fork of the path on it: the child holds it in its first scope,
        # unexported, over the same input's values, which is where bash exports it there too.
        env = dict(extra) if cleared else self.child_env(st, extra, joined=self.joins)
        joined = frozenset(name for name in env if name not in extra and self._set_by_environment(st, name) is not None)
        exported = {n for n, v in env.items() if v is not None and n not in joined}
        if not cleared:
            exported |= {n for n, v in st.inputs.items() if v is not None and n not in env and not is_argument(n)}
        if replace:
            while st.stack and st.stack[-1][2] not in ("subshell", "proc"):
                st.stack.pop()
            st.code = compiled.code
        else:
            self.push(st, compiled.code, "proc", (*self.snapshot(st), joined))
        st.scopes = [env]
        st.exported = exported
        st.functions = {}
        st.positional = tuple(args)
        st.pc = 0

    # ---- results ----
    def rendering(self, st: State, witnesses: dict | None = None) -> Rendering:
        variables: dict[str, Value] = {}
        for name, v in st.inputs.items():
            if v is not None and not is_argument(name):
                variables[name] = v
        if witnesses:
            for name, text in witnesses.items():
                if text is not None and name not in st.inputs and not is_argument(name):
                    variables[name] = input_value(text)
        for scope in st.scopes[:1]:
            for name, v in scope.items():
                if isinstance(v, list):
                    v = v[0] if v and v[0] is not None else None
                if v is None:
                    variables.pop(name, None)
                else:
                    variables[name] = v
        exported_names = {n for n in st.exported if not is_argument(n)} | {
            n for n, text in (witnesses or {}).items() if text is not None and not is_argument(n)}
        exported = {n: v for n, v in variables.items() if n in exported_names
                    and not isinstance(st.scopes[0].get(n), list)}
        for name in st.scopes[0].keys() - exported_names - st.inputs.keys():
            domain = st.domains.get(name, ())
            if name in variables and None in domain and len(domain) > 1:
                # joined paths that assigned the input: exported where the environment set it
                exported[name] = Choice(name, ((frozenset({None}), None), (frozenset(domain) - {None}, variables[name])))
        notes = list(dict.fromkeys(st.notes))
        return Rendering(exported, variables, notes, st.code.src.path, [], st.exit_code, list(st.branches),
                         list(st.unfound), st.unbounded, list(st.launched))


_DISPATCH = {
    Join: Interp.i_join, Jump: Interp.i_jump, JumpIf: Interp.i_jumpif, Negate: Interp.i_negate, SetStatus: Interp.i_setstatus,
    Branch: Interp.i_branch, NoteInstr: Interp.i_note, Test: Interp.i_test, ArithCmd: Interp.i_arith,
    Case: Interp.i_case, ForInit: Interp.i_forinit, ForNext: Interp.i_fornext, FuncDef: Interp.i_funcdef,
    WriteFile: Interp.i_writefile,
    Subshell: Interp.i_subshell, Unset: Interp.i_unset, Assign: Interp.i_assign, Command: Interp.i_command,
    PipeStage: Interp.i_pipestage, PipeEnd: Interp.i_pipeend,
    OptionArms: Interp.i_optionarms, ArmArguments: Interp.i_armarguments,
    OptionGiven: Interp.i_optiongiven,
}


def _appended(old, new: list, memo: dict):
    """A joined array (a Choice whose alternatives are arrays, or unset) with `new` appended to each
    alternative, an alternative shared by several kept shared; None where one is not an array."""
    if id(old) in memo:
        return memo[id(old)]
    if old is None or type(old) is list:
        made = (old or []) + new
    elif type(old) is Choice:
        alts = []
        for values, alt in old.alts:
            grown = _appended(alt, new, memo)
            if grown is None:
                return None
            alts.append((values, grown))
        made = Choice(old.name, tuple(alts))
    else:
        return None
    memo[id(old)] = made
    return made


def _unreadable(path: str) -> str | None:
    """Why the script at PATH is not read (not a regular file, over the size limit), or None."""
    try:
        regular_file(path, SCRIPT)
    except Unreadable as err:
        return err.reason
    return None

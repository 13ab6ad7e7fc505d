"""tree-sitter-bash trees compiled into flat instruction lists.

A flat list with jumps makes the interpreter's whole state a few dicts and a program counter, so
the path explorer can fork it at a branch instead of re-running the script from the start.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from flaglint.core.reading import SCRIPT, Unreadable, buffer_of, read_file
from flaglint.render.bash.arithmetic import (
    ArithError,
    ArithTooDeep,
    arith_assigned,
    arith_expands,
)
from flaglint.render.bash.depth import check_depth
from flaglint.render.bash.lexer import (
    ARITH_ASSIGN,
    UNSET_OPERATORS,
    CmdSub,
    Lit,
    Param,
    Source,
    Word,
    WordSyntaxError,
    lex_arith,
    lex_heredoc,
    lex_word,
)
from flaglint.render.bash.state import ARGUMENT_COUNT, argument_input, option_input
from flaglint.render.bash.types import ScriptError, TooDeep

# ---- instructions -----------------------------------------------------------------------------


class Instr:
    groupable = False  # only sets the status or jumps: paths that agree on that can share inputs
    mutates = False  # may assign a variable before it has read everything it reads
    checked = False  # a failure ends the script under `set -e` (not a condition, not left of && / ||, not negated)


@dataclass(eq=False)
class Code:
    src: Source
    instrs: list = field(default_factory=list)


@dataclass(eq=False)
class Assign(Instr):
    line: int
    name: str
    value: Word | None = None
    array: list | None = None  # list[Word] for X=(...)
    index: Word | None = None
    append: bool = False
    builtin: str = ""  # "", "export", "local", "declare", "readonly", "typeset"
    flags: str = ""  # declare's letters: x (export), n (export -n), g (global), a/A (array), f (functions)
    mutates: bool = False


@dataclass(eq=False)
class Unset(Instr):
    line: int
    names: list
    functions: bool = False


@dataclass(eq=False)
class Command(Instr):
    line: int
    words: list  # list[Word]; words[0] is the command name
    prefix: list  # list[Assign]: assignments in front of the command, for it alone
    mutates: bool = False
    silent: bool = False  # standard output goes to stderr or /dev/null
    stdin: Word | None = None  # a herestring (`<<< word`): the command reads the word and a newline
    heredoc: bool = False  # stdin is a here-document: the command reads its text as it is


@dataclass(eq=False)
class WriteFile(Instr):
    """`cat > FILE <<EOF … EOF` or `echo TEXT > FILE` (`>>` appends): the script writes a file that
    a later command may read (a MaxText config)."""

    line: int
    target: Word
    content: Word | None  # the here-document; None: the echo's words, joined by spaces, and a newline
    words: list  # list[Word]: the echo's arguments
    append: bool = False


@dataclass(eq=False)
class Test(Instr):
    line: int
    expr: tuple  # ("and"|"or", a, b), ("not", a), ("bin", op, Word, Word), ("un", op, Word), ("word", Word)
    double: bool  # [[ ]] rather than [ ]
    mutates: bool = False
    groupable = True


@dataclass(eq=False)
class ArithCmd(Instr):
    line: int
    expr: tuple
    mutates: bool = False
    header: JumpIf | None = None  # the condition or update of this counted loop (JumpIf.counter)


@dataclass(eq=False)
class Jump(Instr):
    target: int = -1
    groupable = True


@dataclass(eq=False)
class JumpIf(Instr):
    on_success: bool
    target: int = -1
    loop: bool = False  # the test of a while or until loop: the machine sees when an iteration changes nothing
    # a loop's test that reads only the shell's variables and arguments (no program, no file): an
    # iteration that changes nothing comes back to it for ever (`shift 2` with one argument left)
    settled: bool = False
    # A `for ((…))` loop whose update steps one variable and whose header reads no expansion, with
    # no `break`: that variable (machine.Interp.counted_jump), its condition and update, and where
    # its passes begin (the update).
    counter: str = ""
    condition: tuple = ()
    update: tuple = ()
    passes_from: int = -1
    groupable = True


@dataclass(eq=False)
class Join(Instr):
    """Where the arms of an if, a case or an && / || list meet again: the evaluator merges the
    paths that arrive here in the same state but for their variables."""


@dataclass(eq=False)
class Negate(Instr):
    groupable = True


@dataclass(eq=False)
class PipeStage(Instr):
    """After a stage of a pipeline but the last: its status is kept for `set -o pipefail`."""

    end: "PipeEnd"


@dataclass(eq=False)
class PipeEnd(Instr):
    """After a pipeline's last stage: the pipeline's status is that stage's, or with pipefail
    the last non-zero status of any stage; `!` inverts it."""

    line: int
    negated: bool


@dataclass(eq=False)
class SetStatus(Instr):
    status: int
    groupable = True


@dataclass(eq=False)
class Branch(Instr):
    line: int


@dataclass(eq=False)
class Case(Instr):
    line: int
    word: Word
    items: list  # list[(list[Word] patterns, target pc)]
    end: int = -1
    mutates: bool = False
    groupable = True


@dataclass(eq=False)
class ForInit(Instr):
    line: int
    words: list | None  # None: "$@"
    mutates: bool = False


@dataclass(eq=False)
class ForNext(Instr):
    var: str
    init: ForInit
    end: int = -1


@dataclass(eq=False)
class OptionArms(Instr):
    """Before an options loop: where the script's arguments are given, or a path has decided some
    of them, the loop runs as written (at `target`); else its arms follow, each one option."""

    line: int
    target: int = -1


@dataclass(eq=False)
class ArmArguments(Instr):
    """The positional parameters of an options loop's arm: the inputs that are its words (none,
    after the last arm: the loop has taken every argument)."""

    names: tuple


@dataclass(eq=False)
class OptionGiven(Instr):
    """Whether a run gives the option of the arm that follows (its first word is set): else the
    path goes on at `target`, past the arm."""

    target: int = -1
    groupable = True


@dataclass(eq=False)
class FuncDef(Instr):
    line: int
    name: str
    code: Code


@dataclass(eq=False)
class Subshell(Instr):
    line: int
    code: Code
    stage: bool = False  # a pipeline's stage: `set -e` looks at the pipeline's status, yet applies inside


@dataclass(eq=False)
class NoteInstr(Instr):
    line: int
    message: str


# ---- what the explorer learns from a file -----------------------------------------------------

ANY_ARGUMENT = "$@"  # the comparands that hold for each of the script's arguments (getopts' options)
INDIRECT = "!"  # the comparands of a variable read by the name another one holds (`-z "${!v:-}"`)


@dataclass
class FileFacts:
    """Values the file's conditions compare each variable with, and copies between variables: of
    its top level, and of each function's body apart (FileFacts.functions), since a function's
    positional parameters are the script's arguments only where it is handed them (`f "$@"`)."""

    comparands: dict = field(default_factory=dict)  # name -> list of (kind, payload)
    aliases: list = field(default_factory=list)  # (assigned name, name read)
    arguments: int = 0  # the most positional parameters a command reads (`$3`: 3; getopts with a value: 2)
    functions: dict = field(default_factory=dict)  # function name -> list of the FileFacts of its bodies
    forwards: list = field(default_factory=list)  # the functions this body calls with its own arguments ("$@")
    shifts: bool = False  # the body moves the arguments (`shift`, `set -- …`): $1 may hold any of them
    assigned: set = field(default_factory=set)  # the variables the body assigns (`X=…`, `read X`, `for X in`)
    defaulted: set = field(default_factory=set)  # the variables it reads with an operator for unset (`${X:-d}`)
    # the names written as a word of their own (`require_env XPK_CLUSTER`, `for v in A B`, `v=A`):
    # those a variable may hold and `${!v}` read (INDIRECT)
    named: set = field(default_factory=set)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[.*\])?$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNING = ("read", "mapfile", "readarray", "printf", "getopts", "let")
_ASSIGNED_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:=|\[|$)")


def _literal_run(parts) -> list[str]:
    """The texts of the literal parts at the start of `parts`, up to the first expansion."""
    texts = []
    for part in parts:
        if not isinstance(part, Lit):
            break
        texts.append(part.text)
    return texts


def sole_variable(word: Word) -> str | None:
    """The variable a word reads when it is just that variable (possibly with a default)."""
    params = [p for p in word.parts if not (isinstance(p, Lit) and p.text == "")]
    if len(params) == 1 and isinstance(params[0], Param) and params[0].op in ("", ":-", "-", ":=", "="):
        if params[0].indirect and params[0].index is None:
            return INDIRECT
        return parameter_input(params[0])
    return None


def _all_arguments(word: Word) -> bool:
    """Whether a word is the script's arguments, one field each (`"$@"`, `$@`, `$*`)."""
    params = [p for p in word.parts if not (isinstance(p, Lit) and p.text == "")]
    return (len(params) == 1 and isinstance(params[0], Param) and params[0].name in ("@", "*")
            and not params[0].op and params[0].index is None and not params[0].length)


def parameter_input(p: Param) -> str | None:
    """The input a parameter expansion reads (a variable, `$N`, `$#`), whatever its operator."""
    if p.index is None and not p.length and not p.indirect:
        if p.name.isdigit() and p.name != "0":
            return argument_input(int(p.name))
        if p.name == "#":
            return ARGUMENT_COUNT
        if not p.name[0].isdigit() and p.name not in "@*?$!-":
            return p.name
    return None


# ---- options loops ----------------------------------------------------------------------------

# `[[ $# -gt 0 ]]`, `[ "$#" -ne 0 ]`, `(( $# > 0 ))`, `[[ -n "$1" ]]`: the loop runs while arguments are left
_ARGUMENTS_LEFT = re.compile(r"""(?x)
    \[\[?\s*"?\$(?:\#|\{\#\})"?\s+(?:-gt\s+"?0|-ne\s+"?0|-ge\s+"?1|>\s*"?0)"?\s*\]\]?
  | \(\(\s*\$?\#\s*(?:>\s*0\s*)?\)\)
  | \[\[?\s*(?:-n\s+)?"\$(?:1|\{1\})"\s*\]\]?""")
_FIRST_ARGUMENT = ("$1", '"$1"', "${1}", '"${1}"')
# what an arm may not do for the arms to be options apart: leave the loop, read every argument,
# set them, or read past the option's value
_NOT_AN_OPTION = re.compile(r"\b(?:break|continue|getopts)\b|\$\{?[@*3-9]|\bset\s+--|\bshift\s+[3-9]")
_TAKES_VALUE = re.compile(r"\$\{?2\b|\bshift\s+2\b")


def options_loop(node, text) -> tuple | None:
    """The case statement of an options loop and its arms, each with how many words it takes
    (`while [[ $# -gt 0 ]]; do case "$1" in --x) X="$2"; shift 2;; … esac; done`); None for any
    other loop. `text`: a node's source."""
    if node.children[0].type != "while":
        return None
    body = node.child_by_field_name("body")
    conds = [c for c in node.named_children if c.type not in _SKIP and
             not (c.start_byte == body.start_byte and c.end_byte == body.end_byte)]
    if len(conds) != 1 or not _ARGUMENTS_LEFT.fullmatch(text(conds[0]).strip().rstrip(";").strip()):
        return None
    statements = [c for c in body.named_children if c.type not in _SKIP]
    if len(statements) != 1 or statements[0].type != "case_statement":
        return None
    case = statements[0]
    if text(case.child_by_field_name("value")) not in _FIRST_ARGUMENT:
        return None
    arms: list = []
    setters: dict[str, int] = {}  # a variable that arms set and do nothing else: the index of their option
    for item in (c for c in case.children if c.type == "case_item"):
        fields = [item.field_name_for_child(i) for i in range(item.child_count)]
        patterns = tuple(text(c) for i, c in enumerate(item.children) if fields[i] == "value")
        source = text(item)
        if "fallthrough" in fields or any("$" in p or "`" in p for p in patterns) or _NOT_AN_OPTION.search(source):
            return None
        count = 2 if _TAKES_VALUE.search(source) else 1
        valued = patterns if count == 2 else ()
        body = [text(c) for i, c in enumerate(item.children)
                if c.is_named and c.type not in _SKIP and fields[i] not in ("value", "termination", "fallthrough")]
        sets = [m[1] for line in body if (m := _SETS_ONE.fullmatch(line))]
        sole = sets[0] if len(sets) == 1 and len(body) == 1 + sum(bool(_SHIFT.fullmatch(line)) for line in body) else None
        # the arms that only set one variable (`--image) IMAGE="$2"`, `--image=*) IMAGE="${1#*=}"`,
        # `start|stop) COMMAND="$1"`) are one option: the one of them a run gives last decides it
        if sole is not None and sole in setters:
            items, most, before = arms[setters[sole]]
            if not any(c in p for p in before + valued for c in "|[]"):  # option_input keeps the valued words as text
                arms[setters[sole]] = ([*items, item], max(most, count), before + valued)
                continue
        if sole is not None:
            setters[sole] = len(arms)
        arms.append(([item], count, valued))
    return (case, arms) if arms else None


_SETS_ONE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(?!\()[\s\S]*")
_SHIFT = re.compile(r"shift(?:\s+[12])?")


# ---- compiler ---------------------------------------------------------------------------------

_CHECKED = (Test, ArithCmd, Command, Subshell, PipeEnd)  # what `set -e` looks at the status of

# the commands whose standard input the machine reads (a shell with no script reads its commands there)
_READERS = ("read", "mapfile", "readarray", "cat", "bash", "sh")

_RESERVED = {"then", "else", "elif", "fi", "do", "done", "esac", "}", ";;", "in"}

_SKIP = {"comment", "heredoc_body", "heredoc_start", "heredoc_end", "file_redirect", "herestring_redirect",
         "heredoc_redirect"}


class Compiler:
    def __init__(self, src: Source, facts: FileFacts):
        self.src = src
        self.file_facts = facts
        self.facts = facts  # those of the function body being compiled, else the file's
        self.loops: list[tuple[list, list]] = []  # per loop: (break jumps, continue jumps)
        self.conditions = 0  # inside an if/while condition, left of && / ||, or negated: `set -e` does not apply
        self.unchecked: set[int] = set()  # ids of the instructions compiled in such a place
        # (start, end) bytes of the commands after a here-document's `;` on its line, left out of
        # the parse (commands_after_here_documents): each runs after the statement that holds it
        self.after_here_documents: list[tuple[int, int]] = []

    # -- helpers --
    def line(self, node) -> int:
        return node.start_point[0] + 1

    def fail(self, node, message: str) -> ScriptError:
        return script_error(self.src, self.src.char_index(node.start_byte), message)

    def too_deep(self, node, error: ArithTooDeep) -> TooDeep:
        return TooDeep(self.src.path, self.line(node), f"the arithmetic at line {self.line(node)}: {error}")

    def word(self, node) -> Word:
        start, end = self.src.char_index(node.start_byte), self.src.char_index(node.end_byte)
        try:
            return self._counted(lex_word(self.src, start, end))
        except WordSyntaxError as e:
            raise script_error(self.src, e.position, e.message) from None
        except ArithTooDeep as e:
            raise self.too_deep(node, e) from None
        except ArithError as e:
            raise self.fail(node, f"arithmetic: {e}") from None

    def _counted(self, word: Word) -> Word:
        """The word, its positional parameters counted (FileFacts.arguments), and each `${X?}`
        (`${X:?}`) taken as a test of X: bash stops where it is unset (or empty) and goes on where
        the environment sets it, so both are outcomes."""
        todo = [word]
        while todo:
            for part in todo.pop().parts:
                if type(part) is Param:
                    if part.name.isdigit() and part.name != "0":
                        self.facts.arguments = max(self.facts.arguments, int(part.name))
                    if part.op in ("?", ":?"):
                        self.compare(parameter_input(part), "empty" if part.op == ":?" else "set", None)
                    if part.op in UNSET_OPERATORS:
                        self.facts.defaulted.add(part.name)
                    todo.extend(w for w in (part.arg, part.arg2, part.index) if isinstance(w, Word))
        return word

    def text(self, node) -> str:
        return self.src.data[node.start_byte:node.end_byte].decode("utf-8")

    def _named(self, words: list[Word]) -> None:
        self.facts.named.update(w.literal for w in words if w.literal and _NAME.fullmatch(w.literal))

    def compare(self, name: str | None, kind: str, payload) -> None:
        if name:
            self.facts.comparands.setdefault(name, []).append((kind, payload))

    # -- blocks --
    def block(self, nodes, code: Code) -> None:
        for n in nodes:
            self.statement(n, code)
            if self.after_here_documents:
                self._commands_after(n, code)

    def _commands_after(self, node, code: Code) -> None:
        """The commands after the `;` of a here-document's line in this statement: they run next
        (the innermost list that holds the statement compiles them first)."""
        for span in [s for s in self.after_here_documents if node.start_byte < s[0] < node.end_byte]:
            self.after_here_documents.remove(span)
            self.reparse(*span, code)

    def statements(self, node) -> list:
        return [c for c in node.named_children if c.type not in _SKIP]

    def statement(self, node, code: Code) -> None:
        t = node.type
        if t in _SKIP:
            return
        handler = getattr(self, "s_" + t, None)
        if handler is None:
            code.instrs.append(NoteInstr(self.line(node), f"unsupported construct: {t}"))
            return
        start = len(code.instrs)
        handler(node, code)
        if self.conditions == 0:
            for instr in code.instrs[start:]:
                if type(instr) in _CHECKED and id(instr) not in self.unchecked:
                    instr.checked = True

    def condition(self, nodes, code: Code) -> None:
        """Statements whose failure is a branch, not an error (`set -e` does not apply)."""
        start = len(code.instrs)
        self.conditions += 1
        try:
            self.block(nodes, code)
        finally:
            self.conditions -= 1
        self.unchecked.update(id(instr) for instr in code.instrs[start:])

    def s_variable_assignment(self, node, code: Code, builtin: str = "", flags: str = "") -> None:
        code.instrs.append(self.assignment(node, builtin, flags))

    def assignment(self, node, builtin: str = "", flags: str = "") -> Assign:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        append = any(c.type == "+=" for c in node.children)
        index = None
        if name_node.type == "subscript":
            idx = name_node.child_by_field_name("index")
            index = self.word(idx) if idx is not None else None
            name_node = name_node.child_by_field_name("name")
        name = self.text(name_node)
        self.facts.assigned.add(name)
        value = array = None
        if value_node is not None and value_node.type == "array":
            array = [self.word(c) for c in value_node.named_children if c.type != "comment"]
        elif value_node is not None:
            value = self.word(value_node)
            self._named([value])
            source = sole_variable(value)
            if source and source != name:
                self.facts.aliases.append((name, source))
        else:
            value = Word(())
        mutates = any(w.mutates() for w in ([value] if value else []) + (array or []) + ([index] if index else []))
        return Assign(self.line(node), name, value, array, index, append, builtin, flags, mutates)

    def s_variable_assignments(self, node, code: Code) -> None:
        for c in node.named_children:
            if c.type == "variable_assignment":
                self.s_variable_assignment(c, code)

    def s_declaration_command(self, node, code: Code) -> None:
        builtin = self.text(node.children[0])
        flags = ""
        invalid = []  # words bash refuses as "not a valid identifier": the builtin goes on, then fails
        for c in node.children[1:]:
            if c.type == "variable_assignment":
                code.instrs.append(self.assignment(c, builtin, flags))
            elif c.type in ("variable_name", "word", "simple_expansion", "string", "raw_string", "concatenation"):
                text = self.text(c)
                if c.type == "word" and text.startswith(("-", "+")) and len(text) > 1:
                    letters = text[1:]
                    if text[0] == "-":
                        flags += letters
                    elif "x" in letters:
                        flags += "n"
                    continue
                if c.type == "word" and "=" in text:
                    if not _IDENTIFIER.match(text.split("=", 1)[0]):
                        invalid.append(text)  # `export RUN_NAME = "x"`: `=`, then "x", are no names
                        continue
                    raise self.fail(c, f"unsupported {builtin} argument {text!r}")
                if c.type == "string" and builtin in ("export", "readonly", "declare", "typeset", "local") and invalid:
                    invalid.append(text)
                    continue
                if c.type not in ("variable_name", "word"):
                    code.instrs.append(NoteInstr(self.line(c), f"unsupported {builtin} argument {text!r}"))
                    continue
                code.instrs.append(Assign(self.line(c), text, None, None, None, False, builtin, flags))
        if invalid:
            line = self.line(node)
            code.instrs.append(NoteInstr(line, f"{builtin}: {', '.join(invalid)}: not a valid identifier; the command fails"))
            code.instrs.append(Command(line, [Word((Lit("false", (None,) * 5, False),))], [], False))

    def s_unset_command(self, node, code: Code) -> None:
        names, functions = [], False
        for c in node.named_children:
            text = self.text(c)
            if text == "-f":
                functions = True
            elif text == "-v":
                continue
            else:
                names.append(text)
        code.instrs.append(Unset(self.line(node), names, functions))

    def _joined_lines(self, node):
        """tree-sitter-bash reads `A=1 B=2` and the command on the next line as one command:
        the assignments and the extent of that next command, or None."""
        if node.type != "command":
            return None
        name = node.child_by_field_name("name")
        assignments = [c for c in node.children if c.type == "variable_assignment"]
        if name is not None and assignments and _line_break(self.src.data, assignments[-1].end_byte, name.start_byte):
            if self.text(name) in _RESERVED:
                raise self.fail(assignments[0], "tree-sitter-bash cannot read several assignments that end a line "
                                "after && or ||; put them on lines of their own")
            return assignments, (name.start_byte, node.end_byte)
        return None

    def s_command(self, node, code: Code) -> None:
        joined = self._joined_lines(node)
        if joined is not None:
            for c in joined[0]:
                code.instrs.append(self.assignment(c))
            self.reparse(*joined[1], code)
            return
        prefix, words, stdin = [], [], None
        for i, c in enumerate(node.children):
            fname = node.field_name_for_child(i)
            if c.type == "variable_assignment":
                prefix.append(self.assignment(c))
            elif fname == "name":
                words.append(self.word(c))
            elif fname == "argument":
                words.append(self.word(c))
            elif c.type == "herestring_redirect" and c.named_children:
                stdin = self.word(c.named_children[-1])
        if not words:
            code.instrs.extend(prefix)  # only assignments: they persist
            return
        if words[0].literal in ("break", "continue") and self.loop_jump(words[0].literal, code):
            return
        mutates = any(w.mutates() for w in words + ([stdin] if stdin else [])) or any(a.mutates for a in prefix)
        code.instrs.append(Command(self.line(node), words, prefix, mutates, stdin=stdin))
        self._named(words[1:])
        head = words[0].literal
        if head and any(_all_arguments(w) for w in words[1:]):
            self.facts.forwards.append(head)
        if head == "shift" or head == "set" and len(words) > 1 and words[1].literal == "--":
            self.facts.shifts = True
        if head in _ASSIGNING:  # `read -r X Y`, `mapfile -t A`, `printf -v X`, `getopts o OPT`, `let X=1`
            self.facts.assigned.update(m[1] for w in words[1:] if w.literal and (m := _ASSIGNED_NAME.match(w.literal)))
        if head in ("test", "["):
            self._posix_test_facts(words[1:])
        elif head == "getopts" and len(words) > 1 and words[1].literal:
            self._option_facts(words[1].literal)
        elif head in ("source", ".", "bash", "sh") and len(words) > 1:
            self._file_name_facts(words[1])

    def _file_name_facts(self, word: Word) -> None:
        """A file run or sourced whose name holds a variable (`source "${DIR}/recipe_${VARIANT:-after}.sh"`):
        the files beside the script that the rest of the name matches are values the variable is
        compared with (explorer.Candidates lists them), so each variant the tree holds is followed."""
        parts = list(word.parts)
        for at, part in enumerate(parts):
            if not isinstance(part, Param) or part.op not in ("", ":-", "-") or part.index is not None or part.length or part.indirect:
                continue
            before = "".join(reversed(_literal_run(reversed(parts[:at]))))
            after = "".join(_literal_run(parts[at + 1:]))
            if after and "/" not in after:
                self.compare(parameter_input(part), "file", (self.src.path, before, after))

    def _option_facts(self, optstring: str) -> None:
        """The options getopts reads are what the script's arguments are compared with."""
        for letter in optstring.replace(":", ""):
            self.compare(ANY_ARGUMENT, "eq", f"-{letter}")
        self.facts.arguments = max(self.facts.arguments, 2 if ":" in optstring.lstrip(":") else 1)

    def reparse(self, start: int, end: int, code: Code) -> None:
        """Compile the statements in data[start:end], parsed on their own at their own offsets."""
        data = self.src.data
        blank = bytes(b if b == 0x0A else 0x20 for b in data[:start])
        tail = bytes(b if b == 0x0A else 0x20 for b in data[end:])
        text = blank + data[start:end] + tail
        tree = _get_parser().parse(text)
        text, after_here_documents = _commands_after_here_documents(self.src, text, tree.root_node)
        if after_here_documents:
            tree = _get_parser().parse(text)
            self.after_here_documents.extend(after_here_documents)
        _check_errors(self.src, tree.root_node)
        self.block(self.statements(tree.root_node), code)

    def _posix_test_facts(self, args: list) -> None:
        lits = [w.literal for w in args]
        for i in range(len(args) - 2):
            if lits[i + 1] in ("=", "==", "!=") and lits[i + 2] is not None:
                self.compare(sole_variable(args[i]), "eq", lits[i + 2])
        for i in range(len(args) - 1):
            if lits[i] in ("-n", "-z"):
                self.compare(sole_variable(args[i + 1]), "empty", None)

    def s_redirected_statement(self, node, code: Code) -> None:
        body = node.child_by_field_name("body")
        if body is None:
            return
        command = _Deferred(node.start_point, lambda out: self._redirected(node, body, out))
        # tree-sitter-bash puts what follows a here-document's `<<EOF` on its line (`&& next`,
        # `|| true`, `| grep x`) inside the redirect: it belongs to the list or pipeline around it.
        heredoc = next((c for c in node.children if c.type == "heredoc_redirect"), None)
        operator = heredoc.child_by_field_name("operator") if heredoc is not None else None
        piped = next((c for c in heredoc.named_children if c.type == "pipeline"), None) if heredoc is not None else None
        if operator is not None:
            self._and_or([command, operator, *_chain(heredoc.child_by_field_name("right"))], code)
        elif piped is not None:
            self._pipeline([command, *(c for c in piped.named_children if c.type not in _SKIP)], False, self.line(node), code)
        else:
            command.compile(code)

    def s_deferred(self, node: _Deferred, code: Code) -> None:
        node.compile(code)

    def _redirected(self, node, body, code: Code) -> None:
        """The command of a redirected statement, with what its redirections tell: the file it
        writes, the here-document it reads, that its output is not captured."""
        before = len(code.instrs)
        self.statement(body, code)
        written = self._written_file(node, body)
        if written is not None:
            code.instrs.append(written)
        else:
            self._read_heredoc(node, code.instrs[before:])
        redirects = [re.sub(r"\s", "", self.text(c)) for c in node.children if c.type == "file_redirect"]
        if any(r in (">&2", "1>&2", ">/dev/null", "1>/dev/null", "&>/dev/null") for r in redirects):
            for instr in code.instrs[before:]:
                if isinstance(instr, Command):
                    instr.silent = True  # its output is not captured by $(...)

    def _written_file(self, node, body) -> WriteFile | None:
        """The file `cat <<EOF > FILE` or `echo … > FILE` writes, when the statement is one of those."""
        redirects = [c for c in node.children if c.type == "file_redirect"]
        heredocs = [c for c in node.children if c.type == "heredoc_redirect"]
        redirects += [c for h in heredocs for c in h.children if c.type == "file_redirect"]
        outputs = [r for r in redirects if r.children and r.children[0].type in (">", ">>", ">|") and r.named_children]
        if len(outputs) != 1 or body.type != "command":
            return None
        words = [c for i, c in enumerate(body.children) if body.field_name_for_child(i) in ("name", "argument")]
        if not words:
            return None
        name = self.text(words[0])
        target = self.word(outputs[0].named_children[-1])
        append = outputs[0].children[0].type == ">>"
        if name == "cat" and len(heredocs) == 1 and len(words) == 1:
            content = self._heredoc_text(heredocs[0])
            return None if content is None else WriteFile(self.line(node), target, content, [], append)
        if name == "echo" and not heredocs:
            return WriteFile(self.line(node), target, None, [self.word(w) for w in words[1:]], append)
        return None

    def _heredoc_text(self, heredoc) -> Word | None:
        """A here-document's text, or None when it is not followed (`<<-` strips the lines' tabs)."""
        parts = {c.type: c for c in heredoc.children}
        start, close = parts.get("heredoc_start"), parts.get("heredoc_end")
        if start is None or close is None or "<<-" in parts:
            return None
        expand = not any(q in self.text(start) for q in "'\"\\")
        # The body is the lines after the one the redirection is on, up to the delimiter's line
        # (tree-sitter's body node leaves out the first line's indentation).
        begin = self.src.text.find("\n", self.src.char_index(start.end_byte)) + 1
        end = self.src.char_index(close.start_byte)
        try:
            return self._counted(lex_heredoc(self.src, begin, end, expand))
        except WordSyntaxError:
            return None

    def _read_heredoc(self, node, compiled: list) -> None:
        """`read` (or mapfile) from a here-document (`read -r -d '' CMD <<EOF`): the command that
        reads its standard input gets the document's text."""
        heredocs = [c for c in node.children if c.type == "heredoc_redirect"]
        if len(heredocs) != 1 or len(compiled) != 1 or type(compiled[0]) is not Command \
                or compiled[0].words[0].literal not in _READERS:
            return
        content = self._heredoc_text(heredocs[0])
        if content is not None and compiled[0].stdin is None:
            compiled[0].stdin, compiled[0].heredoc = content, True
            compiled[0].mutates = compiled[0].mutates or content.mutates()

    def s_list(self, node, code: Code) -> None:
        self._and_or([c for c in node.children if c.type not in _SKIP], code)

    def _and_or(self, kids: list, code: Code) -> None:
        """`a && b || c`: kids are the statements with the operators between them."""
        self.condition([kids[0]], code)
        i = 1
        while i + 1 < len(kids):
            op = kids[i].type
            jump = JumpIf(on_success=(op == "||"))
            code.instrs.append(jump)
            joined = self._joined_lines(kids[i + 1])
            if joined is not None:  # only the assignments belong to the list
                code.instrs.extend(self.assignment(c) for c in joined[0])
                jump.target = len(code.instrs)
                self.reparse(*joined[1], code)
                return
            if i + 2 < len(kids):
                self.condition([kids[i + 1]], code)
            else:
                self.statement(kids[i + 1], code)
            jump.target = len(code.instrs)
            i += 2
        code.instrs.append(Join())

    def s_pipeline(self, node, code: Code) -> None:
        """Each stage runs in a subshell of its own (what it assigns is lost; what it launches is
        not), one after another; `set -e` looks at the pipeline's status, not at a stage's."""
        negated = any(c.type == "!" for c in node.children)
        stages = [c for c in node.named_children if c.type not in _SKIP]
        if stages and stages[0].type == "negated_command":  # tree-sitter-bash reads `! a | b` as `(! a) | b`
            negated = True
            stages[0] = stages[0].named_children[0]
        self._pipeline(stages, negated, self.line(node), code)

    def _pipeline(self, stages: list, negated: bool, line: int, code: Code) -> None:
        end = PipeEnd(line, negated)
        for i, stage in enumerate(stages):
            inner = Code(self.src)
            saved, self.loops = self.loops, []
            self.statement(stage, inner)
            self.loops = saved
            code.instrs.append(Subshell(self.line(stage), inner, stage=True))
            self.unchecked.add(id(code.instrs[-1]))
            if i + 1 < len(stages):
                code.instrs.append(PipeStage(end))
        code.instrs.append(end)
        if negated:
            self.unchecked.add(id(end))

    def s_negated_command(self, node, code: Code) -> None:
        self.condition(node.named_children, code)
        code.instrs.append(Negate())

    def s_compound_statement(self, node, code: Code) -> None:
        if node.children and node.children[0].type == "((":
            self._arith_command(node, code)
            return
        self.block(self.statements(node), code)

    def _arith_command(self, node, code: Code) -> None:
        start = self.src.char_index(node.children[0].end_byte)
        end = self.src.char_index(node.children[-1].start_byte)
        try:
            expr = lex_arith(self.src, start, end)
        except ArithTooDeep as e:
            raise self.too_deep(node, e) from None
        except (ArithError, WordSyntaxError) as e:
            raise self.fail(node, f"arithmetic: {e}") from None
        code.instrs.append(ArithCmd(self.line(node), expr, _arith_mutates(self.src.text[start:end])))

    def s_test_command(self, node, code: Code) -> None:
        opener = node.children[0].type
        if opener == "((":
            self._arith_command(node, code)
            return
        exprs = [c for c in node.named_children if c.type != "comment"]
        if len(exprs) != 1:
            raise self.fail(node, "unsupported test expression")
        double = opener == "[["
        if not double:  # [ ]: bash splits the words and reads them as test's arguments
            words = list(self._leaves(exprs[0]))
            self._posix_test_facts(words)
            code.instrs.append(Test(self.line(node), ("posix", words), False, any(w.mutates() for w in words)))
            return
        expr = self.cond(exprs[0], double)
        code.instrs.append(Test(self.line(node), expr, double, _expr_mutates(expr)))

    def _leaves(self, node):
        if node.type in ("binary_expression", "unary_expression", "parenthesized_expression"):
            for c in node.children:
                yield from self._leaves(c)
        else:
            yield self.word(node)

    def cond(self, node, double: bool) -> tuple:
        t = node.type
        if t == "parenthesized_expression":
            inner = [c for c in node.named_children]
            return self.cond(inner[0], double)
        if t == "binary_expression":
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            op_node = node.child_by_field_name("operator")
            op = self.text(op_node)
            if op in ("&&", "-a", "||", "-o"):
                return ("and" if op in ("&&", "-a") else "or", self.cond(left, double), self.cond(right, double))
            lw, rw = self.word(left), self.word(right)
            name = sole_variable(lw)
            if op in ("==", "=", "!="):
                if rw.literal is not None or all(isinstance(p, Lit) for p in rw.parts):
                    pieces = [(p.text, p.quoted) for p in rw.parts]
                    self.compare(name, "glob" if double else "eq", pieces if double else rw.literal)
            elif op == "=~":
                if all(isinstance(p, Lit) for p in rw.parts):
                    self.compare(name, "regex", [(p.text, p.quoted) for p in rw.parts])
            elif op in ("-eq", "-ne", "-gt", "-ge", "-lt", "-le") and rw.literal is not None:
                self.compare(name, "int", rw.literal)
            return ("bin", op, lw, rw)
        if t == "unary_expression":
            op_node = next((c for c in node.children if c.type in ("test_operator", "!")), None)
            operand = [c for c in node.named_children if c.type != "test_operator"]
            if op_node is None or len(operand) != 1:
                raise self.fail(node, "unsupported test expression")
            op = self.text(op_node)
            if op == "!":
                return ("not", self.cond(operand[0], double))
            w = self.word(operand[0])
            if op in ("-n", "-z"):
                self.compare(sole_variable(w), "empty", None)
            elif op == "-v":
                self.compare(w.literal, "set", None)
            return ("un", op, w)
        w = self.word(node)
        self.compare(sole_variable(w), "empty", None)
        return ("word", w)

    def s_if_statement(self, node, code: Code) -> None:
        out = code.instrs
        arms = []  # (keyword line, condition nodes or None for else, body nodes)
        current = (self.line(node), [], [])
        part = 1
        for c in node.children:
            if c.type == "then":
                part = 2
            elif c.type in ("elif_clause", "else_clause"):
                arms.append(current)
                current = (self.line(c), [] if c.type == "elif_clause" else None, [])
                inner = 1 if c.type == "elif_clause" else 2
                for k in c.children:
                    if k.type == "then":
                        inner = 2
                    elif k.is_named and k.type not in _SKIP:
                        current[inner].append(k)
                part = 0
            elif c.is_named and c.type not in _SKIP and part:
                current[part].append(c)
        arms.append(current)
        ends = []
        for line, cond, body in arms:
            skip = None
            if cond is not None:
                self.condition(cond, code)
                skip = JumpIf(on_success=False)
                out.append(skip)
            out.append(Branch(line))
            self.block(body, code)
            jump = Jump()
            out.append(jump)
            ends.append(jump)
            if skip is not None:
                skip.target = len(out)
        if not arms or arms[-1][1] is not None:
            out.append(SetStatus(0))  # no arm taken: the if's status is 0
        for j in ends:
            j.target = len(out)
        out.append(Join())

    def s_case_statement(self, node, code: Code) -> None:
        self._case(node, [c for c in node.children if c.type == "case_item"], code)

    def _case(self, node, items: list, code: Code, name: str | None = None) -> None:
        """A case statement with these of its items; `name`: the input its patterns are compared
        with, where it is not the word's own variable."""
        out = code.instrs
        value = node.child_by_field_name("value")
        word = self.word(value)
        name = name or sole_variable(word)
        case = Case(self.line(node), word, [], -1, word.mutates())
        out.append(case)
        ends = []
        for item in items:
            patterns, body, fallthrough = [], [], False
            for i, c in enumerate(item.children):
                fname = item.field_name_for_child(i)
                if fname == "value":
                    patterns.append(self.word(c))
                elif fname == "fallthrough":
                    fallthrough = True
                elif c.is_named and c.type not in _SKIP and fname != "termination":
                    body.append(c)
            for p in patterns:
                if all(isinstance(x, Lit) for x in p.parts):
                    self.compare(name, "glob", [(x.text, x.quoted) for x in p.parts])
                if p.mutates():
                    case.mutates = True
            case.items.append((patterns, len(out)))
            if body:  # an arm that does nothing is not worth naming in a witness, as an if's missing else
                out.append(Branch(self.line(item)))
            self.block(body, code)
            if not fallthrough:
                jump = Jump()
                out.append(jump)
                ends.append(jump)
        case.end = len(out)
        out.append(SetStatus(0))
        for j in ends:
            j.target = len(out)
        out.append(Join())

    def s_for_statement(self, node, code: Code) -> None:
        out = code.instrs
        var = node.child_by_field_name("variable")
        values = [self.word(node.children[i]) for i in range(node.child_count)
                  if node.field_name_for_child(i) == "value"]
        has_in = any(c.type == "in" for c in node.children)
        self.facts.assigned.add(self.text(var))
        self._named(values)
        if not has_in or len(values) == 1 and _all_arguments(values[0]):
            # `for arg in "$@"`: each argument passes through the loop variable, so what it is
            # compared with is what any argument may be (explorer.Candidates)
            self.facts.aliases.append((self.text(var), ANY_ARGUMENT))
        init = ForInit(self.line(node), values if has_in else None, any(w.mutates() for w in values))
        out.append(init)
        head = len(out)
        nxt = ForNext(self.text(var), init)
        out.append(nxt)
        self._loop_body(node.child_by_field_name("body"), code, head)
        out.append(Jump(target=head))
        nxt.end = len(out)
        self._close_loop(code)

    def s_while_statement(self, node, code: Code) -> None:
        arms = options_loop(node, self.text)
        if arms is None:
            self._while(node, code)
            return
        # Where the script's arguments are given, the loop runs as written; else each arm is an
        # option a run gives or not, apart from the others (state.option_input): n options cost n
        # forks, where walking the loop over unknown arguments costs a path per sequence of them.
        out = code.instrs
        summary = OptionArms(self.line(node))
        out.append(summary)
        case = arms[0]
        for items, count, valued in arms[1]:
            valued = valued if len(items) > 1 else ()
            names = tuple(option_input(i, self.line(items[0]), count, valued) for i in range(1, count + 1))
            out.append(ArmArguments(names))
            given = OptionGiven()
            out.append(given)
            aliases, comparands = len(self.facts.aliases), {k: len(v) for k, v in self.facts.comparands.items()}
            self._case(case, items, code, names[0])
            self._rename_arguments(names, aliases, comparands)
            given.target = len(out)
            out.append(Join())  # where the runs that give the option and those that do not meet
        out.append(ArmArguments(()))
        done = Jump()
        out.append(done)
        summary.target = len(out)
        self._while(node, code)
        done.target = len(out)

    def _rename_arguments(self, names: tuple, aliases: int, comparands: dict) -> None:
        """What an arm's body compares its words with and copies them into, learnt since `aliases`
        and `comparands` (the counts before it), also for the inputs that are its words past the
        first (the option itself is one its patterns match: what it is copied into is compared
        with says nothing of it)."""
        words = {argument_input(i): name for i, name in enumerate(names, 1) if i > 1}
        self.facts.aliases.extend((assigned, words[read]) for assigned, read in self.facts.aliases[aliases:] if read in words)
        for argument, name in words.items():
            found = self.facts.comparands.get(argument, [])[comparands.get(argument, 0):]
            if found:
                self.facts.comparands.setdefault(name, []).extend(found)

    def _while(self, node, code: Code) -> None:
        out = code.instrs
        until = node.children[0].type == "until"
        head = len(out)
        body = node.child_by_field_name("body")
        conds = [c for c in node.named_children if c is not body and c.type not in _SKIP and c != body]
        conds = [c for c in conds if not (c.start_byte == body.start_byte and c.end_byte == body.end_byte)]
        self.condition(conds, code)
        exit_jump = JumpIf(on_success=until, loop=True, settled=all(map(_reads_variables_only, out[head:])))
        out.append(exit_jump)
        self._loop_body(body, code, head)
        out.append(Jump(target=head))
        exit_jump.target = len(out)
        self._close_loop(code)

    s_until_statement = s_while_statement

    def _loop_body(self, body, code: Code, head: int) -> None:
        self.loops.append(([], [], head))
        if body is not None:
            self.block(self.statements(body), code)

    def _close_loop(self, code: Code) -> None:
        breaks, _, _ = self.loops.pop()
        for j in breaks:
            j.target = len(code.instrs)
        code.instrs.append(SetStatus(0))

    def loop_jump(self, word: str, code: Code) -> bool:
        """Compile break/continue; False outside a loop."""
        if not self.loops:
            return False
        breaks, _, head = self.loops[-1]
        if word == "break":
            j = Jump()
            breaks.append(j)
            code.instrs.append(j)
        else:
            code.instrs.append(Jump(target=head))
        return True

    def s_c_style_for_statement(self, node, code: Code) -> None:
        """for ((init; condition; update)): init, then the condition before each pass and the update
        after it (an empty condition is true, as in bash)."""
        out = code.instrs
        opener = next(c for c in node.children if c.type == "((")
        closer = next(c for c in node.children if c.type == "))")
        separators = [c for c in node.children if c.type == ";" and opener.end_byte <= c.start_byte < closer.start_byte]
        if len(separators) != 2:
            raise self.fail(node, "unsupported arithmetic for loop")
        bounds = [opener.end_byte, separators[0].start_byte, separators[0].end_byte, separators[1].start_byte,
                  separators[1].end_byte, closer.start_byte]
        init, cond, update = (self._arith_span(node, bounds[i], bounds[i + 1]) for i in (0, 2, 4))
        # The header's three parts are no commands: their values (`i = 0` is 0) stop nothing under `set -e`.
        if init is not None:
            out.append(ArithCmd(self.line(node), init, True))
            self.unchecked.add(id(out[-1]))
        enter = Jump()
        out.append(enter)
        head = len(out)
        header = []
        if update is not None:
            header.append(ArithCmd(self.line(node), update, True))
            out.append(header[-1])
            self.unchecked.add(id(out[-1]))
        enter.target = len(out)
        exit_jump = None
        if cond is not None:
            header.append(ArithCmd(self.line(node), cond, _arith_mutates(self.src.text[self.src.char_index(bounds[2]):self.src.char_index(bounds[3])])))
            out.append(header[-1])
            self.unchecked.add(id(out[-1]))
            exit_jump = JumpIf(on_success=False)
            out.append(exit_jump)
        self._loop_body(node.child_by_field_name("body"), code, head)
        out.append(Jump(target=head))
        if exit_jump is not None:
            exit_jump.target = len(out)
            stepped = arith_assigned(update) if update is not None else set()
            if len(stepped) == 1 and next(iter(stepped)).isidentifier() and not self.loops[-1][0] \
                    and not any(map(arith_expands, (cond, update))):
                exit_jump.counter, exit_jump.condition, exit_jump.update, exit_jump.passes_from = stepped.pop(), cond, update, head
                exit_jump.mutates = True  # where its passes are summarised: each of an input's values forks apart
                for instr in header:
                    instr.header = exit_jump
        self._close_loop(code)

    def _arith_span(self, node, start: int, end: int) -> tuple | None:
        if not self.src.data[start:end].strip():
            return None
        try:
            return lex_arith(self.src, self.src.char_index(start), self.src.char_index(end))
        except ArithTooDeep as e:
            raise self.too_deep(node, e) from None
        except (ArithError, WordSyntaxError) as e:
            raise self.fail(node, f"arithmetic: {e}") from None

    def s_function_definition(self, node, code: Code) -> None:
        name = self.text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        fcode = Code(self.src)
        saved, self.loops = self.loops, []
        outer, self.facts = self.facts, FileFacts()
        self.file_facts.functions.setdefault(name, []).append(self.facts)
        if body.type == "subshell":
            inner = Code(self.src)
            self.block(self.statements(body), inner)
            fcode.instrs.append(Subshell(self.line(body), inner))
        else:
            self.statement(body, fcode)
        self.loops, self.facts = saved, outer
        code.instrs.append(FuncDef(self.line(node), name, fcode))

    def s_subshell(self, node, code: Code) -> None:
        inner = Code(self.src)
        saved, self.loops = self.loops, []
        self.block(self.statements(node), inner)
        self.loops = saved
        code.instrs.append(Subshell(self.line(node), inner))

    def s_ERROR(self, node, code: Code) -> None:
        raise self.fail(node, "syntax error")


@dataclass(eq=False)
class _Deferred:
    """A statement compiled by a closure where the compiler expects a node (the command a
    here-document is redirected into, inside the list or pipeline tree-sitter-bash hides)."""

    start_point: tuple
    compile: Callable[[Code], None]
    type: str = "deferred"


def _chain(node) -> list:
    """A list's statements and operators in order (`a && b || c`), however tree-sitter nests it."""
    if node.type != "list":
        return [node]
    kids = [c for c in node.children if c.type not in _SKIP]
    return _chain(kids[0]) + kids[1:]


def _line_break(data: bytes, start: int, end: int) -> bool:
    gap = data[start:end].replace(b"\\\n", b"")
    return b"\n" in gap


def _separate_assignment_lines(data: bytes, root) -> bytes:
    """`A=1 B=2` alone on a line, read by bash as `A=1;B=2`.

    tree-sitter-bash joins such a line with the next line's command, or fails on what follows it.
    Putting `;` in place of the blank between the assignments keeps every offset and line as it was.
    """
    gaps: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kids = node.children
        stack.extend(kids)
        if node.type == "declaration_command":  # export A=1 B=2 exports both
            continue
        run: list = []
        for k in kids + [None]:
            if k is not None and k.type == "variable_assignment" and (
                    not run or _blank(data, run[-1].end_byte, k.start_byte)):
                run.append(k)
                continue
            if len(run) > 1 and _line_starts(data, run[0].start_byte) and _line_ends(data, run[-1].end_byte):
                gaps.extend((a.end_byte, b.start_byte) for a, b in zip(run, run[1:]))
            run = [k] if k is not None and k.type == "variable_assignment" else []
    if not gaps:
        return data
    out = bytearray(data)
    for start, _ in gaps:
        out[start] = ord(";")
    return bytes(out)


def _blank(data: bytes, start: int, end: int) -> bool:
    return end > start and data[start:end].strip(b" \t") == b""


def _line_starts(data: bytes, start: int) -> bool:
    return data[data.rfind(b"\n", 0, start) + 1:start].strip(b" \t") == b""


def _line_ends(data: bytes, end: int) -> bool:
    rest = data[end:end + 200].lstrip(b" \t")
    return not rest or rest[:1] in (b"\n", b"#", b";")


def _arith_mutates(text: str) -> bool:
    return bool(ARITH_ASSIGN.search(text))


def _leaves(expr: tuple):
    """The comparisons of a test expression, past its `&&`, `||` and `!`."""
    if expr[0] in ("and", "or"):
        yield from _leaves(expr[1])
        yield from _leaves(expr[2])
    elif expr[0] == "not":
        yield from _leaves(expr[1])
    else:
        yield expr


def _expr_mutates(expr: tuple) -> bool:
    return any(map(_leaf_mutates, _leaves(expr)))


def _leaf_mutates(leaf: tuple) -> bool:
    kind = leaf[0]
    if kind == "posix":
        return any(w.mutates() for w in leaf[1])
    if kind == "bin":
        arithmetic = leaf[1] in ("-eq", "-ne", "-gt", "-ge", "-lt", "-le") and any(
            ARITH_ASSIGN.search("".join(p.text for p in w.parts if isinstance(p, Lit))) for w in leaf[2:])
        return leaf[2].mutates() or leaf[3].mutates() or arithmetic
    return leaf[-1].mutates()


# ---- files ------------------------------------------------------------------------------------


def script_error(src: Source, index: int, message: str) -> ScriptError:
    """The error at character `index` of the script, at its line and column."""
    where = src.origin(index)
    return ScriptError(src.path, where.line, message, where.column)


def _check_errors(src: Source, node) -> None:
    """Fail closed on a parse error, except the arithmetic-in-default trap the lexer handles itself."""
    stack = [node]
    while stack:
        n = stack.pop()
        if not n.has_error and not n.is_missing:
            continue
        if n.type == "expansion" and "$((" in src.data[n.start_byte:n.end_byte].decode("utf-8"):
            continue  # the word lexer re-reads this expansion from the text
        if n.is_error or n.is_missing:
            inner = [c for c in n.children if c.has_error]
            if not inner or n.is_missing:
                what = "missing " + n.type if n.is_missing else "syntax error"
                # the parser gives up where its last child starts; an ERROR can span from far above
                at = n.children[-1] if n.children and not n.is_missing else n
                raise script_error(src, src.char_index(at.start_byte), what)
        stack.extend(reversed(n.children))


def before_syntax_error(data: bytes) -> bytes | None:
    """The script's top-level commands before the first one bash cannot parse (bash runs those,
    then stops at the error with status 2), with `exit 2` after them: the same bytes at the same
    offsets. None when there is none before it."""
    root = _get_parser().parse(_readable(data)).root_node
    first = next((c for c in root.children if c.has_error or c.is_missing or c.is_error), None)
    if first is None or not data[:first.start_byte].strip():
        return None
    return data[:first.start_byte] + b"\nexit 2\n"


_parser = None


def _get_parser():
    global _parser
    if _parser is None:
        # tree-sitter-bash: only once a script is parsed (checking a YAML config imports this package too)
        import tree_sitter_bash as tsb  # noqa: PLC0415 tree-sitter: only once a script is parsed
        from tree_sitter import Language, Parser  # noqa: PLC0415 tree-sitter: only once a script is parsed

        _parser = Parser(Language(tsb.language()))
    return _parser


@dataclass(eq=False)
class CompiledFile:
    code: Code
    facts: FileFacts


def compile_span(src: Source, start: int, end: int) -> Code:
    """The commands in characters start:end of a compiled file (a command substitution), parsed on
    their own at their own offsets, so their words keep their origins."""
    found = src.spans.get((start, end))
    if found is None:
        code = Code(src)
        Compiler(src, FileFacts()).reparse(src.byte_offset(start), src.byte_offset(end), code)
        found = src.spans[(start, end)] = code
    return found


_BACKTICK_COMMENT = re.compile(rb"`[ \t]*#[^`\n]*`")
_SHADOWING_DEFINITION = re.compile(rb"(?m)^([ \t]*(?:function[ \t]+)?)(export|local|declare|readonly|typeset)(?=[ \t]*\(\))")


def _readable(data: bytes) -> bytes:
    """The script as tree-sitter-bash can read it, where bash reads what it cannot; every offset
    and line stays as it was (the compiler reads names and words from the original text):
    a command substitution that is only a comment (`# note` inside a command) runs nothing, so
    it is blank; a function named like a declaration builtin (`export() { :; }`) is parsed under
    another name of the same length; a backslash that ends the file continues nothing; an escaped
    backslash is two other characters (tree-sitter-bash reads `$'\\\\'` as a backslash escaping the
    closing quote: the string runs on to the next quote), as it means nothing to the words around it."""
    data = data.replace(b"\\\\", b"__")
    data = _BACKTICK_COMMENT.sub(lambda m: b" " * len(m.group()), data)
    data = _SHADOWING_DEFINITION.sub(lambda m: m.group(1) + b"_" + m.group(2)[1:], data)
    body = data.rstrip(b"\n")
    if body.endswith(b"\\") and not body.endswith(b"\\\\"):
        data = body[:-1] + b" " + data[len(body):]
    return data


# A here-document's operator and the redirections after it on its line, when a pipe, `;` or `&` ends
# them (`bash <<-EOF 2>&1 | tee log`): bash takes a command's redirections in any order, and
# tree-sitter-bash reads them only before the here-document.
_REDIRECTIONS_AFTER_HERE_DOCUMENT = re.compile(
    rb"(?<![<$(])(<<-?[ \t]*(?:'[^'\n]*'|\"[^\"\n]*\"|\\?[A-Za-z_][A-Za-z0-9_]*))"
    rb"((?:[ \t]+(?:[0-9]*>>?|[0-9]*[<>]&|&>>?)[ \t]*[^\s|;&<>()]+)+)(?=[ \t]*[|;&])")


# A here-document's operator and what follows its delimiter on its line: `;` and more commands
# (`cat <<EOF; echo done`), or another operator right after the delimiter (`cat <<EOF|tr a b`).
# tree-sitter-bash takes a `;` or operator there into the delimiter (the document then never ends
# and swallows the script's next lines) or fails on it; bash runs the commands after the `;` once
# the command with the document has run.
_AFTER_HERE_DOCUMENT_DELIMITER = re.compile(
    rb"(?<![<$(])<<-?[ \t]*(?:'[^'\n]*'|\"[^\"\n]*\"|\\?[A-Za-z_][A-Za-z0-9_]*)"
    rb"(?:[ \t]*(;)(?!;)([^\n]*)|([;&|()<>]))")
_HERE_DOCUMENT_OPERATOR = re.compile(rb"(?<!<)<<-?(?!<)")


def _commands_after_here_documents(src: Source, data: bytes, root) -> tuple[bytes, list[tuple[int, int]]]:
    """The script with the `;` and the commands after it on each here-document operator's line
    blanked (every offset and line kept), and the spans of those commands, for the compiler to
    parse on their own. An operator glued to the delimiter, or a second here-document among those
    commands, is a ScriptError: tree-sitter-bash would read it wrongly, without a parse error."""
    spans = []
    for m in _AFTER_HERE_DOCUMENT_DELIMITER.finditer(data):
        token = root.descendant_for_byte_range(m.start(), m.start() + 2)
        if token is None or token.start_byte != m.start() or token.type not in ("<<", "<<-") \
                or token.parent.type not in ("heredoc_redirect", "ERROR"):
            continue  # in a string, a comment, a document's text or arithmetic: not this operator
        if m.group(3) is not None:
            raise script_error(src, src.char_index(m.start(3)), f"{m.group(3).decode()!r} right after a here-document's "
                               "delimiter: tree-sitter-bash reads it as part of the delimiter; put a blank before it")
        if _HERE_DOCUMENT_OPERATOR.search(m.group(2)):
            raise script_error(src, src.char_index(m.start(2)), "a second here-document on the line of another "
                               "is not read; give each its own line")
        spans.append((m.start(1) + 1, m.end(2)))
        data = data[:m.start(1)] + b" " * (m.end(2) - m.start(1)) + data[m.end(2):]
    return data, spans


def _redirections_first(data: bytes) -> bytes:
    """The script with each such line's redirections moved before its here-document operator, as
    tree-sitter-bash reads them; the line keeps its length, so every other word keeps its place."""
    def moved(m: re.Match) -> bytes:
        redirections = m.group(2)
        gap = redirections[:len(redirections) - len(redirections.lstrip())]
        return redirections.lstrip() + gap + m.group(1)

    return _REDIRECTIONS_AFTER_HERE_DOCUMENT.sub(moved, data)


def compile_file(path: str) -> CompiledFile:
    """Parse and compile a script: an editor's open buffer of it, else the file."""
    buffer = buffer_of(path)
    if buffer is not None:
        return compile_text(path, buffer)
    try:
        data = read_file(path, SCRIPT)
    except Unreadable as err:
        raise ScriptError(path, 0, err.reason) from None
    return compile_text(path, data)


# Keyed on the bytes, not on a file's modification time: an editor's buffer changes without one, and
# a witness re-runs the script it was found in. Bounded for a long-lived language server.
@lru_cache(maxsize=64)
def compile_text(path: str, data: bytes) -> CompiledFile:
    """Parse and compile a script's bytes; `path` names it (a file, or a virtual path such as a
    manifest's `bash -c` command)."""
    data = _redirections_first(data)
    try:
        src = Source(path, data)
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ScriptError(path, line, "not UTF-8 text") from None
    parser = _get_parser()
    readable = _readable(data)
    tree = parser.parse(readable)
    readable, after_here_documents = _commands_after_here_documents(src, readable, tree.root_node)
    if after_here_documents:
        tree = parser.parse(readable)
    patched = _separate_assignment_lines(readable, tree.root_node)
    if patched != readable:
        tree = parser.parse(patched)
    _check_errors(src, tree.root_node)
    check_depth(src, tree.root_node)
    facts = FileFacts()
    compiler = Compiler(src, facts)
    compiler.after_here_documents = after_here_documents
    code = Code(src)
    compiler.block(compiler.statements(tree.root_node), code)
    return CompiledFile(code, facts)


_FILE_TESTS = frozenset(("-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x",
                         "-G", "-L", "-N", "-O", "-S", "-ef", "-nt", "-ot"))


def _reads_variables_only(instr: Instr) -> bool:
    """Whether a loop test's instruction reads nothing but the shell's variables and arguments."""
    if type(instr) is Test:
        return _test_reads_variables_only(instr.expr)
    return type(instr) in (ArithCmd, Negate)


def _test_reads_variables_only(expr: tuple) -> bool:
    return all(leaf[0] in ("un", "bin", "word") and (leaf[0] == "word" or leaf[1] not in _FILE_TESTS) and not _leaf_mutates(leaf)
               and not any(type(p) is CmdSub for word in leaf[2 if leaf[0] != "word" else 1:] for p in word.parts)
               for leaf in _leaves(expr))

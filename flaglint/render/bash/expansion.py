"""Word expansion: parameters, arithmetic, command substitution, field splitting, as a part of
the machine (Interp) that owns the variables."""

from __future__ import annotations

import os
import re
import weakref

from flaglint.core.findings import InputError
from flaglint.core.reading import SCRIPT, Unreadable, read_file
from flaglint.read.argv import shell_words
from flaglint.render.bash.arithmetic import (
    ArithContext,
    ArithError,
    ArithUnknown,
    eval_arith,
    parse_arith_text,
)
from flaglint.render.bash.arrays import factored, has_absent, may_be_absent, starred
from flaglint.render.bash.compiler import compile_span
from flaglint.render.bash.counted import CAPTURED
from flaglint.render.bash.lexer import (
    UNSET_OPERATORS,
    Arith,
    CmdSub,
    Lit,
    Param,
    Word,
    compile_glob,
)
from flaglint.render.bash.printf import OPAQUE_OUTPUT
from flaglint.render.bash.state import (
    ARGUMENT_COUNT,
    UNKNOWN_ARGUMENTS,
    NeedInput,
    State,
    argument_input,
    is_argument,
    is_option,
    settled_positional,
)
from flaglint.render.bash.types import (
    ELEMENT_BREAK,
    OTHER,
    Choice,
    FromInput,
    Spans,
    Split,
    Sym,
    Value,
    joined_origins,
    read_names,
)

_BREAK = ("", (), True, False)  # separates the fields of "$@"
_IFS = " \t\n"
_IFS_RUN = re.compile(r"[ \t\n]+")
_BLANK = Value(" ", [None])  # between the elements of an array read as one Split (command_elements)
_ELEMENT_BREAK = Value(" ", [ELEMENT_BREAK])  # before each element of one that keeps them whole
# The most alternatives a launch word is expanded on, its inputs decided one by one (_guarded_fields).
GUARDED_LEAVES = 256



# The variables bash sets itself when it starts or on each read (`${RANDOM}` in a run name): never
# unset, so `set -u` never stops at them.
SET_BY_BASH = frozenset({"RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS", "EPOCHREALTIME", "BASHPID", "PPID", "UID", "EUID",
                          "LINENO", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "BASH_VERSION", "SHLVL", "PWD"})

class ExitScript(Exception):
    pass


class _Unfolded(Exception):
    """An alternative of a joined variable that by_alternative does not compute alone."""


STOPS_NOTE = "set -u:"  # how the note of a stop under set -u begins


class UnsetStop(ExitScript):
    """`set -u` and a variable unset on the path: bash stops there."""


class AbortCommand(Exception):
    """An expansion error ($(( 08 ))): bash abandons the command it is in, and the function or
    sourced file that command is part of, and goes on with the next command at the top."""


def input_value(text: str | None) -> Value | None:
    return None if text is None else Value(text, Spans.unwritten(len(text)))


def token_value(value: Value, token) -> Value:
    """The Value of one shell word (a read.argv Token) of `value`'s text, with the origins of its
    text; a quoted word's characters each point at where it starts."""
    origins = list(value.origins[token.offset:token.end_offset])
    if len(origins) != len(token.text):
        origins = [origins[0] if origins else None] * len(token.text)
    return Value(token.text, origins)


def split_words(value: Value, start: int = 0) -> list[Value] | None:
    """The shell words of `value`'s text from `start` (quotes and backslashes as bash reads them,
    nothing expanded); None where its quotes do not close."""
    try:
        tokens = shell_words(value.text[start:])
    except InputError:
        return None
    tail = Value(value.text[start:], value.origins[start:], value.opaque)
    return [token_value(tail, token) for token in tokens]


def segment(v: Value, quoted: bool) -> tuple:
    return (v.text, v.origins, quoted, v.opaque)


def _computed(text: str, quoted: bool) -> tuple:
    return (text, (None,) * len(text), quoted, False)


def join_segments(segs: list) -> Value:
    text, runs, opaque = [], [], False
    for s in segs:
        if s is _BREAK:
            text.append(" ")
            runs.append((None,))
            continue
        text.append(s[0])
        runs.append(s[1])
        opaque = opaque or s[3]
    return Value("".join(text), joined_origins(runs), opaque)


def split_fields(segs: list) -> list[Value]:
    """The fields of a word's segments: a quoted one joins the field it is in, an unquoted one is
    cut at its runs of blanks. Each field's origins are its pieces' spans joined (never one Origin
    a character: a long captured string would cost a run for each of its characters)."""
    fields: list[Value] = []
    text: list[str] = []
    origins: list = []
    opaque = False
    exists = False
    for s in segs:
        if s is _BREAK:
            fields.append(Value("".join(text), joined_origins(origins), opaque))
            text, origins, opaque, exists = [], [], False, False
            continue
        if s[2]:
            text.append(s[0])
            origins.append(s[1])
            opaque = opaque or s[3]
            exists = True
            continue
        at = 0
        for blanks in _IFS_RUN.finditer(s[0]):
            if blanks.start() > at:
                text.append(s[0][at:blanks.start()])
                origins.append(s[1][at:blanks.start()])
                exists = True
            if exists:
                fields.append(Value("".join(text), joined_origins(origins), opaque))
                text, origins, opaque, exists = [], [], False, False
            at = blanks.end()
        if at < len(s[0]):
            text.append(s[0][at:])
            origins.append(s[1][at:])
            exists = True
        if s[3] and (exists or not s[0]):  # a value not known here: a field, even where its known text is empty
            opaque = exists = True
    if exists:
        fields.append(Value("".join(text), joined_origins(origins), opaque))
    return fields


# `$(cat FILE)`, `$(< FILE)`: one literal path (letters, digits, `._/-`) and nothing more
_CAT_FILE = re.compile(r"\$\(\s*(?:cat\s+|<\s*)([\w./-]+)\s*\)")
_CAT_HERESTRING = re.compile(r"\$\(\s*cat\s+<<<[^|;&<>`]*\)")  # `$(cat <<< word)` and nothing more



def _parameter(name: str) -> str:
    """A parameter as the user reads it: `$3` for an argument, else the variable's name."""
    return f"${name}" if name.isdigit() else name


def is_symbolic(value) -> bool:
    return type(value) is Choice or type(value) is Sym


def glob_pieces(segs: list) -> list[tuple[str, bool]]:
    return [(s[0], s[2]) for s in segs if s is not _BREAK]


def plain_variable(p) -> bool:
    """Whether a word's part is a variable read whole (`$X`, `${X}`): no operator, index or length."""
    return (type(p) is Param and p.index is None and not p.length and not p.indirect and not p.op
            and (p.name[0].isalpha() or p.name[0] == "_"))


def _quoted_blank(segs: list) -> bool:
    """Whether a quoted segment holds a blank (bash keeps it inside one field)."""
    return any(seg[2] and any(ch in _IFS for ch in seg[0]) for seg in segs)


def fold_parts(value, leaf, below, combine):
    """A symbolic value folded from its leaves up: `leaf(part, within)` of a part that is no Choice
    or string, `below(part, within)` the (child, within) pairs of one that is, `combine(part,
    results)` its result from theirs; `within`: the input and value set of the Choice a part is in
    (a FromInput there takes those values). Each part is read once per Choice around it, without
    recursion: a value joined n times is a graph of shared parts, never walked as the tree of its
    2**n ways down."""
    found: dict[tuple, object] = {}
    stack = [(value, None, False)]
    while stack:
        part, within, ready = stack.pop()
        key = (id(part), within)
        if key in found:
            continue
        if type(part) is not Choice and type(part) is not Sym:
            found[key] = leaf(part, within)
            continue
        children = below(part, within)
        if not ready:
            stack.append((part, within, True))
            stack.extend((child, inside, False) for child, inside in children)
            continue
        found[key] = combine(part, [found[(id(child), inside)] for child, inside in children])
    return found[(id(value), None)]


def _every_alternative(value, leaf, any_piece: bool) -> bool:
    """Whether `leaf(part, within)` holds of every alternative of a symbolic value: of each Choice's
    every alternative, of a string's every piece (`any_piece`: of one of them)."""
    def below(part, within) -> list:
        if type(part) is Choice:
            return [(alt, (part.name, values)) for values, alt in part.alts]
        return [(piece, within) for piece in part.pieces]

    return fold_parts(value, leaf, below, lambda part, results: any(results) if type(part) is Sym and any_piece else all(results))


def _behind_break(element, made: dict):
    """A Choice of an array's element (a None alternative: absent), each alternative that is there
    written behind an element break; nested Choices (guards on other inputs) mapped once each."""
    if element is None:
        return None
    if type(element) is not Choice:
        return Sym((_ELEMENT_BREAK, element))
    found = made.get(id(element))
    if found is None:
        found = made[id(element)] = Choice(element.name, tuple((values, _behind_break(alt, made)) for values, alt in element.alts))
    return found


# Of each symbolic value asked about, whether it could be never empty on some path (its inputs' own
# values set and not empty): whatever the path, an empty or unset alternative of it is not.
_MAYBE_NEVER_EMPTY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _maybe_never_empty(value) -> bool:
    """Whether some path may find every alternative of a symbolic value set and not empty: false
    where one holds an empty string or nothing, whatever its inputs take (each value is walked once,
    not once for each path that reads it: the arms of an options loop read the same value n times,
    each forked n ways)."""
    found = _MAYBE_NEVER_EMPTY.get(value)
    if found is None:
        found = _MAYBE_NEVER_EMPTY[value] = _every_alternative(
            value, lambda part, _: part.text != "" if type(part) is Value else type(part) is FromInput, any_piece=True)
    return found


class _Arith(ArithContext):
    def __init__(self, interp: Expansion, st: State):
        self.interp, self.st = interp, st

    def get(self, name: str) -> str | None:
        if name.endswith("]"):  # an array element
            base, _, index = name[:-1].partition("[")
            elems = self.interp.lookup(self.st, base)
            elems = elems if isinstance(elems, list) else ([elems] if elems is not None else [])
            i = eval_arith(parse_arith_text(index), self)
            v = elems[i] if -len(elems) <= i < len(elems) else None
        else:
            v = self.interp.scalar(self.st, name)
        if v is not None:
            self.interp.watch(self.st, v)
        return None if v is None else v.text

    def set(self, name: str, value: int) -> None:
        text = str(value)
        self.interp.assign(self.st, name, Value(text, [None] * len(text)))

    def expand(self, part) -> str:
        return join_segments(self.interp.part(part, self.st)).text


class Expansion:
    """The expansion of words, for the machine (Interp) that holds the state."""

    # ---- words ----
    def segments(self, word: Word, st: State) -> list:
        segs: list = []
        for p in word.parts:
            if type(p) is Lit:
                segs.append((p.text, p.origins, p.quoted, False))
            else:
                segs.extend(self.part(p, st))
        return segs

    def value(self, word: Word, st: State) -> Value:
        return join_segments(self.segments(word, st))

    def watched(self, word: Word, st: State) -> Value:
        """The word's value, where its own characters count (counted.CountedLoops.watch)."""
        value = self.value(word, st)
        self.watch(st, value)
        return value

    def symbolic_value(self, word: Word, st: State):
        """An assignment's value: a variable that holds a joined (symbolic) value and is expanded
        whole stays symbolic, so `X="${X} k=v"` after n joins is one value, not 2**n."""
        if word.literal is not None:
            return self.value(word, st)
        pieces: list = []
        segs: list = []
        for p in word.parts:
            if type(p) is Param and p.index is None and not p.length and not p.indirect and p.op in ("", ":-", "-"):
                raw = self._raw_param(p.name, st)
                if is_symbolic(raw) and (not p.op or self._never_empty(raw, st)) and not (not p.op and self._may_stop(raw, st)):
                    if segs:
                        pieces.append(join_segments(segs))
                        segs = []
                    pieces.extend(raw.pieces if type(raw) is Sym else (raw,))
                    continue
            try:
                segs.extend(self.part(p, st))
            except NeedInput:
                # `X="${A:+--a=$A} ${B:+--b=$B}"`: each part that reads an input the path has not
                # decided is a Choice on it, not a fork of the assignment per combination
                found = self._guarded_part(p, st) if self.joins and not word.mutates() else None
                if found is None:
                    raise
                if segs:
                    pieces.append(join_segments(segs))
                    segs = []
                pieces.append(found[0])
        if not pieces:
            return join_segments(segs)
        if segs:
            pieces.append(join_segments(segs))
        return Sym(tuple(pieces))

    def _may_stop(self, raw, st: State) -> bool:
        """Whether reading a joined value whole may stop bash: under `set -u`, an alternative of it
        that some paths never assigned reads the input, unset there."""
        return "u" in st.options and self.candidates is not None and bool(read_names(raw))

    def _raw_param(self, name: str, st: State):
        """A variable's or a positional parameter's value as stored (symbolic where it was joined,
        or handed to a function as array_fields keeps it); None for any other parameter."""
        if name[0].isalpha() or name[0] == "_":
            return self.raw(st, name)
        if name.isdigit() and name != "0" and st.positional != UNKNOWN_ARGUMENTS:
            index = int(name)
            if index > len(st.positional) or has_absent(st.positional[:index]):
                return None  # where an argument before it may be absent, which one it is is decided (positional)
            return st.positional[index - 1]
        return None

    def array_fields(self, words: list, st: State) -> list:
        """The fields of an array's elements or a function's arguments, as fields() gives them,
        except that a word that is one field whatever its joined variables hold stays symbolic
        (launch_fields), and so does each element of `"${a[@]}"`: handed on undecided, they fork
        the path only where something reads them (Interp.lookup, argument)."""
        out: list = []
        for w in words:
            elements = self._quoted_elements(w, st)
            if elements is not None:
                out.extend(elements)
                continue
            value = self._symbolic_field(w, st) if w.literal is None else None
            if value is None:
                out.extend(self.fields([w], st))
            else:
                # a quoted unset variable is an empty field, as a Sym's unset piece reads
                out.append(Sym((value,)) if type(value) is Choice else value)
        return out

    def _quoted_elements(self, word: Word, st: State) -> list | None:
        """`"${a[@]}"` of an array with a symbolic element: its set elements, one field each as
        stored, those some alternatives have not among them (arrays.factored: whoever reads them
        decides them, Expansion.positional); None for any other word."""
        p = _quoted_array(word)
        if p is None:
            return None
        raw = self.raw(st, p.name)
        array = raw if type(raw) is list else factored(raw) if type(raw) is Choice else None
        if not array or not any(is_symbolic(element) for element in array):
            return None
        return [element for element in array if element is not None]

    def command_elements(self, part, st: State, head: bool = True) -> list | None:
        """`"${CMD[@]}"` as a command's words, where CMD is an array joined paths grew differently
        (arrays.factored): its elements as stored, one word each, and the elements some
        alternatives have not, one after another, one Split of them (one word, as `$FLAGS` of a
        string is, not n words each read with the others): joined by blanks where none of them
        holds a blank or is empty where it is set, else each behind an element break, which keeps
        its blanks and its emptiness (types.ifs_fields). None where it is not such an array, or
        (`head`: the words begin the command) its first element is not the same Value on every
        alternative."""
        raw = self.raw(st, part.name)
        array = factored(raw) if type(raw) is Choice else raw if type(raw) is list else None
        if not array or head and type(array[0]) is not Value or not any(map(is_symbolic, array)):
            return None
        words: list = []
        absent: list = []  # a run of elements some alternatives have not
        for element in array:
            if element is None:  # unset: "${A[@]}" gives it no field
                continue
            if may_be_absent(element):
                absent.append(element)
                continue
            if absent:
                words.append(self._absent_run(absent, st))
                absent = []
            words.append(element)
        if absent:
            words.append(self._absent_run(absent, st))
        return words

    def _absent_run(self, elements: list, st: State) -> Split:
        """One Split for elements some alternatives have not (command_elements)."""
        if all(self._blank_free(element, st) and self._set_ones_never_empty(element, st) for element in elements):
            return Split(Sym(tuple(piece for element in elements for piece in (_BLANK, element))[1:]))
        made: dict = {}
        return Split(Sym(tuple(_behind_break(element, made) for element in elements)))

    def _set_ones_never_empty(self, element: Choice, st: State) -> bool:
        """Whether each alternative of an element that some alternatives have not is, where it is
        there, never empty."""
        todo, seen = [element], set()
        while todo:
            current = todo.pop()
            if id(current) in seen or current is None:
                continue
            seen.add(id(current))
            if type(current) is Choice:
                todo.extend(alt for _, alt in current.alts)
            elif not (current.text != "" if type(current) is Value else is_symbolic(current) and self._never_empty(current, st)):
                return False
        return True

    def launch_fields(self, words: list, st: State) -> list:
        """The words of a launched program, as fields() gives them, except that a word that is one
        field whatever its joined (symbolic) variables hold stays symbolic (a Sym or Choice), and
        an unquoted one bash may split stays whole as a Split: a launch after n joins is one
        launch, not 2**n paths (launch_parts makes it concrete)."""
        out: list = []
        for w in words:
            elements = self._launch_elements(w, st)
            if elements is not None:
                out.extend(elements)
                continue
            try:
                value = self._symbolic_field(w, st, split=True) if w.literal is None else None
            except NeedInput:
                value = None  # another part of it reads an input the path has not decided
            if value is not None:
                out.append(value)
            elif w.literal is None and self.joins and not w.mutates():
                out.extend(self._guarded_fields(w, st))
            else:
                out.extend(self.fields([w], st))
        return out

    def _launch_elements(self, word: Word, st: State) -> list | None:
        """`"${A[@]}"` among a program's arguments, A an array joined paths grew differently: its
        words as command_elements gives them; None for any other word."""
        p = _quoted_array(word)
        if p is None:
            return None
        return self.command_elements(p, st, head=False)

    def _guarded_fields(self, word: Word, st: State) -> list:
        """The fields of a launch word; where a part of it reads inputs the path has not decided
        (`${X:+--x=$X}`, `${MODE:-train}`), that part is a Choice on them, each alternative the
        part with that input decided, so that a launch whose words read n inputs is one launch,
        not a path for each combination of their values: a word of fifty optional parts is fifty
        Choices side by side. A word with an unquoted expansion is a Split (its fields are made
        where its inputs are decided). The path forks as for any command where that would not be
        what bash does: a quoted blank in a word bash splits, a value that stops bash (set -u) or
        notes something, a part of more than GUARDED_LEAVES alternatives."""
        try:
            return self.fields([word], st)
        except NeedInput:
            pass
        pieces: list = []
        splits = blank_in_quotes = False
        maybe_empty = True  # whether bash may find the word empty and drop it (no quote, no literal text)
        for p in word.parts:
            if type(p) is Lit:
                pieces.append(Value(p.text, p.origins))
                maybe_empty = maybe_empty and not p.quoted and not p.text
                continue
            found = self._guarded_part(p, st)
            if found is None:
                return self.fields([word], st)
            value, blank = found
            pieces.append(value)
            if p.quoted:
                maybe_empty = False
            else:  # unquoted: bash splits it where a value holds a blank
                splits = splits or not (self._blank_free(value, st) if is_symbolic(value) else not any(ch in _IFS for ch in value.text))
                maybe_empty = maybe_empty and not (self._never_empty(value, st) if is_symbolic(value) else value.text)
            blank_in_quotes = blank_in_quotes or blank
        if not splits and not maybe_empty:
            return [Sym(tuple(pieces))]  # one field, whatever its inputs hold
        if blank_in_quotes or any(p.quoted for p in word.parts) and not any(type(p) is Lit and p.text for p in word.parts):
            return self.fields([word], st)  # a quoted blank, or a quoted empty field, that a Split would lose
        return [Split(Sym(tuple(pieces)))]

    def _guarded_part(self, part, st: State) -> tuple | None:
        """One expansion of a word, as a Value where the path decides it, else a Choice on the inputs
        it reads (each decided in turn, on copies of the path), and whether a quoted segment of it
        holds a blank. Where bash would stop or note something on some values of the first input
        it reads, or they give more than GUARDED_LEAVES alternatives, the path forks on that input
        (NeedInput), those values apart; None where it yields several fields of "$@"."""
        if type(part) is Param and part.index == "*" and not (part.op or part.length or part.indirect) \
                and (part.name[0].isalpha() or part.name[0] == "_"):
            raw = self.raw(st, part.name)
            array = factored(raw) if type(raw) is Choice else raw
            if type(array) is list and has_absent(array):  # `${A[*]}` joined, none of its elements decided
                return starred(array), part.quoted
        if plain_variable(part):
            raw = self.raw(st, part.name)
            if is_symbolic(raw) and not self._may_stop(raw, st):  # a joined value: kept as it is, never walked alternative by alternative
                return raw, part.quoted and not self._blank_free(raw, st)
        leaves = 0
        blank = False

        def expanded(state: State, top: bool = False):
            nonlocal leaves, blank
            scratch = state.copy()
            try:
                segs = self.part(part, scratch)
            except NeedInput as need:
                if is_argument(need.name) and not is_option(need.name):
                    return None  # the script's arguments are decided where they are read (options loops, witnesses)
                alternatives: dict[tuple, tuple[list, object]] = {}
                apart = []  # the values on which bash stops, or which the part cannot be guarded on
                for text in need.candidates:
                    decided = state.copy()
                    self.decide(decided, need.name, text)
                    value = expanded(decided)
                    if value is None:
                        if not top:
                            return None
                        apart.append(text)
                        continue
                    alternatives.setdefault(_identity(value), ([], value))[0].append(text)
                if apart:
                    # the path forks on the first input alone: each of those values apart, the
                    # others together (on them, the part is a Choice when the step runs again)
                    together = tuple(text for texts, _ in alternatives.values() for text in texts)
                    raise NeedInput(need.name, need.candidates, tuple((text,) for text in apart) + ((together,) if together else ()))
                return Choice(need.name, tuple((frozenset(texts), value) for texts, value in alternatives.values()))
            except (ExitScript, AbortCommand):
                return None
            leaves += 1
            if leaves > GUARDED_LEAVES or scratch.notes is not state.notes or any(seg is _BREAK for seg in segs):
                return None
            blank = blank or _quoted_blank(segs)
            return join_segments(segs)

        try:
            segs = self.part(part, st)
        except NeedInput:
            found = self._part_by_alternative(part, st)
            if found is not None:
                return found
            value = expanded(st, top=True)
            return None if value is None else (value, blank)
        if any(seg is _BREAK for seg in segs):
            return None
        return join_segments(segs), _quoted_blank(segs)

    def _part_by_alternative(self, part, st: State) -> tuple | None:
        """`${A[*]}`, `${X%%/*}` of a joined variable: the part expanded once for each of its
        alternatives (by_alternative), a Choice of the same shape where they differ, and whether a
        quoted segment of it holds a blank; None where that does not do (the inputs are then
        decided one by one, _guarded_part)."""
        if type(part) is not Param or part.indirect or not (part.name[0].isalpha() or part.name[0] == "_"):
            return None
        blank = False

        def expand(scratch: State) -> Value:
            nonlocal blank
            segs = self.part(part, scratch)
            if any(seg is _BREAK for seg in segs):
                raise _Unfolded()
            blank = blank or _quoted_blank(segs)
            return join_segments(segs)

        def combine(choice: Choice, results: list):
            same: dict[tuple, tuple[set, object]] = {}
            for values, value in results:
                same.setdefault(_identity(value), (set(), value))[0].update(values)
            if len(same) == 1:
                return results[0][1]
            return Choice(choice.name, tuple((frozenset(values), value) for values, value in same.values()))

        value = self.by_alternative(st, part.name, expand, combine)
        return None if value is None else (value, blank)

    def by_alternative(self, st: State, name: str, compute, combine):
        """What `compute(state)` gives on each alternative of the joined variable `name` (a Choice,
        however nested), on a copy of the path where the variable holds that alternative, folded up
        the Choices whose input the path leaves open: `combine(choice, [(value set, result), ...])`
        (a Choice the path decides is the result of the alternative it takes, as lookup takes it).
        An array that n joins grew differently is a Choice of its arrays: each is computed once, and
        the path forks on none of the inputs (reading the array whole forks on each of them, and
        again on each fork: 2**n paths, each with its own copy of the step). None where the variable
        is no Choice, or an alternative reads an input the path has not decided, stops bash or notes
        something: the step then decides the inputs it reads as before."""
        raw, standing = joined_choice(self.raw(st, name))
        if raw is None:
            return None
        scope = next(index for index in range(len(st.scopes) - 1, -1, -1) if name in st.scopes[index])

        def leaf(alternative):
            if type(alternative) is FromInput:
                raise _Unfolded()  # the input's own value: read on the path, as any input
            scratch = st.copy()
            scratch.scopes[scope][name] = standing(alternative)
            try:
                result = compute(scratch)
            except (NeedInput, ExitScript, AbortCommand):
                raise _Unfolded() from None
            if scratch.notes is not st.notes:
                raise _Unfolded()
            return result

        found: dict[int, object] = {}
        stack = [(raw, False)]
        try:
            while stack:
                node, ready = stack.pop()
                if not ready and id(node) in found:
                    continue
                if type(node) is not Choice:
                    found[id(node)] = leaf(node)
                    continue
                taken = self.taken(node, st)
                if not ready:
                    stack.append((node, True))
                    stack.extend((alternative, False) for _, alternative in taken)
                    continue
                found[id(node)] = found[id(taken[0][1])] if len(taken) == 1 else \
                    combine(node, [(values, found[id(alternative)]) for values, alternative in taken])
        except _Unfolded:
            return None
        return found[id(raw)]

    def taken(self, choice: Choice, st: State) -> list:
        """The (value set, alternative) pairs of `choice` the path's values of its input may take
        (none of them: the first, as lookup takes it)."""
        domain = self._texts(choice.name, st, None)
        return [alt for alt in choice.alts if not alt[0].isdisjoint(domain)] or [choice.alts[0]]

    def _symbolic_field(self, word: Word, st: State, split: bool = False):
        """The word as one symbolic field; with `split`, a word with no quotes that bash may split
        into several fields (or none) is a Split of its value; None where it is neither."""
        plain = [plain_variable(p) for p in word.parts]
        raws = [self.raw(st, p.name) if is_plain else None for p, is_plain in zip(word.parts, plain)]
        if not any(is_symbolic(raw) for raw in raws):
            return None
        splits = False  # bash may split it into several fields, or none
        pieces: list = []
        segs: list = []
        for p, raw in zip(word.parts, raws):
            if is_symbolic(raw):
                if not p.quoted and not (self._blank_free(raw, st) and self._never_empty(raw, st)):
                    if not split:
                        return None
                    splits = True
                if segs:
                    pieces.append(join_segments(segs))
                    segs = []
                pieces.extend(raw.pieces if type(raw) is Sym else (raw,))
                continue
            for seg in self.part(p, st):
                if seg is _BREAK:
                    return None
                if not seg[2] and any(ch in _IFS for ch in seg[0]):
                    if not split:
                        return None
                    splits = True
                segs.append(seg)
        if segs:
            pieces.append(join_segments(segs))
        if splits:
            # a quoted part would keep its blanks in one field: only a word with no quotes is split whole
            return None if any(p.quoted for p in word.parts) else Split(Sym(tuple(pieces)))
        return pieces[0] if len(pieces) == 1 else Sym(tuple(pieces))

    def _texts(self, name: str, st: State, within) -> tuple:
        """The values an input may take where a FromInput reads it: those of the Choice it is in."""
        if within is not None and within[0] == name:
            return tuple(within[1])
        if name in st.inputs:
            v = st.inputs[name]
            return (None if v is None else v.text,)
        domain = st.domains.get(name)
        if domain is None:
            domain = self.candidates(name) if self.candidates else (None,)
        return tuple(domain)

    def _blank_free(self, value, st: State) -> bool:
        """Whether no alternative of a symbolic value holds a blank (bash would split it)."""
        def leaf(part, within) -> bool:
            if type(part) is Value:
                return not any(ch in _IFS for ch in part.text)
            if type(part) is FromInput:
                return not any(ch in _IFS for text in self._texts(part.name, st, within) if text for ch in text)
            return part is None

        return _every_alternative(value, leaf, any_piece=False)

    def _never_empty(self, value, st: State) -> bool:
        """Whether every alternative of a symbolic value is set and not empty."""
        if not _maybe_never_empty(value):
            return False

        def leaf(part, within) -> bool:
            if type(part) is Value:
                return part.text != ""
            if type(part) is FromInput:
                return all(text for text in self._texts(part.name, st, within))
            return False

        return _every_alternative(value, leaf, any_piece=True)

    def fields(self, words: list, st: State) -> list[Value]:
        out: list[Value] = []
        for w in words:
            if w.literal is not None:
                cached = self._literal_fields.get(id(w))
                if cached is None:
                    cached = self._literal_fields[id(w)] = (w, split_fields(self.segments(w, st)))
                out.extend(cached[1])
            else:
                out.extend(split_fields(self.segments(w, st)))
        return out

    def glob(self, word: Word, st: State) -> re.Pattern:
        """The word as a pattern (`case` arms, `[[ x == pattern ]]`); a literal one compiled once."""
        if word.literal is None:
            return compile_glob(glob_pieces(self.segments(word, st)))
        return word.literal_pattern

    def part(self, p, st: State) -> list:
        if type(p) is Lit:
            return [(p.text, p.origins, p.quoted, False)]
        if type(p) is Param:
            return self.param(p, st)
        if type(p) is Arith:
            try:
                return [_computed(str(eval_arith(p.expr, _Arith(self, st))), p.quoted)]
            except ArithUnknown:  # an operand not known here: neither is the value
                return [(OTHER, (None,) * len(OTHER), p.quoted, True)]
            except (ArithError, RecursionError) as e:
                self.note(st, self.line, f"arithmetic error: {e}; bash abandons the command")
                raise AbortCommand() from None
        if type(p) is CmdSub:
            if p.kind == "dir":
                return [_computed(os.path.dirname(os.path.abspath(st.code.src.path)), p.quoted)]
            if p.kind.startswith("dir/"):
                folder = os.path.normpath(os.path.dirname(os.path.abspath(st.code.src.path)) + p.kind[3:])
                if os.path.isdir(folder):
                    return [_computed(folder, p.quoted)]
            if p.kind == "toplevel" and self.repo_root:
                return [_computed(self.repo_root, p.quoted)]
            output = self._function_output(p, st)
            if output is not None:
                return [output]
            read = self._tree_file(p, st)
            if read is not None:
                return [_computed(read, p.quoted)]
            short = p.text if len(p.text) <= 60 else p.text[:57] + "..."
            self.note(st, p.line, f"opaque: command substitution {short}")
            return [(OTHER, (None,) * len(OTHER), p.quoted, True)]
        raise AssertionError(p)

    def _tree_file(self, p: CmdSub, st: State) -> str | None:
        """The text of `$(cat FILE)` or `$(< FILE)` where FILE, a literal path (from the script's
        folder), is a regular file of the recipe's own tree within a script's bound (gcloud's
        `--command="$(cat host.sh)"`: the tree goes where the script runs), trailing newlines
        removed as bash does; None for anything else, which stays opaque. The file is read, never run."""
        found = _CAT_FILE.fullmatch(p.text)
        if found is None:
            return None
        name = found[1]
        path = os.path.normpath(name if os.path.isabs(name) else os.path.join(os.path.dirname(os.path.abspath(st.code.src.path)), name))
        tree = self.repo_root or os.path.dirname(os.path.abspath(self.script))
        if not (path.startswith(tree + os.sep) and os.path.isfile(path)):
            return None
        try:
            return read_file(path, SCRIPT).decode("utf-8", "replace").rstrip("\n")
        except Unreadable:  # unreadable here, or past a script's bound: not known, as any command's output
            return None

    def _function_output(self, p: CmdSub, st: State) -> tuple | None:
        """`$(fn args)` of a function the scripts define, or `$(cat <<< word)`: run in a subshell of
        this state, its `echo` (and `cat <<<`) output captured (trailing newlines removed, as bash
        does). None for anything else, which stays opaque."""
        words = p.text[2:-1].split() if p.text.startswith("$(") else p.text[1:-1].split()
        if p.start < 0 or not words or not (words[0] in st.functions or _CAT_HERESTRING.fullmatch(p.text)):
            return None
        sub = st.copy()
        sub.stack, sub.code, sub.pc, sub.done, sub.output = [], compile_span(st.code.src, p.start, p.end), 0, False, []
        if st.widened is not None:
            sub.widened = CAPTURED
        while not sub.done:
            self.step(sub)
            if sub.unbounded is not None:
                return None
        st.notes, st.steps = sub.notes, sub.steps
        if OPAQUE_OUTPUT in sub.output:
            return None
        joined = "".join(text for text, _ in sub.output)
        kept = len(joined.rstrip("\n"))
        return (joined[:kept], joined_origins([origins for _, origins in sub.output])[:kept], p.quoted, False)

    def arith(self, expr: tuple, st: State, line: int) -> int:
        try:
            return eval_arith(expr, _Arith(self, st))
        except (ArithError, RecursionError) as e:
            self.note(st, line, f"arithmetic error: {e}")
            return 0

    def arith_text(self, text: str, st: State, line: int) -> int:
        """An expression known only when the path runs (`let "$x"`, an index, a test's operand):
        bash parses it then, and a malformed one is an error of that command, as one that fails."""
        try:
            expr = parse_arith_text(text)
        except ArithError as e:
            self.note(st, line, f"arithmetic error: {e}")
            return 0
        return self.arith(expr, st, line)

    def positional(self, st: State, leading: int | None = None) -> tuple:
        """The positional parameters, each a Value or the FromInput of a script argument not read yet;
        for a script whose arguments are not given, the path decides how many there are (`$#`). The
        elements of `"${A[@]}"` handed to a function that some alternatives have not are decided
        here (it may fork), unless the first `leading` are all that is read and none of them is one."""
        if st.positional == UNKNOWN_ARGUMENTS:
            self._input(st, ARGUMENT_COUNT)  # decided here (it may fork)
        arguments = settled_positional(st)
        if not has_absent(arguments) or leading is not None and len(arguments) >= leading and not has_absent(arguments[:leading]):
            return arguments
        decided = [(element, self.concrete(st, element) if may_be_absent(element) else element) for element in arguments]
        return tuple(found for element, found in decided if found is not None or not may_be_absent(element))

    def positional_values(self, st: State) -> list:
        return [self._input(st, v.name) if type(v) is FromInput else self.concrete(st, v) for v in self.positional(st)]

    def argument(self, st: State, index: int):
        """`$index`: None when there is no such argument. Where the arguments are not given, the path
        decides how many there are only when some of the counts it allows have it and some do not."""
        if st.positional == UNKNOWN_ARGUMENTS:
            counts = {int(text) for text in self._texts(ARGUMENT_COUNT, st, None)}
            if min(counts) >= index:
                return self._input(st, argument_input(index))
            if max(counts) < index:
                return None
        arguments = self.positional(st, index)
        value = arguments[index - 1] if index <= len(arguments) else None
        return self._input(st, value.name) if type(value) is FromInput else self.concrete(st, value)

    def _special(self, p: Param, st: State):
        name = p.name
        if name.isdigit():
            n = int(name)
            if n == 0:
                return input_value(self.script)
            return self.argument(st, n)
        if name == "#":
            return input_value(str(len(self.positional(st))))
        if name == "?":
            return input_value(str(st.status))
        if name == "-":
            return input_value("hB")
        self.note(st, p.line, f"opaque: ${name}")
        return Value("", [], True)

    def param(self, p: Param, st: State) -> list:
        name = p.name
        if p.indirect:
            return self._indirect(p, st)
        if name in ("@", "*"):
            val = self.positional_values(st)
            if p.op == ":":  # ${@:offset:length} counts $0 as the parameter at offset 0
                val = self._elements(p, [input_value(self.script), *val], st)
            return self._array_segments(p, val, "@" if name == "@" else "*", st)
        elif not (name[0].isalpha() or name[0] == "_"):
            val = self._special(p, st)
        else:
            stored = self.raw(st, name) if p.length and p.index in ("@", "*") and not p.op else None
            if type(stored) is list and not has_absent(stored):  # `${#A[@]}`: the elements are counted, none of them decided
                return [_computed(str(sum(element is not None for element in stored)), p.quoted)]
            val = self.lookup(st, name)
            if val is None and name in SET_BY_BASH:  # set whatever the environment: a value not known here
                val = Value(OTHER, [None] * len(OTHER), True)
        if p.index is not None:
            if p.index in ("@", "*") and name == "BASH_SOURCE":
                val = [Value(st.code.src.path, [None] * len(st.code.src.path))]
            if p.index in ("@", "*"):
                # an unset element (`A[5]=x` past the end leaves the ones before it unset) is none of them
                elems = [e for e in val if e is not None] if isinstance(val, list) else ([val] if val is not None else [])
                if p.op == ":":
                    elems = self._elements(p, elems, st)
                return self._array_segments(p, elems, p.index, st)
            if name == "BASH_SOURCE":
                val = Value(st.code.src.path, [None] * len(st.code.src.path))
            else:
                i = self.arith_text(self.watched(p.index, st).text or "0", st, p.line) \
                    if isinstance(p.index, Word) else 0
                elems = val if isinstance(val, list) else ([val] if val is not None else [])
                val = elems[i] if -len(elems) <= i < len(elems) else None
        elif isinstance(val, list):
            val = val[0] if val else None
        return self._apply(p, val, st)

    def _indirect(self, p: Param, st: State) -> list:
        """`${!V…}`: the parameter V's value names, expanded with the operator as bash expands it
        (a variable, an array element `A[1]`, a positional or special parameter). A name not known
        here (a command's output, a caller's value) gives a value not known either; one that is
        no name (V unset or empty, `a-b`) is bash's error: it abandons the command."""
        if p.index in ("@", "*"):  # `${!A[@]}`: the array's indices
            stored = self.lookup(st, p.name)
            count = len(stored) if type(stored) is list else int(stored is not None)
            return self._array_segments(p, [input_value(str(i)) for i in range(count)], p.index, st)
        segs = self.param(Param(p.name, p.quoted, p.line, index=p.index), st)
        target = join_segments(segs) if segs else None
        if target is not None:
            self.watch(st, target)
        if target is not None and (target.opaque or OTHER in target.text):
            self.note(st, p.line, f"opaque: ${{!{p.name}}} reads a variable whose name is not known here")
            return [(OTHER, (None,) * len(OTHER), p.quoted, True)]
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[#?$!@*-])(?:\[(.*)\])?", target.text if target is not None else "")
        if m is None or (m.group(2) is not None and not (m.group(1)[0].isalpha() or m.group(1)[0] == "_")):
            why = f"{p.name} is unset" if target is None else f"{target.text!r} is no variable name"
            self.note(st, p.line, f"${{!{p.name}}}: {why}; bash abandons the command")
            raise AbortCommand()
        index = m.group(2)
        if index is not None and index not in ("@", "*"):
            index = Word((Lit(index, (None,) * len(index), False),))
        return self.param(Param(m.group(1), p.quoted, p.line, p.op, p.arg, p.arg2, index), st)

    def _elements(self, p: Param, elems: list, st: State) -> list:
        """`${@:offset:length}`, `${a[@]:offset:length}`: the elements from offset (from the end when
        negative), `length` of them (a negative length is an error in bash: none)."""
        offset = self.arith_text(self.watched(p.arg, st).text or "0", st, p.line)
        offset = max(0, len(elems) + offset) if offset < 0 else offset
        if p.arg2 is None:
            return elems[offset:]
        length = self.arith_text(self.watched(p.arg2, st).text or "0", st, p.line)
        return elems[offset:offset + length] if length >= 0 else []

    def _array_segments(self, p: Param, elems: list, kind: str, st: State) -> list:
        if p.length:
            return [_computed(str(len(elems)), p.quoted)]
        if p.op and p.op != ":":
            joined = join_segments(self._interleave(elems, " ", False)) if elems else None
            return self._apply(p, joined, st)
        if p.quoted and kind == "@":
            out: list = []
            for i, e in enumerate(elems):
                if i:
                    out.append(_BREAK)
                out.append(segment(e, True) if e is not None else ("", (), True, False))
            return out
        return self._interleave(elems, " ", p.quoted)

    def _interleave(self, elems: list, sep: str, quoted: bool) -> list:
        out: list = []
        for i, e in enumerate(elems):
            if i:
                out.append(_computed(sep, quoted))
            if e is not None:
                out.append(segment(e, quoted))
        return out

    def _apply(self, p: Param, val: Value | None, st: State) -> list:
        q, op = p.quoted, p.op
        if (p.length or op and op not in UNSET_OPERATORS) and val is not None:
            self.watch(st, val)  # its length, a pattern removed, a substring: bash's own characters count
        if val is None and "u" in st.options and op not in UNSET_OPERATORS and p.name not in ("@", "*"):
            if self.candidates is not None:
                # Every value of the inputs is a path of its own (a variable no file assigns is its
                # caller's, set: explorer.Candidates), so on this one it is unset: bash stops here.
                self.note(st, p.line, f"{STOPS_NOTE} {_parameter(p.name)} is unset on this path; bash stops here")
                raise UnsetStop()
            # One environment (render): the run where the environment sets it, to a value not known here.
            self.note(st, p.line, f"set -u: {p.name} must be set (bash stops where it is not); its value is not known")
            val = Value("", [], True)
        if p.length:
            return [_computed(str(len(val.text)) if val is not None else "0", q)]
        if not op:
            return [segment(val, q)] if val is not None else []
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            missing = val is None or (op[0] == ":" and val.text == "")
            base = op.lstrip(":")
            if base == "-":
                return self.segments(p.arg, st) if missing else [segment(val, q)]
            if base == "=":
                if not missing:
                    return [segment(val, q)]
                new = self.value(p.arg, st)
                self.assign(st, p.name, new)
                return [segment(new, q)]
            if base == "+":
                return [] if missing else self.segments(p.arg, st)
            if missing:
                message = self.value(p.arg, st).text or "parameter null or not set"
                self.note(st, p.line, f"${{{p.name}{op}}}: {message}; the script stops here")
                raise ExitScript()
            return [segment(val, q)]
        if val is None:
            return []
        text, origins = val.text, val.origins
        if op in ("%", "%%", "#", "##"):
            rx = compile_glob(glob_pieces(self.segments(p.arg, st)))
            n = len(text)
            if op == "#":
                rng = range(0, n + 1)
            elif op == "##":
                rng = range(n, -1, -1)
            elif op == "%":
                rng = range(n, -1, -1)
            else:
                rng = range(0, n + 1)
            for i in rng:
                if op[0] == "#" and rx.fullmatch(text, 0, i):
                    return [(text[i:], origins[i:], q, val.opaque)]
                if op[0] == "%" and rx.fullmatch(text, i, n):
                    return [(text[:i], origins[:i], q, val.opaque)]
            return [segment(val, q)]
        if op in ("/", "//", "/#", "/%"):
            pat = glob_pieces(self.segments(p.arg, st))
            rep = self.value(p.arg2, st) if p.arg2 is not None else Value("", [])
            return [self._replace(val, pat, rep, op, q)]
        if op in ("^^", "^", ",,", ","):
            conv = str.upper if op[0] == "^" else str.lower
            new = conv(text) if len(op) == 2 else (conv(text[:1]) + text[1:])
            return [(new, origins, q, val.opaque)]
        if op == ":":
            offset = self.arith_text(self.watched(p.arg, st).text or "0", st, p.line)
            if offset < 0:
                offset = max(0, len(text) + offset)
            end = len(text)
            if p.arg2 is not None:
                length = self.arith_text(self.watched(p.arg2, st).text or "0", st, p.line)
                end = offset + length if length >= 0 else len(text) + length
            return [(text[offset:end], origins[offset:end], q, val.opaque)]
        self.note(st, p.line, f"unsupported expansion operator {op}")
        return [segment(val, q)]

    def _replace(self, val: Value, pat: list, rep: Value, op: str, q: bool) -> tuple:
        text, origins = val.text, val.origins
        rx = compile_glob(pat)
        n = len(text)
        if op == "/#":
            for j in range(n, -1, -1):
                if rx.fullmatch(text, 0, j):
                    return (rep.text + text[j:], list(rep.origins) + list(origins[j:]), q, val.opaque or rep.opaque)
            return segment(val, q)
        if op == "/%":
            for i in range(0, n + 1):
                if rx.fullmatch(text, i, n):
                    return (text[:i] + rep.text, list(origins[:i]) + list(rep.origins), q, val.opaque or rep.opaque)
            return segment(val, q)
        out_t: list[str] = []
        out_o: list = []
        i = 0
        done = False
        while i <= n:
            m = None if done else rx.match(text, i)
            if m is not None and m.end() > i:
                out_t.append(rep.text)
                out_o.extend(rep.origins)
                i = m.end()
                if op == "/":
                    done = True
                continue
            if i < n:
                out_t.append(text[i])
                out_o.append(origins[i])
            i += 1
        return ("".join(out_t), out_o, q, val.opaque or rep.opaque)


def joined_choice(raw) -> tuple:
    """The one Choice a joined variable's value turns on, and what the value is where the path
    takes one of its alternatives: a Choice is its alternative; a string that holds one Choice
    among text (two strings joined stay a string: symbolic._choice) is that string with the
    alternative in its place (an unset one reads as empty there), where that Choice nests. (None,
    None) for any other value."""
    if type(raw) is Choice:
        return raw, _itself
    if type(raw) is not Sym:
        return None, None
    at = [index for index, piece in enumerate(raw.pieces) if type(piece) is not Value]
    # a Choice of plain alternatives is read as any read of its input (the path decides it once);
    # only one that nests (a guard over several inputs) costs a decision per input
    if len(at) != 1 or type(raw.pieces[at[0]]) is not Choice \
            or all(type(alternative) is not Choice for _, alternative in raw.pieces[at[0]].alts):
        return None, None
    head, tail = raw.pieces[:at[0]], raw.pieces[at[0] + 1:]
    return raw.pieces[at[0]], lambda alternative: Sym((*head, alternative, *tail))


def _itself(value):
    return value


def _identity(value) -> tuple:
    """What tells two alternatives of a guarded word apart: a Value's text and origins, a Choice itself."""
    if type(value) is not Value:
        return (id(value),)
    return (value.text, value.opaque, value.origins.runs if type(value.origins) is Spans else tuple(value.origins))


def _quoted_array(word: Word) -> Param | None:
    """The parameter of a word that is `"${A[@]}"` alone, A an array's name; None for any other word."""
    if len(word.parts) != 1:
        return None
    p = word.parts[0]
    if (type(p) is Param and p.quoted and p.index == "@" and not p.op and not p.length and not p.indirect
            and (p.name[0].isalpha() or p.name[0] == "_")):
        return p
    return None

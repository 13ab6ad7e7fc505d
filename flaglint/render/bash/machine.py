"""The interpreter of compiled bash: expansions, tests, commands, and the state a path forks."""

from __future__ import annotations

import os
import re

from flaglint.render.bash.arithmetic import ArithContext, ArithError, eval_arith, parse_arith_text
from flaglint.render.bash.compiler import (
    ArithCmd, Assign, Branch, Case, Code, Command, ForInit, ForNext, FuncDef, Join, Jump, JumpIf, Negate,
    NoteInstr, SetStatus, Subshell, Test, Unset, compile_file, compile_span, compile_text,
)
from flaglint.render.bash.types import Choice, FromInput, Launch, Note, Rendering, Sym, Value, resolve
from flaglint.render.maxtext_command import may_launch
from flaglint.render.bash.lexer import Arith, CmdSub, Lit, Param, Word, compile_glob

UNSET = None  # a scope entry that is declared but unset
_BREAK = ("", (), True, False)  # separates the fields of "$@"
_IFS = " \t\n"
STEP_LIMIT = 200_000


class NeedInput(Exception):
    """A step read an input whose value the path has not decided yet."""

    def __init__(self, name: str, candidates: tuple):
        super().__init__(name)
        self.name = name
        self.candidates = candidates


class _ExitScript(Exception):
    pass


class _AbortCommand(Exception):
    """An expansion error ($(( 08 ))): bash abandons the command it is in, and the function or
    sourced file that command is part of, and goes on with the next command at the top."""


class State:
    __slots__ = ("scopes", "exported", "functions", "positional", "code", "pc", "stack", "status",
                 "inputs", "domains", "notes", "branches", "handoffs", "iters", "steps", "done", "exit_code",
                 "unfound", "unbounded", "output", "launched", "options")

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
        return s


def input_value(text: str | None) -> Value | None:
    return None if text is None else Value(text, [None] * len(text))


def _seg(v: Value, quoted: bool) -> tuple:
    return (v.text, v.origins, quoted, v.opaque)


def _computed(text: str, quoted: bool) -> tuple:
    return (text, (None,) * len(text), quoted, False)


def join_segments(segs: list) -> Value:
    text, origins, opaque = [], [], False
    for s in segs:
        if s is _BREAK:
            text.append(" ")
            origins.append(None)
            continue
        text.append(s[0])
        origins.extend(s[1])
        opaque = opaque or s[3]
    return Value("".join(text), origins, opaque)


def split_fields(segs: list) -> list[Value]:
    fields: list[Value] = []
    text: list[str] = []
    origins: list = []
    opaque = False
    exists = False
    for s in segs:
        if s is _BREAK:
            fields.append(Value("".join(text), origins, opaque))
            text, origins, opaque, exists = [], [], False, False
            continue
        if s[2]:
            text.append(s[0])
            origins.extend(s[1])
            opaque = opaque or s[3]
            exists = True
            continue
        for ch, org in zip(s[0], s[1]):
            if ch in _IFS:
                if exists:
                    fields.append(Value("".join(text), origins, opaque))
                    text, origins, opaque, exists = [], [], False, False
            else:
                text.append(ch)
                origins.append(org)
                exists = True
        if s[3]:
            opaque = exists = True
    if exists:
        fields.append(Value("".join(text), origins, opaque))
    return fields


_DEFAULTING = (":-", "-", ":=", "=", ":+", "+", ":?", "?")  # operators that handle an unset variable
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INTEGER = re.compile(r"[-+]?[0-9]+")  # ASCII digits only, as bash reads them (not ², not ٣)


def _status_argument(args: list[str], status: int) -> int:
    """The status `exit N` / `return N` gives: N modulo 256; 2 when N is not a number."""
    if not args:
        return status
    return int(args[0]) & 255 if _INTEGER.fullmatch(args[0].strip()) else 2


def _symbolic(value) -> bool:
    return type(value) is Choice or type(value) is Sym


def _never_empty(value) -> bool:
    """True when every alternative of a (symbolic) value is set and not empty."""
    if type(value) is Value:
        return value.text != ""
    if type(value) is Choice:
        return all(_never_empty(alt) for _, alt in value.alts)
    if type(value) is Sym:
        return any(_never_empty(piece) for piece in value.pieces)
    return False


def _joined(old, new):
    """old followed by new, either of them symbolic."""
    if not (_symbolic(old) or _symbolic(new)):
        return join_segments([_seg(old, True), _seg(new, True)])
    pieces = []
    for v in (old, new):
        pieces.extend(v.pieces if type(v) is Sym else (v,))
    return Sym(tuple(pieces))


def _pieces(segs: list) -> list[tuple[str, bool]]:
    return [(s[0], s[2]) for s in segs if s is not _BREAK]


def _find_repo_root(path: str) -> str | None:
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


class _Arith(ArithContext):
    def __init__(self, interp: "Interp", st: State):
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
        return None if v is None else v.text

    def set(self, name: str, value: int) -> None:
        text = str(value)
        self.interp.assign(self.st, name, Value(text, [None] * len(text)))

    def expand(self, part) -> str:
        return join_segments(self.interp.part(part, self.st)).text


class Interp:
    """Runs compiled bash on a State. `candidates` gives the values an unread input may take."""

    def __init__(self, script: str, candidates=None, text: bytes | None = None):
        """`text`: the script's bytes, when `script` is a virtual path (nothing is read from it)."""
        self.script = script
        self.text = text
        self.repo_root = _find_repo_root(script) if text is None else None
        self.candidates = candidates  # callable(name) -> tuple of str | None; None: inputs are unset
        self.files: dict[str, object] = {}
        self.line = 0  # the line of the instruction being run, for notes
        self._literal_fields: dict[int, tuple] = {}  # id(word) -> (word, fields); Values never change

    # ---- setup ----
    def load(self, path: str):
        compiled = compile_text(path, self.text) if path == self.script and self.text is not None else compile_file(path)
        self.files[path] = compiled
        return compiled

    def start(self, env: dict[str, str]) -> State:
        compiled = self.load(self.script)
        st = State()
        st.scopes = [{k: input_value(v) for k, v in env.items()}]
        st.exported = set(env)
        st.functions = {}
        st.positional = ()
        st.code = compiled.code
        st.pc = 0
        st.stack = []
        st.status = 0
        st.inputs = {}
        st.domains = {}
        st.notes = ()
        st.branches = ()
        st.handoffs = ()
        st.iters = {}
        st.steps = 0
        st.done = False
        st.exit_code = 0
        st.unfound = ()  # Notes: the scripts and files the path runs or sources that cannot be found
        st.unbounded = None  # a Note: the construct the path did not get past (a loop beyond the step limit)
        st.output = None  # inside $(fn): the (text, origins) pieces echo writes
        st.launched = ()  # Launches: the python and xpk command lines the path runs (never run here)
        st.options = frozenset()  # `set -e` (e) and `set -u` (u) in force
        return st

    # ---- variables ----
    def lookup(self, st: State, name: str):
        """The variable's value (a Value, a list of Values for an array, or None when unset)."""
        for scope in reversed(st.scopes):
            if name in scope:
                value = scope[name]
                if type(value) is Choice or type(value) is Sym:
                    value = resolve(value, lambda c: self._pick(st, c), lambda n: self._input(st, n))
                return value
        return self._input(st, name)

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
        if v is not None:
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
        for scope in reversed(st.scopes):
            if name in scope:
                if scope is not st.scopes[0] or value is UNSET or not self._reads_input(st, scope[name]):
                    scope[name] = value
                    return
                break  # a joined path that never assigned it: assigned now, as an input
        group = st.domains.get(name)
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

    def symbolic_value(self, word: Word, st: State):
        """An assignment's value: a variable that holds a joined (symbolic) value and is expanded
        whole stays symbolic, so `X="${X} k=v"` after n joins is one value, not 2**n."""
        if word.literal is not None:
            return self.value(word, st)
        pieces: list = []
        segs: list = []
        for p in word.parts:
            if type(p) is Param and p.index is None and not p.length and not p.indirect and p.op in ("", ":-", "-") \
                    and (p.name[0].isalpha() or p.name[0] == "_"):
                raw = self.raw(st, p.name)
                if _symbolic(raw) and (not p.op or _never_empty(raw)):
                    if segs:
                        pieces.append(join_segments(segs))
                        segs = []
                    pieces.extend(raw.pieces if type(raw) is Sym else (raw,))
                    continue
            segs.extend(self.part(p, st))
        if not pieces:
            return join_segments(segs)
        if segs:
            pieces.append(join_segments(segs))
        return Sym(tuple(pieces))

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

    def part(self, p, st: State) -> list:
        if type(p) is Lit:
            return [(p.text, p.origins, p.quoted, False)]
        if type(p) is Param:
            return self.param(p, st)
        if type(p) is Arith:
            try:
                return [_computed(str(eval_arith(p.expr, _Arith(self, st))), p.quoted)]
            except (ArithError, RecursionError) as e:
                self.note(st, self.line, f"arithmetic error: {e}; bash abandons the command")
                raise _AbortCommand() from None
        if type(p) is CmdSub:
            if p.kind == "dir":
                return [_computed(os.path.dirname(os.path.abspath(st.code.src.path)), p.quoted)]
            if p.kind == "toplevel" and self.repo_root:
                return [_computed(self.repo_root, p.quoted)]
            output = self._function_output(p, st)
            if output is not None:
                return [output]
            short = p.text if len(p.text) <= 60 else p.text[:57] + "..."
            self.note(st, p.line, f"opaque: command substitution {short}")
            return [("", (), p.quoted, True)]
        raise AssertionError(p)

    def _function_output(self, p: CmdSub, st: State) -> tuple | None:
        """`$(fn args)` of a function the scripts define: the function run in a subshell of this
        state, its `echo` output captured (trailing newlines removed, as bash does). None for
        anything else, which stays opaque."""
        words = p.text[2:-1].split() if p.text.startswith("$(") else p.text[1:-1].split()
        if p.start < 0 or not words or words[0] not in st.functions:
            return None
        sub = st.copy()
        sub.stack, sub.code, sub.pc, sub.done, sub.output = [], compile_span(st.code.src, p.start, p.end), 0, False, []
        while not sub.done:
            self.step(sub)
            if sub.unbounded is not None:
                return None
        st.notes, st.steps = sub.notes, sub.steps
        text, origins = [], []
        for piece_text, piece_origins in sub.output:
            text.append(piece_text)
            origins.extend(piece_origins)
        joined = "".join(text)
        kept = len(joined.rstrip("\n"))
        return (joined[:kept], tuple(origins[:kept]), p.quoted, False)

    def arith(self, expr: tuple, st: State, line: int) -> int:
        try:
            return eval_arith(expr, _Arith(self, st))
        except (ArithError, RecursionError) as e:
            self.note(st, line, f"arithmetic error: {e}")
            return 0

    def _special(self, p: Param, st: State):
        name = p.name
        if name.isdigit():
            n = int(name)
            if n == 0:
                return input_value(self.script)
            return st.positional[n - 1] if n <= len(st.positional) else None
        if name == "#":
            return input_value(str(len(st.positional)))
        if name == "?":
            return input_value(str(st.status))
        if name == "-":
            return input_value("hB")
        self.note(st, p.line, f"opaque: ${name}")
        return Value("", [], True)

    def param(self, p: Param, st: State) -> list:
        name = p.name
        if p.indirect:
            target = self.scalar(st, name)
            if target is None or not target.text:
                return []
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?", target.text)
            if not m:
                self.note(st, p.line, f"bad indirect expansion of {name}")
                return []
            name = m.group(1)
            val = self.lookup(st, name)
            if m.group(2) is not None and isinstance(val, list):
                idx = int(m.group(2)) if m.group(2).isdigit() else 0
                val = val[idx] if idx < len(val) else None
        elif name in ("@", "*"):
            val = list(st.positional)
            return self._array_segments(p, val, "@" if name == "@" else "*", st)
        elif not (name[0].isalpha() or name[0] == "_"):
            val = self._special(p, st)
        else:
            val = self.lookup(st, name)
        if p.index is not None:
            if p.index in ("@", "*") and name == "BASH_SOURCE":
                val = [Value(st.code.src.path, [None] * len(st.code.src.path))]
            if p.index in ("@", "*"):
                elems = val if isinstance(val, list) else ([val] if val is not None else [])
                return self._array_segments(p, elems, p.index, st)
            if name == "BASH_SOURCE":
                val = Value(st.code.src.path, [None] * len(st.code.src.path))
            else:
                i = self.arith(parse_arith_text(self.value(p.index, st).text or "0"), st, p.line) \
                    if isinstance(p.index, Word) else 0
                elems = val if isinstance(val, list) else ([val] if val is not None else [])
                val = elems[i] if -len(elems) <= i < len(elems) else None
        elif isinstance(val, list):
            val = val[0] if val else None
        return self._apply(p, val, st)

    def _array_segments(self, p: Param, elems: list, kind: str, st: State) -> list:
        if p.length:
            return [_computed(str(len(elems)), p.quoted)]
        if p.op:
            joined = join_segments(self._interleave(elems, " ", False)) if elems else None
            return self._apply(p, joined, st)
        if p.quoted and kind == "@":
            out: list = []
            for i, e in enumerate(elems):
                if i:
                    out.append(_BREAK)
                out.append(_seg(e, True) if e is not None else ("", (), True, False))
            return out
        return self._interleave(elems, " ", p.quoted)

    def _interleave(self, elems: list, sep: str, quoted: bool) -> list:
        out: list = []
        for i, e in enumerate(elems):
            if i:
                out.append(_computed(sep, quoted))
            if e is not None:
                out.append(_seg(e, quoted))
        return out

    def _apply(self, p: Param, val: Value | None, st: State) -> list:
        q, op = p.quoted, p.op
        if val is None and "u" in st.options and op not in _DEFAULTING and p.name not in ("@", "*"):
            # bash stops here when it is unset, which launches nothing; so what follows is the run
            # where the environment sets it, to a value not known here.
            self.note(st, p.line, f"set -u: {p.name} must be set (bash stops where it is not); its value is not known")
            val = Value("", [], True)
        if p.length:
            return [_computed(str(len(val.text)) if val is not None else "0", q)]
        if not op:
            return [_seg(val, q)] if val is not None else []
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            missing = val is None or (op[0] == ":" and val.text == "")
            base = op.lstrip(":")
            if base == "-":
                return self.segments(p.arg, st) if missing else [_seg(val, q)]
            if base == "=":
                if not missing:
                    return [_seg(val, q)]
                new = self.value(p.arg, st)
                self.assign(st, p.name, new)
                return [_seg(new, q)]
            if base == "+":
                return [] if missing else self.segments(p.arg, st)
            if missing:
                message = self.value(p.arg, st).text or "parameter null or not set"
                self.note(st, p.line, f"${{{p.name}{op}}}: {message}; the script stops here")
                raise _ExitScript()
            return [_seg(val, q)]
        if val is None:
            return []
        text, origins = val.text, val.origins
        if op in ("%", "%%", "#", "##"):
            rx = compile_glob(_pieces(self.segments(p.arg, st)))
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
            return [_seg(val, q)]
        if op in ("/", "//", "/#", "/%"):
            pat = _pieces(self.segments(p.arg, st))
            rep = self.value(p.arg2, st) if p.arg2 is not None else Value("", [])
            return [self._replace(val, pat, rep, op, q)]
        if op in ("^^", "^", ",,", ","):
            conv = str.upper if op[0] == "^" else str.lower
            new = conv(text) if len(op) == 2 else (conv(text[:1]) + text[1:])
            return [(new, origins, q, val.opaque)]
        if op == ":":
            offset = self.arith(parse_arith_text(self.value(p.arg, st).text or "0"), st, p.line)
            if offset < 0:
                offset = max(0, len(text) + offset)
            end = len(text)
            if p.arg2 is not None:
                length = self.arith(parse_arith_text(self.value(p.arg2, st).text or "0"), st, p.line)
                end = offset + length if length >= 0 else len(text) + length
            return [(text[offset:end], origins[offset:end], q, val.opaque)]
        self.note(st, p.line, f"unsupported expansion operator {op}")
        return [_seg(val, q)]

    def _replace(self, val: Value, pat: list, rep: Value, op: str, q: bool) -> tuple:
        text, origins = val.text, val.origins
        rx = compile_glob(pat)
        n = len(text)
        if op == "/#":
            for j in range(n, -1, -1):
                if rx.fullmatch(text, 0, j):
                    return (rep.text + text[j:], list(rep.origins) + list(origins[j:]), q, val.opaque or rep.opaque)
            return _seg(val, q)
        if op == "/%":
            for i in range(0, n + 1):
                if rx.fullmatch(text, i, n):
                    return (text[:i] + rep.text, list(origins[:i]) + list(rep.origins), q, val.opaque or rep.opaque)
            return _seg(val, q)
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

    # ---- tests ----
    def test(self, expr: tuple, st: State, double: bool, line: int) -> int:
        kind = expr[0]
        if kind == "and":
            s = self.test(expr[1], st, double, line)
            return s if s else self.test(expr[2], st, double, line)
        if kind == "or":
            s = self.test(expr[1], st, double, line)
            return s if s == 0 else self.test(expr[2], st, double, line)
        if kind == "not":
            s = self.test(expr[1], st, double, line)
            return 2 if s == 2 else 1 - s
        if kind == "word":
            return 0 if self.value(expr[1], st).text else 1
        if kind == "posix":
            return self.posix_test([f.text for f in self.fields(expr[1], st)], st, line)
        if kind == "un":
            op = expr[1]
            if op == "-v":
                name = self.value(expr[2], st).text
                return 0 if self.lookup(st, name) is not None else 1
            return self.unary(op, self.value(expr[2], st).text, st, line)
        op, lw, rw = expr[1], expr[2], expr[3]
        left = self.value(lw, st).text
        if op in ("==", "=", "!=") and double:
            matched = compile_glob(_pieces(self.segments(rw, st))).fullmatch(left) is not None
            return 0 if matched == (op != "!=") else 1
        if op == "=~":
            return self.regex(left, self.segments(rw, st), st, line)
        right = self.value(rw, st).text
        return self.binary(op, left, right, st, double, line)

    def unary(self, op: str, arg: str, st: State, line: int) -> int:
        if op == "-n":
            return 0 if arg else 1
        if op == "-z":
            return 0 if not arg else 1
        if op in ("-f", "-d", "-e", "-a", "-r", "-w", "-x", "-s", "-L", "-h"):
            if not arg:
                return 1
            path = arg if os.path.isabs(arg) else os.path.join(os.path.dirname(os.path.abspath(st.code.src.path)), arg)
            check = {
                "-f": os.path.isfile, "-d": os.path.isdir, "-L": os.path.islink, "-h": os.path.islink,
                "-r": lambda x: os.access(x, os.R_OK), "-w": lambda x: os.access(x, os.W_OK),
                "-x": lambda x: os.access(x, os.X_OK),
                "-s": lambda x: os.path.exists(x) and os.path.getsize(x) > 0,
            }.get(op, os.path.exists)
            return 0 if check(path) else 1
        self.note(st, line, f"unsupported test operator {op}; taken as false")
        return 1

    def binary(self, op: str, left: str, right: str, st: State, double: bool, line: int) -> int:
        if op in ("=", "=="):
            return 0 if left == right else 1
        if op == "!=":
            return 0 if left != right else 1
        if op == "<":
            return 0 if left < right else 1
        if op == ">":
            return 0 if left > right else 1
        if op in ("-eq", "-ne", "-gt", "-ge", "-lt", "-le"):
            if double:
                a = self.arith(parse_arith_text(left.strip() or "0"), st, line)
                b = self.arith(parse_arith_text(right.strip() or "0"), st, line)
            else:
                if not re.fullmatch(r"\s*[-+]?[0-9]+\s*", left) or not re.fullmatch(r"\s*[-+]?[0-9]+\s*", right):
                    return 2  # [ ]: integer expression expected
                a, b = int(left), int(right)
            result = {"-eq": a == b, "-ne": a != b, "-gt": a > b, "-ge": a >= b, "-lt": a < b, "-le": a <= b}[op]
            return 0 if result else 1
        self.note(st, line, f"unsupported test operator {op}; taken as false")
        return 1

    def regex(self, left: str, segs: list, st: State, line: int) -> int:
        parts = []
        for text, quoted in _pieces(segs):
            if quoted:
                parts.append(re.escape(text))
            else:
                parts.append(re.sub(r"\[:(\w+):\]", lambda m: {
                    "digit": "0-9", "alpha": "a-zA-Z", "alnum": "a-zA-Z0-9", "space": r"\s", "upper": "A-Z",
                    "lower": "a-z", "xdigit": "0-9A-Fa-f", "punct": r"!-/:-@\[-`{-~", "blank": r" \t",
                }.get(m.group(1), ""), text))
        try:
            return 0 if re.search("".join(parts), left) else 1
        except re.error:
            self.note(st, line, "unsupported regular expression; taken as false")
            return 2

    def posix_test(self, args: list[str], st: State, line: int) -> int:
        if args and args[-1] == "]":
            args = args[:-1]
        if args and args[0] == "!":
            s = self.posix_test(args[1:], st, line)
            return 2 if s == 2 else 1 - s
        if not args:
            return 1
        if len(args) == 1:
            return 0 if args[0] else 1
        if len(args) == 2:
            return self.unary(args[0], args[1], st, line)
        if len(args) == 3:
            return self.binary(args[1], args[0], args[2], st, False, line)
        for i, a in enumerate(args):
            if a in ("-a", "-o") and 0 < i < len(args) - 1:
                left = self.posix_test(args[:i], st, line)
                if a == "-a":
                    return left if left else self.posix_test(args[i + 1:], st, line)
                return left if left == 0 else self.posix_test(args[i + 1:], st, line)
        self.note(st, line, "unsupported test; taken as false")
        return 2

    # ---- stepping ----
    def run(self, st: State) -> None:
        while not st.done:
            self.step(st)

    def step(self, st: State) -> None:
        code = st.code
        if st.pc >= len(code.instrs):
            self.leave(st)
            return
        st.steps += 1
        instr = code.instrs[st.pc]
        self.line = getattr(instr, "line", self.line)
        if st.steps > STEP_LIMIT:
            st.unbounded = Note(code.src.path, self.line, f"the loop around line {self.line} does not end within"
                                f" {STEP_LIMIT:,} steps; the rest of the script is not evaluated")
            st.notes = st.notes + (st.unbounded,)
            st.done = True
            return
        try:
            _DISPATCH[type(instr)](self, instr, st)
        except _ExitScript:
            self.exit(st, 1)
        except _AbortCommand:
            self.abort(st)
        else:
            if instr.checked and st.status and "e" in st.options and st.code is code:
                self.note(st, self.line, f"set -e: the command fails (status {st.status}); the script stops here")
                self.exit(st, st.status)

    def i_jump(self, ins: Jump, st: State) -> None:
        st.pc = ins.target

    def i_jumpif(self, ins: JumpIf, st: State) -> None:
        st.pc = ins.target if (st.status == 0) == ins.on_success else st.pc + 1

    def i_join(self, ins: Join, st: State) -> None:
        st.pc += 1

    def i_negate(self, ins: Negate, st: State) -> None:
        st.status = 0 if st.status else 1
        st.pc += 1

    def i_setstatus(self, ins: SetStatus, st: State) -> None:
        st.status = ins.status
        st.pc += 1

    def i_branch(self, ins: Branch, st: State) -> None:
        st.branches = st.branches + ((st.code.src.path, ins.line),)
        st.pc += 1

    def i_note(self, ins: NoteInstr, st: State) -> None:
        self.note(st, ins.line, ins.message)
        st.pc += 1

    def i_test(self, ins: Test, st: State) -> None:
        st.status = self.test(ins.expr, st, ins.double, ins.line)
        st.pc += 1

    def i_arith(self, ins: ArithCmd, st: State) -> None:
        st.status = 0 if self.arith(ins.expr, st, ins.line) else 1
        st.pc += 1

    def i_case(self, ins: Case, st: State) -> None:
        subject = self.value(ins.word, st).text
        for patterns, target in ins.items:
            for pat in patterns:
                if compile_glob(_pieces(self.segments(pat, st))).fullmatch(subject):
                    st.pc = target
                    st.status = 0
                    return
        st.pc = ins.end

    def i_forinit(self, ins: ForInit, st: State) -> None:
        items = tuple(st.positional) if ins.words is None else tuple(self.fields(ins.words, st))
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
                if not self._is_local(st, name):  # a local's export attribute is not kept
                    if name in st.domains and name not in st.inputs:
                        # An input whose values stay grouped is exported when set; unset ends that.
                        self.decide(st, name, st.domains[name][0])
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
        local = builtin == "local" or (builtin in ("declare", "typeset") and "g" not in flags and len(st.scopes) > 1)
        if ins.array is not None:
            new = self.fields(ins.array, st)
            if ins.append:
                old = self.lookup(st, ins.name)
                old = old if isinstance(old, list) else ([old] if old is not None else [])
                new = old + new
            self.assign(st, ins.name, new, local)
        elif ins.value is not None and ins.index is not None:
            value = self.value(ins.value, st)
            old = self.lookup(st, ins.name)
            elems = list(old) if isinstance(old, list) else ([old] if old is not None else [])
            i = self.arith(parse_arith_text(self.value(ins.index, st).text or "0"), st, ins.line)
            elems.extend([None] * (i + 1 - len(elems)))
            if ins.append and elems[i] is not None:
                value = join_segments([_seg(elems[i], True), _seg(value, True)])
            elems[i] = value
            self.assign(st, ins.name, elems, local)
        elif ins.value is not None:
            value = self.symbolic_value(ins.value, st)
            if ins.append:
                old = self.raw(st, ins.name)
                if not _symbolic(old):
                    old = self.scalar(st, ins.name)
                if old is not None:
                    value = _joined(old, value)
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

    def i_command(self, ins: Command, st: State) -> None:
        if st.output is not None and ins.words[0].literal == "echo":
            if not ins.silent:
                self.b_echo(ins, st)
                return
        if not ins.mutates:
            head = self.fields(ins.words[:1], st)
            if head and self._ignored(head[0].text, st):
                if may_launch(head[0].text):  # MaxText's argv may be in its words: kept for lint_commands
                    env = {n: v for n, v in self.child_env(st, self.prefix(ins, st)).items() if n.startswith("M_") and isinstance(v, Value)}
                    st.launched = st.launched + (Launch(st.code.src.path, ins.line, tuple(self.fields(ins.words, st)), env),)
                st.status = 0  # another program: never run, its arguments change nothing here
                st.pc += 1
                return
        fields = self.fields(ins.words, st)
        if not fields:
            for a in ins.prefix:
                self.assign(st, a.name, self.value(a.value, st))
            st.status = 0
            st.pc += 1
            return
        name = fields[0].text
        args = [f.text for f in fields[1:]]
        handler = _BUILTINS.get(name)
        if name in st.functions:
            self.call(st, st.functions[name], fields[1:], self.prefix(ins, st))
        elif handler is not None:
            handler(self, ins, st, fields, args)
        elif name.endswith(("/bash", "/sh")):
            self.b_bash(ins, st, fields, args)
        elif name.endswith(".sh"):
            self.child(ins, st, name, fields[1:], False)
        else:
            st.status = 0
            st.pc += 1

    def _ignored(self, name: str, st: State) -> bool:
        return not (name in st.functions or name in _BUILTINS or name.endswith((".sh", "/bash", "/sh")))

    def prefix(self, ins: Command, st: State) -> dict:
        return {a.name: self.value(a.value, st) for a in ins.prefix}

    # ---- frames ----
    def snapshot(self, st: State) -> tuple:
        return ([d.copy() for d in st.scopes], st.exported.copy(), st.positional, st.functions)

    def push(self, st: State, code: Code, kind: str, saved) -> None:
        st.stack.append((st.code, st.pc + 1, kind, saved))
        st.code = code
        st.pc = 0

    def call(self, st: State, code: Code, args: list, prefix: dict) -> None:
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
            if kind == "proc":
                st.handoffs = st.handoffs + (self.rendering(st),)
            scopes, exported, positional, functions = saved
            st.scopes, st.exported, st.positional, st.functions = scopes, exported, positional, functions
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

    def child_env(self, st: State, extra: dict) -> dict:
        env: dict = {}
        for scope in st.scopes:
            for name, v in scope.items():
                env[name] = v if (name in st.exported and v is not None and not isinstance(v, list)) else UNSET
        env.update(extra)
        return env

    def resolve(self, st: State, path: str) -> str | None:
        if not path:
            return None
        if os.path.isabs(path):
            return path if os.path.isfile(path) else None
        # As bash does: from the working directory; then, for a recipe run from its own directory
        # or from the repository root, from the file's directory and the root.
        bases = [os.getcwd(), os.path.dirname(os.path.abspath(st.code.src.path))]
        if self.repo_root:
            bases.append(self.repo_root)
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, path))
            if os.path.isfile(candidate):
                return candidate
        return None

    def child(self, ins: Command, st: State, path: str, args: list, replace: bool) -> None:
        """Run another script as a new process (`bash other.sh`), or in place of this one (exec)."""
        resolved = self.resolve(st, path)
        if resolved is None:
            self.note(st, ins.line, f"cannot find script {path!r}; not evaluated")
            st.unfound = st.unfound + (st.notes[-1],)
            st.status = 127 if not replace else st.status
            if replace:
                self.exit(st, 127)
            else:
                st.pc += 1
            return
        compiled = self.load(resolved)
        env = self.child_env(st, self.prefix(ins, st))
        exported = {n for n, v in env.items() if v is not None}
        exported |= {n for n, v in st.inputs.items() if v is not None and n not in env}
        if replace:
            while st.stack and st.stack[-1][2] not in ("subshell", "proc"):
                st.stack.pop()
            st.code = compiled.code
        else:
            self.push(st, compiled.code, "proc", self.snapshot(st))
        st.scopes = [env]
        st.exported = exported
        st.functions = {}
        st.positional = tuple(args)
        st.pc = 0

    # ---- builtins ----
    def b_echo(self, ins: Command, st: State) -> None:
        """echo inside a captured function: its words, blank-separated, then a newline unless -n."""
        fields = self.fields(ins.words[1:], st)
        newline = True
        while fields and fields[0].text in ("-n", "-e", "-E", "-ne", "-en"):
            newline = newline and "n" not in fields[0].text
            fields = fields[1:]
        for i, f in enumerate(fields):
            if i:
                st.output.append((" ", (None,)))
            st.output.append((f.text, tuple(f.origins)))
        if newline:
            st.output.append(("\n", (None,)))
        st.status = 0
        st.pc += 1

    def b_builtin(self, ins, st, fields, args) -> None:
        """`builtin NAME ...`: the builtin itself, even where a function has its name."""
        if args and args[0] in ("export", "readonly", "declare", "typeset", "local"):
            for field in fields[2:]:
                name, equals, _ = field.text.partition("=")
                if not _NAME_RE.fullmatch(name):
                    continue
                if equals:
                    start = len(name) + 1
                    self.assign(st, name, Value(field.text[start:], field.origins[start:], field.opaque), args[0] == "local")
                if args[0] == "export":
                    st.exported.add(name)
            st.status = 0
            st.pc += 1
            return
        handler = _BUILTINS.get(args[0]) if args else None
        if handler is None:
            st.status = 0
            st.pc += 1
            return
        handler(self, ins, st, fields[1:], args[1:])

    def b_true(self, ins, st, fields, args) -> None:
        st.status = 0
        st.pc += 1

    def b_false(self, ins, st, fields, args) -> None:
        st.status = 1
        st.pc += 1

    def b_exit(self, ins, st, fields, args) -> None:
        self.exit(st, _status_argument(args, st.status))

    def b_return(self, ins, st, fields, args) -> None:
        self.ret(st, _status_argument(args, st.status))

    def b_source(self, ins, st, fields, args) -> None:
        if not args:
            st.status = 2
            st.pc += 1
            return
        resolved = self.resolve(st, args[0])
        if resolved is None:
            self.note(st, ins.line, f"cannot find sourced file {args[0]!r}; not evaluated")
            st.unfound = st.unfound + (st.notes[-1],)
            st.status = 1
            st.pc += 1
            return
        compiled = self.load(resolved)
        prefix = self.prefix(ins, st)
        self.push(st, compiled.code, "source", (st.positional if len(fields) > 2 else None, bool(prefix)))
        if prefix:
            st.scopes.append(prefix)
        if len(fields) > 2:
            st.positional = tuple(fields[2:])

    def b_exec(self, ins, st, fields, args) -> None:
        if not args:
            st.status = 0
            st.pc += 1
            return
        target = fields[1:]
        if args[0] in ("bash", "sh") or args[0].endswith("/bash") or args[0].endswith("/sh"):
            script = next((i for i, a in enumerate(args[1:], 1) if not a.startswith("-")), None)
            if script is None or "-c" in args[1:script]:
                self.exit(st, 0)
                return
            target = fields[script + 1:]
        if target and target[0].text.endswith(".sh"):
            self.child(ins, st, target[0].text, target[1:], True)
            return
        self.exit(st, 0)  # this process becomes another program: the script ends here

    def b_bash(self, ins, st, fields, args) -> None:
        script = next((i for i, a in enumerate(args) if not a.startswith("-")), None)
        if script is None or "-c" in args[:script]:
            if "-c" in args:
                self.note(st, ins.line, "bash -c is not evaluated")
            st.status = 0
            st.pc += 1
            return
        self.child(ins, st, args[script], fields[script + 2:], False)

    def b_shift(self, ins, st, fields, args) -> None:
        if args and not _INTEGER.fullmatch(args[0]):
            st.status = 1  # numeric argument required: nothing is shifted
            st.pc += 1
            return
        n = int(args[0]) if args else 1
        st.status = 0 if 0 <= n <= len(st.positional) else 1
        n = max(n, 0)
        st.positional = st.positional[n:] if n <= len(st.positional) else st.positional
        st.pc += 1

    def b_set(self, ins, st, fields, args) -> None:
        options = set(st.options)
        words = args[: args.index("--")] if "--" in args else args
        for i, word in enumerate(words):
            if word in ("-o", "+o") and i + 1 < len(words):
                letter = {"errexit": "e", "nounset": "u"}.get(words[i + 1])
                if letter:
                    (options.add if word == "-o" else options.discard)(letter)
            elif len(word) > 1 and word[0] in "-+" and word[1:].isalpha():
                for letter in set(word[1:]) & {"e", "u"}:
                    (options.add if word[0] == "-" else options.discard)(letter)
        st.options = frozenset(options)
        if "--" in args:
            st.positional = tuple(fields[1 + args.index("--") + 1:])
        st.status = 0
        st.pc += 1

    def b_test(self, ins, st, fields, args) -> None:
        st.status = self.posix_test(args, st, ins.line)
        st.pc += 1

    def b_let(self, ins, st, fields, args) -> None:
        result = 0
        for a in args:
            result = self.arith(parse_arith_text(a), st, ins.line)
        st.status = 0 if result else 1
        st.pc += 1

    def b_read(self, ins, st, fields, args) -> None:
        names, skip = [], False
        with_arg = set("adinNptu") if fields[0].text == "read" else set("dnOsuCc")
        for a in args:
            if skip:
                skip = False
            elif a.startswith("-") and len(a) > 1:
                if a[-1] in with_arg:
                    skip = True
                if a[-1] == "a" and fields[0].text == "read":
                    names.append(None)
            elif names and names[-1] is None:
                names[-1] = ("array", a)
            else:
                names.append(a)
        if fields[0].text != "read" and not [n for n in names if n]:
            names = ["MAPFILE"]
        if fields[0].text == "read" and not names:
            names = ["REPLY"]
        if fields[0].text == "read":
            # A read loop (`while read -r line; do ...; done < file`) is summarised: one pass with
            # values the evaluator cannot know, then end of input. Nothing it reads is ever opened.
            key = ("read", id(ins), len(st.stack))
            if key in st.iters:
                del st.iters[key]
                st.status = 1
                st.pc += 1
                return
            st.iters[key] = ((), 0)
        for n in names:
            if n is None:
                continue
            name = n[1] if isinstance(n, tuple) else n
            self.assign(st, name, Value("", [], True))
            self.note(st, ins.line, f"opaque: {fields[0].text} sets {name}")
        st.status = 0
        st.pc += 1

    def b_printf(self, ins, st, fields, args) -> None:
        if len(args) >= 2 and args[0] == "-v":
            self.assign(st, args[1], Value("", [], True))
            self.note(st, ins.line, f"opaque: printf -v sets {args[1]}")
        st.status = 0
        st.pc += 1

    def b_eval(self, ins, st, fields, args) -> None:
        self.note(st, ins.line, "eval is not evaluated")
        st.status = 0
        st.pc += 1

    def b_getopts(self, ins, st, fields, args) -> None:
        st.status = 1
        st.pc += 1

    # ---- results ----
    def rendering(self, st: State, witnesses: dict | None = None) -> Rendering:
        variables: dict[str, Value] = {}
        for name, v in st.inputs.items():
            if v is not None:
                variables[name] = v
        if witnesses:
            for name, text in witnesses.items():
                if text is not None and name not in st.inputs:
                    variables[name] = input_value(text)
        for scope in st.scopes[:1]:
            for name, v in scope.items():
                if isinstance(v, list):
                    v = v[0] if v and v[0] is not None else None
                if v is None:
                    variables.pop(name, None)
                else:
                    variables[name] = v
        exported_names = st.exported | {n for n, text in (witnesses or {}).items() if text is not None}
        exported = {n: v for n, v in variables.items() if n in exported_names
                    and not isinstance(st.scopes[0].get(n), list)}
        notes = list(dict.fromkeys(st.notes))
        return Rendering(exported, variables, notes, st.code.src.path, [], st.exit_code, list(st.branches),
                         list(st.unfound), st.unbounded, list(st.launched))


_DISPATCH = {
    Join: Interp.i_join, Jump: Interp.i_jump, JumpIf: Interp.i_jumpif, Negate: Interp.i_negate, SetStatus: Interp.i_setstatus,
    Branch: Interp.i_branch, NoteInstr: Interp.i_note, Test: Interp.i_test, ArithCmd: Interp.i_arith,
    Case: Interp.i_case, ForInit: Interp.i_forinit, ForNext: Interp.i_fornext, FuncDef: Interp.i_funcdef,
    Subshell: Interp.i_subshell, Unset: Interp.i_unset, Assign: Interp.i_assign, Command: Interp.i_command,
}

_BUILTINS = {
    ":": Interp.b_true, "true": Interp.b_true, "false": Interp.b_false, "exit": Interp.b_exit,
    "return": Interp.b_return, "source": Interp.b_source, ".": Interp.b_source, "exec": Interp.b_exec,
    "bash": Interp.b_bash, "sh": Interp.b_bash, "shift": Interp.b_shift, "set": Interp.b_set,
    "test": Interp.b_test, "[": Interp.b_test, "let": Interp.b_let, "read": Interp.b_read,
    "mapfile": Interp.b_read, "readarray": Interp.b_read, "printf": Interp.b_printf, "eval": Interp.b_eval,
    "getopts": Interp.b_getopts, "builtin": Interp.b_builtin,
}

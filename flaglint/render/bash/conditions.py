"""`[[ … ]]`, `[ … ]` and `test`: a condition's status, as a part of the machine (Interp)."""

from __future__ import annotations

import os
import re
import weakref

from flaglint.render.bash.arrays import (
    counted,
    factored,
    has_absent,
    presence,
)
from flaglint.render.bash.expansion import (
    SET_BY_BASH,
    fold_parts,
    glob_pieces,
    plain_variable,
)
from flaglint.render.bash.lexer import Lit, Param, Word
from flaglint.render.bash.state import NeedInput, State, file_test_input
from flaglint.render.bash.types import (
    OTHER,
    Choice,
    FromInput,
    Sym,
    Value,
    choice_names,
    parts_of,
    read_names,
)


class Conditions:
    """The evaluation of tests, for the machine (Interp) that holds the state."""

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
        try:
            return self._test_one(expr, st, double, line)
        except NeedInput as need:
            counted = self._count_test(expr, st) if need.groups is None else None
            if type(counted) is int:
                return counted
            if counted is not None:
                raise counted from None
            # `[ "${#A[@]}" -gt 0 ]` of an array that n joins grew: its input is read only where
            # the test's status differs between the alternatives it leaves (n forks, not 2**n)
            joined = self._joined_read(expr, st, need.name) if need.groups is None else None
            found = None if joined is None else self.by_alternative(
                st, joined, lambda scratch: self._test_one(expr, scratch, double, line), _status_or_open)
            if type(found) is int:
                return found
            fork = None if found is None else _forked(found, self._texts(found[0].name, st, None))
            if fork is None:
                raise
            raise fork from None

    def _count_test(self, expr: tuple, st: State):
        """`[ "${#A[@]}" -gt 0 ]` of an array with elements that some alternatives have not
        (arrays.factored): the status where every count the path leaves gives the same one, else
        the fork on the first element still open, its values apart by whether it is there (the
        path then reads the count again: n elements fork n times at most, not 2**n); None for any
        other test."""
        if expr[0] == "posix":
            words = expr[1][:-1] if len(expr[1]) == 4 and expr[1][-1].literal == "]" else expr[1]
            if len(words) != 3 or words[1].literal not in _COMPARED:
                return None
            left, op, right = words[0], words[1].literal, words[2]
        elif expr[0] == "bin" and expr[1] in _COMPARED:
            op, left, right = expr[1], expr[2], expr[3]
        else:
            return None
        name, number = _counted_array(left), _integer(right)
        if name is None or number is None:
            name, number, op = _counted_array(right), _integer(left), _MIRRORED[op]
        raw = self.raw(st, name) if name is not None and number is not None else None
        raw = factored(raw) if type(raw) is Choice else raw
        if type(raw) is not list or not has_absent(raw):
            return None
        memo: dict = {}

        def taken(choice: Choice) -> list:
            found = memo.get(id(choice))
            if found is None:
                found = memo[id(choice)] = self.taken(choice, st)
            return found

        def status(low: int, high: int):
            found = _statuses(op, number, low, high)
            return found.pop() if len(found) == 1 else "open"

        # elements read in order until the status is decided (those not read yet taken as open);
        # on a path where one is there, the count's test is decided where it is read
        count = counted(raw, taken, st, lambda low, high: status(low, high) != "open")
        decided = status(count.low, count.high)
        if decided != "open":
            if not self.grouping:  # (the explorer tries values on a state its forks share)
                st.count_read = None
            return decided
        if not self.grouping:
            st.count_read = count.read
        first = count.first
        while len(taken(first)) == 1 and type(taken(first)[0][1]) is Choice:  # decided here, an input below it not
            first = taken(first)[0][1]
        # values that leave the status open each apart: the path forks again below, maybe on this
        # input (the other open elements, and those not read, are taken as open: a range that
        # holds the count)
        results = [(values, status(count.low + (there is True), count.high - (there is False)))
                   for values, alt in taken(first) for there in (presence(alt, taken),)]
        return _forked((first, results), self._texts(first.name, st, None))

    def _joined_read(self, expr: tuple, st: State, name: str) -> str | None:
        """The one variable the test reads that holds a joined value (a Choice) on the input `name`;
        None where it reads none or several, or its words assign as they expand."""
        words = expr[1] if expr[0] == "posix" else [expr[1]] if expr[0] == "word" else [w for w in expr[2:] if isinstance(w, Word)]
        found = set()
        for word in words:
            if word.mutates():
                return None
            for p in word.parts:
                if type(p) is Param and not p.indirect and (p.name[0].isalpha() or p.name[0] == "_"):
                    raw = self.raw(st, p.name)
                    if type(raw) is Choice and name in choice_names(raw):
                        found.add(p.name)
        return found.pop() if len(found) == 1 else None

    def _test_one(self, expr: tuple, st: State, double: bool, line: int) -> int:
        """The status of a test that is no `!`, `&&` or `||` of others."""
        kind = expr[0]
        if kind == "word":
            return 1 if self._is_empty(expr[1], st) else 0
        if kind == "posix":
            words = expr[1]
            # `[ -n "$X" ]`: quoted, the word is one field whatever X holds
            if len(words) in (2, 3) and words[0].literal in ("-n", "-z") and (len(words) == 2 or words[2].literal == "]") \
                    and words[1].parts and all(p.quoted for p in words[1].parts):
                return 0 if self._is_empty(words[1], st) == (words[0].literal == "-z") else 1
            fields = self.fields(words, st)
            self.watch(st, *fields)
            return self.posix_test([f.text for f in fields], st, line)
        if kind == "un":
            op = expr[1]
            if op == "-v":
                name = self.watched(expr[2], st).text
                return 0 if self.lookup(st, name) is not None else 1
            if op in ("-n", "-z"):  # whether it is empty: a summarised counter never is, as bash's
                return 0 if self._is_empty(expr[2], st) == (op == "-z") else 1
            return self.unary(op, self.watched(expr[2], st).text, st, line)
        op, lw, rw = expr[1], expr[2], expr[3]
        left = self.watched(lw, st).text
        if st.widened is not None:
            self.watched(rw, st)
        if op in ("==", "=", "!=") and double:
            matched = self.glob(rw, st).fullmatch(left) is not None
            return 0 if matched == (op != "!=") else 1
        if op == "=~":
            return self.regex(left, self.segments(rw, st), st, line)
        right = self.value(rw, st).text
        return self.binary(op, left, right, st, double, line)

    def _is_empty(self, word, st: State) -> bool:
        """Whether the word expands to the empty string. A variable that holds a joined (symbolic)
        value is not resolved: only the inputs that decide whether it is empty are read (a value
        joined from fifty optional parts, `${X:+--x=$X}`, is empty or not by one or two of them)."""
        param = _sole_variable(word)
        raw = self.raw(st, param.name) if param is not None else None
        if type(raw) is Choice or type(raw) is Sym:
            raw = emptiness(raw)
            found = self._symbolic_empty(raw, st)
            if type(found) is bool:
                return found
            # An input decides it: the path forks on that input alone, its values in the classes
            # that leave the value empty, not, or still undecided on one other part (a guard over
            # n inputs merged into nested Choices forks n times, not 2**n).
            name = found.name
            candidates = self._texts(name, st, None)
            classes: dict = {}
            for text in candidates:
                result = self._symbolic_empty(raw, st, (name, (text,)))
                classes.setdefault(result if type(result) is bool else id(result), []).append(text)
            if len(classes) > 1:
                raise NeedInput(name, tuple(candidates), tuple(tuple(values) for values in classes.values()))
            (result,) = classes
            if type(result) is bool:
                return result
            return not self.value(word, st).text  # (never: a Choice's input decides which alternative)
        if type(raw) is FromInput and raw.name not in st.inputs and raw.name not in SET_BY_BASH and raw.name != "BASH_SOURCE" \
                and (param.op or "u" not in st.options):
            # an input the path has not decided: its values' classes, each read without a copy of the
            # path (`-n "${A:-}" || -n "${B:-}" || …` reads the inputs before the one it forks on
            # again on each fork, each grouped already)
            candidates = st.domains.get(raw.name)
            if candidates is None:
                candidates = self.candidates(raw.name) if self.candidates else (None,)
            if len(candidates) > 1:  # one value: read below, which decides it
                by_emptiness: dict[bool, list] = {}
                for text in candidates:
                    by_emptiness.setdefault(not text, []).append(text)
                if len(by_emptiness) == 1:
                    return next(iter(by_emptiness))
                raise NeedInput(raw.name, candidates, tuple(tuple(values) for values in by_emptiness.values()))
        try:
            return not self.value(word, st).text
        except NeedInput as need:
            # the values of the input it reads, in two classes: those that leave the word empty and
            # the others (`-n "${A:-}" || -n "${B:-}" || …` forks each input once, not per value)
            classes: dict[bool, list] = {}
            for text in need.candidates:
                decided = st.copy()
                self.decide(decided, need.name, text)
                try:
                    classes.setdefault(not self.value(word, decided).text, []).append(text)
                except NeedInput:
                    raise need from None  # another input too: one value at a time
            if len(classes) == 1:
                return next(iter(classes))
            raise NeedInput(need.name, need.candidates, tuple(tuple(values) for values in classes.values())) from None

    def _symbolic_empty(self, value, st: State, decided: tuple | None = None):
        """Whether a symbolic value is empty on this path (True or False), or the Choice or
        FromInput whose input decides it; `decided`: (name, values) of an input taken as decided
        to those values (the path is not copied to try them). Each shared part is read once,
        without recursion: values nest as deep as joins go."""
        domains: dict[str, set] = {}

        def texts(name: str, within) -> tuple:
            if within is not None and within[0] == name:
                return tuple(within[1])
            return decided[1] if decided is not None and decided[0] == name else self._texts(name, st, None)

        def leaf(part, within):
            if type(part) is FromInput:
                empty = {not text for text in texts(part.name, within)}
                return empty.pop() if len(empty) == 1 else part
            return part is None or not part.text

        def below(part, within) -> list:
            if type(part) is Sym:
                return [(piece, within) for piece in part.pieces]
            domain = domains.get(part.name)
            if domain is None:
                domain = domains[part.name] = set(texts(part.name, None))
            return [(alt, (part.name, values)) for values, alt in part.alts if not values.isdisjoint(domain)] \
                or [(part.alts[0][1], within)]

        def combine(part, results: list):
            if type(part) is Sym:  # not empty where a piece is not; empty where every piece is
                return False if False in results else next((r for r in results if r is not True), True)
            if len(results) == 1 or all(r is True for r in results) or all(r is False for r in results):
                return results[0]
            return part  # its alternatives differ: its input decides

        return fold_parts(value, leaf, below, combine)

    def unary(self, op: str, arg: str, st: State, line: int) -> int:
        if op == "-n":
            return 0 if arg else 1
        if op == "-z":
            return 0 if not arg else 1
        if op in ("-f", "-d", "-e", "-a", "-r", "-w", "-x", "-s", "-L", "-h"):
            if not arg:
                return 1
            path = os.path.normpath(arg if os.path.isabs(arg) else os.path.join(os.path.dirname(os.path.abspath(st.code.src.path)), arg))
            check = {
                "-f": os.path.isfile, "-d": os.path.isdir, "-L": os.path.islink, "-h": os.path.islink,
                "-r": lambda x: os.access(x, os.R_OK), "-w": lambda x: os.access(x, os.W_OK),
                "-x": lambda x: os.access(x, os.X_OK),
                "-s": lambda x: os.path.exists(x) and os.path.getsize(x) > 0,
            }.get(op, os.path.exists)
            tree = self.repo_root or os.path.dirname(os.path.abspath(self.script))
            if OTHER not in arg and (path == tree or path.startswith(tree + os.sep)) and check(path):
                return 0  # a file of the recipe's own tree: where it runs, the tree is there too
            # A path the recipe's tree does not hold (a mounted checkpoint, an output directory):
            # whether it holds is known only where the script runs, an input like its environment.
            return 0 if self.lookup(st, file_test_input(op, arg)) is not None else 1
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
                a = self.arith_text(left.strip() or "0", st, line)
                b = self.arith_text(right.strip() or "0", st, line)
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
        for text, quoted in glob_pieces(segs):
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


_COMPARED = {"-eq": int.__eq__, "-ne": int.__ne__, "-gt": int.__gt__, "-ge": int.__ge__, "-lt": int.__lt__, "-le": int.__le__}
_MIRRORED = {"-eq": "-eq", "-ne": "-ne", "-gt": "-lt", "-ge": "-le", "-lt": "-gt", "-le": "-ge"}


def _statuses(op: str, number: int, low: int, high: int) -> set[int]:
    """The statuses of `count op number` for the counts from `low` to `high`: each comparison
    changes only at `number`, so the ends and the counts beside it are all that can differ."""
    counts = {low, high} | {count for count in (number - 1, number, number + 1) if low <= count}
    return {0 if _COMPARED[op](count, number) else 1 for count in counts if count <= high}


def _counted_array(word) -> str | None:
    """The array whose count a word is (`"${#A[@]}"`), and nothing else; None for any other word."""
    parts = [p for p in word.parts if not (type(p) is Lit and p.text == "")]
    p = parts[0] if len(parts) == 1 else None
    if type(p) is Param and p.length and p.index in ("@", "*") and not p.op and not p.indirect \
            and (p.name[0].isalpha() or p.name[0] == "_"):
        return p.name
    return None


def _integer(word) -> int | None:
    """A word that is a decimal number as written (`0`), as bash compares it; None otherwise."""
    text = word.literal
    return int(text) if text is not None and re.fullmatch(r"[+-]?[0-9]+", text.strip()) else None


# Of each joined value asked whether it is empty, its emptiness (emptiness()): made once, read by
# every path that tests the value.
_EMPTINESS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_READ_WHOLE: dict[str, FromInput] = {}
_EMPTY = Value("", ())
_FULL = Value("-", (None,))


def emptiness(value):
    """A value that is empty exactly where `value` is, on every path, and no larger: each text is
    empty or one character, a string with a piece that is never empty is one such text, a Choice
    whose every alternative is alike empty or not is that text (its Choices and inputs read
    whole stay, so what decides it is what decided the value). Tests on a value joined from many
    branches walk only what can make it empty: a launcher reads such a value once per path that
    reaches the test, and again on each value of the input the test forks on."""
    if type(value) is not Choice and type(value) is not Sym:
        return _emptiness_of(value, {})
    found = _EMPTINESS.get(value)
    if found is None:
        made: dict[int, object] = {}
        for part in parts_of(value):  # the parts below a part come before it
            made[id(part)] = _emptiness_of(part, made)
        found = _EMPTINESS[value] = made[id(value)]
    return found


def _emptiness_of(part, made: dict):
    """The emptiness of one part, its own parts' made already (emptiness)."""
    kind = type(part)
    if kind is Value:
        return _FULL if part.text else _EMPTY
    if kind is Sym:
        pieces = [made[id(piece)] if type(piece) in (Choice, Sym, FromInput) else _emptiness_of(piece, made) for piece in part.pieces]
        if any(piece is _FULL for piece in pieces):
            return _FULL
        left = [piece for piece in pieces if piece is not _EMPTY and piece is not None]
        return _EMPTY if not left else left[0] if len(left) == 1 else Sym(tuple(left))
    if kind is Choice:
        alts = tuple((values, made[id(alt)] if type(alt) in (Choice, Sym, FromInput) else _emptiness_of(alt, made)) for values, alt in part.alts)
        first = alts[0][1]
        if all(alt is first for _, alt in alts) and (type(first) is Value or part.name not in read_names(first)):
            return first  # alike on every alternative (an input read whole below keeps the values it is read with)
        return Choice(part.name, alts)
    if kind is FromInput:  # one per input, so that alternatives that read it alike are one
        return _READ_WHOLE.setdefault(part.name, part)
    return part  # None: unset, empty


def _status_or_open(choice: Choice, results: list):
    """A test's status where every alternative of `choice` the path leaves gives it; else the
    Choice with each alternative's result (by_alternative)."""
    first = results[0][1]
    if type(first) is int and all(result == first for _, result in results[1:]):
        return first
    return choice, results


def _forked(found: tuple, candidates: tuple) -> NeedInput | None:
    """The fork on the input of the Choice whose alternatives give the test different statuses:
    the values that give one status in a class together, each other value alone (below it the
    path forks again, maybe on this input: a class of several values would then lose what the
    later fork decides); None where a value falls in none of the alternatives the path left."""
    choice, results = found
    classes: dict = {}
    for text in candidates:
        result = next((result for values, result in results if text in values), None)
        if result is None:
            return None
        classes.setdefault(result if type(result) is int else ("open", text), []).append(text)
    return NeedInput(choice.name, candidates, tuple(tuple(values) for values in classes.values()))


def _sole_variable(word) -> Param | None:
    """The variable a word is empty exactly where it is, and nothing else (`"$X"`, `${X}`, and
    `${X:-}`, `${X-}`, which only keep `set -u` from stopping); None for any other word."""
    parts = [p for p in word.parts if not (type(p) is Lit and p.text == "")]
    p = parts[0] if len(parts) == 1 else None
    if p is None or type(p) is not Param:
        return None
    if p.op in (":-", "-") and p.arg.literal == "":
        return p if plain_variable(Param(p.name, p.quoted, p.line)) else None
    return p if plain_variable(p) else None

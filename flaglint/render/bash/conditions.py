"""`[[ … ]]`, `[ … ]` and `test`: a condition's status, as a part of the machine (Interp)."""

from __future__ import annotations

import os
import re

from flaglint.render.bash.expansion import glob_pieces
from flaglint.render.bash.state import State, file_test_input
from flaglint.render.bash.types import OTHER


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
            matched = self.glob(rw, st).fullmatch(left) is not None
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

"""Bash arithmetic ($((...)), ((...)), let): parsed from the script's text, evaluated on 64-bit integers."""

from __future__ import annotations

import re
from typing import Any, Callable

from flaglint.render.bash.types import OTHER

_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9a-fA-F]*|[0-9]+#[0-9a-zA-Z@_]+|[0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|"
    r"(\*\*=|<<=|>>=|\*\*|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&^|]=|[-+*/%<>=!~&^|?:,()]))"
)


class ArithError(Exception):
    pass


class ArithUnknown(ArithError):
    """An operand whose value is not known here (a command's output, an input's "anything else"):
    so is the expression's value."""


class ArithTooDeep(ArithError):
    """An expression nested deeper than the parser and evaluator follow (they recurse on it)."""


# Parentheses, unary operators and right-nested ?:, = and ** an expression may nest: each costs the
# parser a frame per precedence level.
ARITH_NESTING = 16
# The depth of the parsed expression (a long chain of + nests to the left): the evaluator recurses on it.
ARITH_DEPTH = 64


def parse_arith(text: str, start: int, end: int, expansion: Callable[[int], tuple[Any, int]] | None = None) -> tuple:
    """Parse text[start:end]. `expansion(at)`: the word part of the `$` or backquote expansion at
    `at` (None: that `$` expands nothing) and the index after it; without it `$` is an error."""
    return _Parser(text, start, end, expansion).parse()


def parse_arith_text(text: str) -> tuple:
    return _Parser(text, 0, len(text), None).parse()


_BINARY = [
    (",",), ("=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=", "**="), ("?",),
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
    ("+", "-"), ("*", "/", "%"), ("**",),
]


class _Parser:
    def __init__(self, text: str, start: int, end: int, expansion: Callable[[int], tuple[Any, int]] | None):
        self.tokens: list[tuple[str, object]] = []
        pos = start
        while pos < end:
            if text[pos].isspace() or (text[pos] == "\\" and pos + 1 < end and text[pos + 1] == "\n"):
                pos += 1 if text[pos].isspace() else 2
                continue
            if text[pos] in "$`" and expansion is not None:
                part, after = expansion(pos)
                if part is None:
                    raise ArithError(f"bad arithmetic near {text[pos:end]!r}")
                self.tokens.append(("exp", part))
                pos = after
                continue
            if text[pos] == '"':  # quotes inside $((...)) are removed
                pos += 1
                continue
            m = _TOKEN.match(text, pos, end)
            if not m or m.end() == pos:
                raise ArithError(f"bad arithmetic near {text[pos:end]!r}")
            if m.group(1):
                self.tokens.append(("num", m.group(1)))  # its value (or bash's error) when evaluated
            elif m.group(2):
                name = m.group(2)
                if m.end() < end and text[m.end()] == "[":  # an array element: a[i + 1]
                    close = _bracket_end(text, m.end(), end)
                    name = text[m.start(2):close + 1]
                    pos = close + 1
                    self.tokens.append(("var", name))
                    continue
                self.tokens.append(("var", name))
            else:
                self.tokens.append(("op", m.group(3)))
            pos = m.end()
        self.i = 0
        self.nesting = 0

    def parse(self) -> tuple:
        if not self.tokens:
            return ("num", "0")
        node = self._binary(0)
        if self.i != len(self.tokens):
            raise ArithError("unexpected token in arithmetic")
        if _depth(node) > ARITH_DEPTH:
            raise ArithTooDeep(f"arithmetic nested more than {ARITH_DEPTH} operations deep")
        return node

    def _nested(self, parse: Callable[[], tuple]) -> tuple:
        """parse() one level deeper in the expression."""
        self.nesting += 1
        if self.nesting > ARITH_NESTING:
            raise ArithTooDeep(f"arithmetic nested more than {ARITH_NESTING} levels deep")
        try:
            return parse()
        finally:
            self.nesting -= 1

    def _peek_op(self) -> str | None:
        if self.i < len(self.tokens) and self.tokens[self.i][0] == "op":
            return self.tokens[self.i][1]  # type: ignore[return-value]
        return None

    def _binary(self, level: int) -> tuple:
        if level == len(_BINARY):
            return self._unary()
        ops = _BINARY[level]
        if ops == ("?",):
            cond = self._binary(level + 1)
            if self._peek_op() == "?":
                self.i += 1
                a = self._nested(lambda: self._binary(0))
                if self._peek_op() != ":":
                    raise ArithError("expected : in arithmetic")
                self.i += 1
                b = self._nested(lambda: self._binary(level))
                return ("cond", cond, a, b)
            return cond
        if "=" in ops:  # right-associative assignment
            left = self._binary(level + 1)
            op = self._peek_op()
            if op in ops:
                if left[0] != "var":
                    raise ArithError("assignment to a non-variable")
                self.i += 1
                return ("assign", op, left[1], self._nested(lambda: self._binary(level)))
            return left
        if ops == ("**",):
            left = self._binary(level + 1)
            if self._peek_op() == "**":
                self.i += 1
                return ("bin", "**", left, self._nested(lambda: self._binary(level)))
            return left
        left = self._binary(level + 1)
        while self._peek_op() in ops:
            op = self._peek_op()
            self.i += 1
            left = ("bin", op, left, self._binary(level + 1))
        return left

    def _unary(self) -> tuple:
        op = self._peek_op()
        if op in ("-", "+", "!", "~"):
            self.i += 1
            return ("un", op, self._nested(self._unary))
        if op in ("++", "--"):
            self.i += 1
            target = self._nested(self._unary)
            if target[0] != "var":
                raise ArithError("increment of a non-variable")
            return ("inc", target[1], 1 if op == "++" else -1, True)
        node = self._primary()
        op = self._peek_op()
        if op in ("++", "--") and node[0] == "var":
            self.i += 1
            return ("inc", node[1], 1 if op == "++" else -1, False)
        return node

    def _primary(self) -> tuple:
        if self.i >= len(self.tokens):
            raise ArithError("arithmetic ends early")
        kind, val = self.tokens[self.i]
        self.i += 1
        if kind == "op":
            if val == "(":
                node = self._nested(lambda: self._binary(0))
                if self._peek_op() != ")":
                    raise ArithError("missing ) in arithmetic")
                self.i += 1
                return node
            raise ArithError(f"unexpected {val!r} in arithmetic")
        return (kind, val)


def _depth(node: tuple) -> int:
    """How deep a parsed expression nests, read without recursion."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node[1:] if isinstance(child, tuple))
    return deepest


def _bracket_end(text: str, start: int, end: int) -> int:
    depth = 0
    for i in range(start, end):
        depth += {"[": 1, "]": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise ArithError("missing ] in arithmetic")


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"


def _number(text: str) -> int:
    """A constant as bash reads it: 0x hex, 0 octal, base#digits (base 2 to 64; up to 36 letters
    of either case are 10-35, above that a-z 10-35, A-Z 36-61, @ 62, _ 63)."""
    if text[:2] in ("0x", "0X"):
        base, digits = 16, text[2:]
    elif "#" in text:
        prefix, digits = text.split("#", 1)
        base = int(prefix)
        if not 2 <= base <= 64:
            raise ArithError(f"{text}: invalid arithmetic base")
    elif len(text) > 1 and text[0] == "0":
        base, digits = 8, text[1:]
    else:
        base, digits = 10, text
    value = 0
    for ch in digits:
        digit = _DIGITS.index(ch.lower() if base <= 36 else ch) if ch in _DIGITS else 99
        if digit >= base:
            raise ArithError(f"{text}: value too great for base")
        value = value * base + digit
    return value


def _wrap(n: int) -> int:
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >> 63 else n


_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "<<": lambda a, b: a << (b & 63), ">>": lambda a, b: a >> (b & 63), "&": lambda a, b: a & b,
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
}


def _divide(op: str, a: int, b: int) -> int:
    if b == 0:
        raise ArithError("division by 0")
    q = abs(a) // abs(b)
    q = q if (a >= 0) == (b >= 0) else -q  # C truncation
    return q if op == "/" else a - q * b


class ArithContext:
    """What evaluation needs from the interpreter."""

    def get(self, name: str) -> str | None:
        raise NotImplementedError

    def set(self, name: str, value: int) -> None:
        raise NotImplementedError

    def expand(self, part) -> str:
        raise NotImplementedError


def eval_arith(node: tuple, ctx: ArithContext, depth: int = 0) -> int:
    kind = node[0]
    if kind == "num":
        return _wrap(_number(node[1]))
    if kind == "var":
        return _var_value(node[1], ctx, depth)
    if kind == "exp":
        text = ctx.expand(node[1]).strip()
        if OTHER in text:
            raise ArithUnknown(text)
        return eval_arith(parse_arith_text(text), ctx, depth + 1) if text else 0
    if kind == "un":
        v = eval_arith(node[2], ctx, depth)
        return _wrap({"-": -v, "+": v, "!": int(not v), "~": ~v}[node[1]])
    if kind == "bin":
        op = node[1]
        if op == "&&":
            return int(bool(eval_arith(node[2], ctx, depth)) and bool(eval_arith(node[3], ctx, depth)))
        if op == "||":
            return int(bool(eval_arith(node[2], ctx, depth)) or bool(eval_arith(node[3], ctx, depth)))
        a, b = eval_arith(node[2], ctx, depth), eval_arith(node[3], ctx, depth)
        if op == ",":
            return b
        if op in ("/", "%"):
            return _wrap(_divide(op, a, b))
        if op == "**":
            if b < 0:
                raise ArithError("exponent less than 0")
            return _wrap(pow(a, b, 1 << 64))
        return _wrap(_OPS[op](a, b))
    if kind == "cond":
        return eval_arith(node[2] if eval_arith(node[1], ctx, depth) else node[3], ctx, depth)
    if kind == "assign":
        op, name = node[1], node[2]
        value = eval_arith(node[3], ctx, depth)
        if op != "=":
            current = _var_value(name, ctx, depth)
            base = op[:-1]
            if base == "**" and value < 0:
                raise ArithError("exponent less than 0")
            value = _wrap(_divide(base, current, value)) if base in ("/", "%") else _wrap(
                pow(current, value, 1 << 64) if base == "**" else _OPS[base](current, value))
        ctx.set(name, value)
        return value
    if kind == "inc":
        current = _var_value(node[1], ctx, depth)
        ctx.set(node[1], _wrap(current + node[2]))
        return _wrap(current + node[2]) if node[3] else current
    raise ArithError(f"unknown arithmetic node {kind}")


def _var_value(name: str, ctx: ArithContext, depth: int) -> int:
    text = ctx.get(name)
    if text is None or not text.strip():
        return 0
    if OTHER in text:
        raise ArithUnknown(name)
    if depth > 32:
        raise ArithError("expression recursion level exceeded")
    text = text.strip()
    if text.isdecimal() and text.isascii() and (text[0] != "0" or text == "0"):
        return _wrap(int(text))  # a decimal constant, as most variables hold: no expression to parse
    return eval_arith(parse_arith_text(text), ctx, depth + 1)


def _nodes(node: tuple):
    """The expression's nodes, itself first."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        todo.extend(child for child in current[1:] if type(child) is tuple)


def arith_assigned(node: tuple) -> set[str]:
    """The variables the expression assigns (`i++`, `i += 2`, `i = i + 1`)."""
    return {n[2] if n[0] == "assign" else n[1] for n in _nodes(node) if n[0] in ("assign", "inc")}


def arith_expands(node: tuple) -> bool:
    """Whether the expression holds an expansion (`$x`, `$(…)`), read only as the path runs it."""
    return any(n[0] == "exp" for n in _nodes(node))

"""The condition language of rule files: Python expression syntax, parsed with `ast`, never eval.

`parse` turns source text into a small tree of `Node`s; `evaluate` computes a node on concrete
values. The Z3 translation lives with the solver (flaglint/solve/smt.py), so this module stays import-light.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from types import MappingProxyType

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    import ast
    from typing import Any


class ExprError(Exception):
    """A malformed expression: `column` is 0-based within the expression text."""

    def __init__(self, message: str, column: int = 0):
        super().__init__(message)
        self.column = column


class Unknown(Exception):
    """The value cannot be computed (None in arithmetic, an opaque value): the rule does not apply."""


class Incomparable(Unknown):
    """Unknown where Python itself raises on the same test: a number ordered against a string or
    None (TypeError), a string method of a value that is no string (AttributeError). A front end
    whose program runs the test as written (Tunix's checks) may report it as the program's stop.
    `error`: the exception Python raises."""

    def __init__(self, message: str, error: str, value: Any):
        super().__init__(message)
        self.error, self.value = error, value  # the value Python cannot use there


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float))


class Node:
    """One node of a parsed expression; `free` is the set of variables under it."""

    __slots__ = ("op", "args", "value", "_free", "_hash")

    def __init__(self, op: str, args: tuple = (), value: Any = None):
        self.op = op  # const, var, not, and, or, implies, cmp, in, notin, isnone, notnone, arith, neg, call, if, each
        self.args = args
        # const value, var name, comparison/arith operator, function name; for each: (function, element name)
        self.value = value
        self._free: frozenset | None = None
        self._hash: int | None = None

    def __repr__(self) -> str:
        return f"Node({self.op!r}, {self.args!r}, {self.value!r})"

    def __eq__(self, other: object) -> bool:
        # `1` and `True` are different constants (the solver shares the terms of equal subtrees).
        return (isinstance(other, Node) and type(self.value) is type(other.value)
                and (self.op, self.value, self.args) == (other.op, other.value, other.args))

    def __hash__(self) -> int:
        # Kept: the solver looks up whole derived subtrees, and each level would rehash those below.
        if self._hash is None:
            self._hash = hash((self.op, self.args, self.value if not isinstance(self.value, list) else tuple(self.value)))
        return self._hash

    @property
    def free(self) -> frozenset:
        if self._free is None:
            if self.op == "var":
                self._free = frozenset((self.value,))
            elif self.op == "each":
                self._free = self.args[0].free | (self.args[1].free - {self.value[1]})
            else:
                self._free = frozenset().union(*(a.free for a in self.args))
        return self._free

    def literals(self, into: set | None = None) -> set:
        """The constants this expression compares with (the values a fix may want to use)."""
        into = set() if into is None else into
        if self.op == "const":
            values = self.value if isinstance(self.value, tuple) else (self.value,)
            into.update(v for v in values if isinstance(v, (str, int, float)) or v is None)
        for arg in self.args:
            arg.literals(into)
        return into

    def names(self) -> list[str]:
        """The variables this expression reads, in order of first appearance."""
        found: list[str] = []
        _collect_names(self, found)
        return found


def _collect_names(node: Node, found: list[str]) -> None:
    if node.op == "var":
        if node.value not in found:
            found.append(node.value)
        return
    if node.op == "each":  # the element's name is the generator's own, no key
        _collect_names(node.args[0], found)
        inner: list[str] = []
        _collect_names(node.args[1], inner)
        found.extend(n for n in inner if n != node.value[1] and n not in found)
        return
    for arg in node.args:
        _collect_names(arg, found)


def to_json(node: Node | None) -> Any:
    """A Node as nested lists, for the rule cache."""
    if node is None:
        return None
    if node.op == "const":
        return ["const", list(node.value) if isinstance(node.value, tuple) else node.value]
    return [node.op, node.value, [to_json(a) for a in node.args]]


def from_json(data: Any) -> Node | None:
    if data is None:
        return None
    if data[0] == "const":
        value = data[1]
        return Node("const", value=tuple(value) if isinstance(value, list) else value)
    return Node(data[0], tuple(from_json(a) for a in data[2]), tuple(data[1]) if data[0] == "each" else data[1])


def const(value: Any) -> Node:
    return Node("const", value=value)


# Python's operators by the names of their ast classes
_CMP = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">="}
_ARITH = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%"}
CMP_FUNCS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def _strings(fn: Callable[..., Any]) -> Callable[..., Any]:
    def checked(*args: Any) -> Any:
        if args and not isinstance(args[0], str):
            raise Incomparable(f"a string method of {args[0]!r}", "AttributeError", args[0])
        if not all(isinstance(a, str) for a in args):
            raise Unknown("string function on a non-string")
        return fn(*args)

    return checked


def _sized(value: Any) -> int:
    """len of a string or a list (list keys such as engram_layers); anything else is not judged."""
    if not isinstance(value, (str, list, tuple)):
        raise Unknown("len of a value that has no length")
    return len(value)


_KINDS = ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"), (type(None), "none"), ((list, tuple), "list"),
          (dict, "dict"))


def _kind(value: Any) -> str:
    """The kind of a value, for a condition on its type (`kind(x) in ('int', 'bool')` is Python's
    isinstance(x, int), which a bool passes)."""
    return next(name for types, name in _KINDS if isinstance(value, types))


FUNCTIONS: dict[str, tuple[int, int, Callable[..., Any]]] = {
    # name: (min args, max args, implementation)
    "implies": (2, 2, lambda a, b: (not a) or bool(b)),
    "count": (1, 99, lambda *xs: sum(1 for x in xs if x)),
    "min": (1, 99, min),
    "max": (1, 99, max),
    "abs": (1, 1, abs),
    "len": (1, 1, _sized),
    "lower": (1, 1, _strings(str.lower)),
    "startswith": (2, 2, _strings(str.startswith)),
    "endswith": (2, 2, _strings(str.endswith)),
    "split": (2, 2, _strings(str.split)),  # the pieces of a string, as a list (constant_bound_config before 0.2.0)
    "kind": (1, 1, _kind),
}
# Functions rules may call whose knowledge is not the language's, by (min args, max args): the
# caller of `evaluate` hands their implementations in (flaglint/maxtext/tpu.py's RULE_FUNCTIONS).
HANDED: dict[str, tuple[int, int]] = {
    "slice_devices": (1, 1),  # the devices of a TPU slice such as tpu7x:4x4x8
    "refused_dtype_name": (1, 1),  # a word numpy's dtype() refuses whatever its release
}
NOTHING_HANDED: Mapping[str, Callable[..., Any]] = MappingProxyType({})
# The functions of a generator over a list value (`any(r > 0 for r in compress_ratios)`), on the
# element values as they are computed (any and all stop where Python's do).
EACH: dict[str, Callable[[Any], Any]] = {
    "any": any,
    "all": all,
    "sum": lambda values: sum(_number(v) for v in values),
    "prod": lambda values: math.prod(_number(v) for v in values),
}


def parse(text: str) -> Node:
    import ast  # noqa: PLC0415 ast: only where an expression is read from its text (a check reads its trees from the data cache)

    try:
        tree = ast.parse(str(text).strip(), mode="eval")
    except SyntaxError as err:
        raise ExprError(f"syntax error: {err.msg}", (err.offset or 1) - 1) from None
    return _build(tree.body)


def _build(node: ast.AST) -> Node:
    import ast  # noqa: PLC0415 ast: only where an expression is read from its text (a check reads its trees from the data cache)

    column = getattr(node, "col_offset", 0)
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, (bool, int, float, str, type(None))):
            raise ExprError(f"unsupported literal {node.value!r}", column)
        return const(node.value)
    if isinstance(node, ast.Name):
        return Node("var", value=node.id)
    if isinstance(node, ast.Attribute) and (name := _dotted(node)) is not None:
        return Node("var", value=name)
    if isinstance(node, (ast.Tuple, ast.List)):
        return const(tuple(_literal(elt) for elt in node.elts))
    if isinstance(node, ast.BoolOp):
        return Node("and" if isinstance(node.op, ast.And) else "or", tuple(_build(v) for v in node.values))
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            return Node("not", (_build(node.operand),))
        if isinstance(node.op, ast.USub):
            inner = _build(node.operand)
            return const(-inner.value) if inner.op == "const" else Node("neg", (inner,))
        if isinstance(node.op, ast.UAdd):
            return _build(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op).__name__ in _ARITH:
        return Node("arith", (_build(node.left), _build(node.right)), _ARITH[type(node.op).__name__])
    if isinstance(node, ast.Compare):
        return _compare(node)
    if isinstance(node, ast.IfExp):
        return Node("if", (_build(node.test), _build(node.body), _build(node.orelse)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in EACH:
        return _each(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        name = node.func.id
        if name not in FUNCTIONS and name not in HANDED:
            raise ExprError(f"unknown function {name!r}; known: {', '.join(sorted([*FUNCTIONS, *HANDED]))}", column)
        low, high = FUNCTIONS[name][:2] if name in FUNCTIONS else HANDED[name]
        if not low <= len(node.args) <= high:
            raise ExprError(f"{name}() takes {low if low == high else f'{low} to {high}'} arguments", column)
        args = tuple(_build(a) for a in node.args)
        return Node("implies", args) if name == "implies" else Node("call", args, name)
    raise ExprError(f"unsupported expression: {ast.dump(node)[:60]}", column)


def _each(node: ast.Call) -> Node:
    """`any(X for x in LIST if C)` (all, sum, prod): X for each element of a list the config holds,
    the element named x (a name of the generator's own). The filter is folded into X: an element it
    skips adds nothing (False to any, True to all, 0 to sum, 1 to prod)."""
    import ast  # noqa: PLC0415 ast: only where an expression is read from its text (a check reads its trees from the data cache)

    name = node.func.id
    gen = node.args[0] if len(node.args) == 1 and not node.keywords else None
    if (not isinstance(gen, ast.GeneratorExp) or len(gen.generators) != 1 or gen.generators[0].is_async
            or not isinstance(gen.generators[0].target, ast.Name)):
        raise ExprError(f"{name}() takes one generator over a list: {name}(X for x in LIST)", node.col_offset)
    comp = gen.generators[0]
    body = _build(gen.elt)
    for test in reversed(comp.ifs):
        cond = _build(test)
        if name == "any":
            body = Node("and", (cond, body))
        elif name == "all":
            body = Node("implies", (cond, body))
        else:
            body = Node("if", (cond, body, const(0 if name == "sum" else 1)))
    return Node("each", (_build(comp.iter), body), (name, comp.target.id))


def _dotted(node: ast.Attribute) -> str | None:
    """`a.b.c`: a nested key's name (a Tunix section's key), or None for any other attribute."""
    import ast  # noqa: PLC0415 ast: only where an expression is read from its text (a check reads its trees from the data cache)

    parts = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        parts.append(current.attr)
        current = current.value
    return ".".join([current.id, *reversed(parts)]) if isinstance(current, ast.Name) else None


def _literal(node: ast.AST) -> Any:
    built = _build(node)
    if built.op != "const":
        raise ExprError("only literals may appear in a tuple or list", getattr(node, "col_offset", 0))
    return built.value


def _compare(node: ast.Compare) -> Node:
    import ast  # noqa: PLC0415 ast: only where an expression is read from its text (a check reads its trees from the data cache)

    parts = []
    left = _build(node.left)
    for op, comparator in zip(node.ops, node.comparators):
        right = _build(comparator)
        if isinstance(op, (ast.Is, ast.IsNot)):
            if not (right.op == "const" and right.value is None):
                raise ExprError("`is` compares with None only", comparator.col_offset)
            parts.append(Node("isnone" if isinstance(op, ast.Is) else "notnone", (left,)))
        elif isinstance(op, (ast.In, ast.NotIn)):
            parts.append(Node("in" if isinstance(op, ast.In) else "notin", (left, right)))
        elif type(op).__name__ in _CMP:
            parts.append(Node("cmp", (left, right), _CMP[type(op).__name__]))
        else:
            raise ExprError("unsupported comparison", comparator.col_offset)
        left = right
    return parts[0] if len(parts) == 1 else Node("and", tuple(parts))


def _number(value: Any) -> int | float:
    if value is None or isinstance(value, (str, tuple, list, dict)):
        raise Unknown(f"not a number: {value!r}")
    return int(value) if isinstance(value, bool) else value


def evaluate(node: Node, lookup: Callable[[str], Any], handed: Mapping[str, Callable[..., Any]] = NOTHING_HANDED) -> Any:
    """The value of `node`, reading names through `lookup` and calling the HANDED functions through
    `handed` (name -> implementation); raises Unknown when undefined."""
    op = node.op
    if op == "const":
        return node.value
    if op == "var":
        return lookup(node.value)
    if op == "not":
        return not evaluate(node.args[0], lookup, handed)
    if op == "and":
        return all(evaluate(a, lookup, handed) for a in node.args)
    if op == "or":
        return any(evaluate(a, lookup, handed) for a in node.args)
    if op == "implies":
        return (not evaluate(node.args[0], lookup, handed)) or bool(evaluate(node.args[1], lookup, handed))
    if op == "if":
        return evaluate(node.args[1] if evaluate(node.args[0], lookup, handed) else node.args[2], lookup, handed)
    if op in ("isnone", "notnone"):
        return (evaluate(node.args[0], lookup, handed) is None) == (op == "isnone")
    if op in ("in", "notin"):
        item, container = (evaluate(a, lookup, handed) for a in node.args)
        if isinstance(container, str):
            if not isinstance(item, str):
                raise Unknown("substring test on a non-string")
            found = item in container
        elif isinstance(container, (tuple, list)):
            found = any(values_equal(item, c) for c in container)
        else:
            raise Unknown(f"`in` needs a tuple or a string, got {container!r}")
        return found == (op == "in")
    if op == "cmp":
        left, right = (evaluate(a, lookup, handed) for a in node.args)
        if node.value in ("==", "!="):
            return values_equal(left, right) == (node.value == "==")
        if _numeric(left) != _numeric(right) and all(_numeric(v) or v is None or isinstance(v, (str, list, dict)) for v in (left, right)):
            raise Incomparable(f"{left!r} {node.value} {right!r}", "TypeError", right if _numeric(left) else left)
        return CMP_FUNCS[node.value](_number(left), _number(right))
    if op == "neg":
        return -_number(evaluate(node.args[0], lookup, handed))
    if op == "arith":
        left, right = (_number(evaluate(a, lookup, handed)) for a in node.args)
        try:
            return ARITH_FUNCS[node.value](left, right)
        except ZeroDivisionError:
            raise Unknown("division by zero") from None
        except OverflowError:  # an int past a float's range met a float or a division: Python (and MaxText) stops there
            raise Unknown("a number past a float's range") from None
    if op == "call":
        return call(node.value, [evaluate(a, lookup, handed) for a in node.args], handed)
    if op == "each":
        function, element = node.value
        items = evaluate(node.args[0], lookup, handed)
        if not isinstance(items, (list, tuple)):
            raise Unknown(f"{function}() over {items!r}, which is no list")
        return EACH[function](evaluate(node.args[1], _bound(lookup, element, item), handed) for item in items)
    raise AssertionError(f"unknown node {op}")


def call(name: str, args: list[Any], handed: Mapping[str, Callable[..., Any]] = NOTHING_HANDED) -> Any:
    """The function `name` of the language (or of `handed`) on `args`."""
    return (FUNCTIONS[name][2] if name in FUNCTIONS else handed[name])(*args)


def _bound(lookup: Callable[[str], Any], name: str, value: Any) -> Callable[[str], Any]:
    """LOOKUP with NAME (a generator's element) bound to VALUE."""
    return lambda key: value if key == name else lookup(key)


ARITH_FUNCS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod,
}


def values_equal(left: Any, right: Any) -> bool:
    """The language's ==: Python's, except that a string never equals a number (YAML typed them apart already)."""
    if isinstance(left, str) != isinstance(right, str) and left is not None and right is not None:
        return False
    return left == right


def substitute(node: Node, definitions: Mapping[str, Node]) -> Node:
    """Inline derived values, so the solver sees only keys and variables."""
    if node.op == "var" and node.value in definitions:
        return substitute(definitions[node.value], definitions)
    if node.op == "each":  # the element's name hides a definition of that name
        inner = {k: v for k, v in definitions.items() if k != node.value[1]}
        return Node("each", (substitute(node.args[0], definitions), substitute(node.args[1], inner)), node.value)
    if not node.args:
        return node
    return Node(node.op, tuple(substitute(a, definitions) if isinstance(a, Node) else a for a in node.args), node.value)

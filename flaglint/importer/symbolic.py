"""The symbolic values the validator walker computes with, and the builders of its conditions.

Reading MaxText's validators without running them, each expression becomes a value known from the
source (`Const`), one the rule language cannot state (`Unexpressible`, with the reason), a condition or
arithmetic over config keys (a plain `ast.expr`, printed later as a rule), or one of the
containers here: a tuple, a filtered list, a dict, or the value of the first option whose guard
holds (`GuardedChoice`). The builders (`conj`, `disj`, `neg`, `make_choice`) simplify as they build, so
the conditions the walker gathers along long validator paths stay small enough to print as rules.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

MAX_OPTIONS = 64


@dataclass(frozen=True)
class Const:
    """A value known while reading the source: a literal, an enum value, a file of the package."""

    value: Any


@dataclass(frozen=True)
class Unexpressible:
    """A value the rule language cannot state, with the reason. At a raise site, `given` is what
    the rules can state of the path to it (the conditions taken that are expressible)."""

    reason: str
    given: Any = field(default=None, compare=False)


@dataclass
class Tup:
    items: list


@dataclass
class Filtered:
    """A list built by a comprehension over known items: [(guard, value)]."""

    items: list


@dataclass
class Each:
    """A list built element by element from one the config holds (a list key): `value`, a value
    over the element's name `element`, for each element of `source` where `guard` holds (None:
    every one). The rules state what is computed of it with a generator over `source`."""

    element: str
    source: ast.expr
    value: Any
    guard: ast.expr | None = None


@dataclass
class DictVal:
    """A dict literal with constant keys: [(key, value, guard or None)]."""

    entries: list


@dataclass
class GuardedChoice:
    """The value of the first option whose guard holds; the last guard is None (otherwise).
    `exclusive` holds each option's own guard when the guards already exclude each other."""

    options: list
    exclusive: list | None = None


@dataclass
class BoolVal:
    """`a and b` / `a or b` used as a value."""

    op: str
    values: list


@dataclass
class Text:
    """An f-string with symbolic parts: good for messages only."""

    parts: list  # str | (sym, source text, conversion)


@dataclass(frozen=True)
class Ref:
    """Something callable or with attributes: self, a module, an enum class, a builtin, a method."""

    kind: str  # self | module | enum | builtin | method | func
    name: str
    target: Any = None


@dataclass(frozen=True)
class MeshFile:
    """The path of the package's custom_mesh_and_rule/<name>.yml (`name`: a key's value or a constant)."""

    name: Any


@dataclass(frozen=True)
class ScaleExp:
    """One exponent that `get_individual_scales` derives from global_parameter_scale."""

    kind: str


SELF = Ref("self", "self")
TRUE, FALSE = ast.Constant(True), ast.Constant(False)


_NODE_SHAPES: dict[int, tuple[ast.AST, int]] = {}
_SHAPES: dict[tuple, int] = {}


def shape_id(node: ast.AST) -> int:
    """A number per expression shape: equal for structurally equal trees. Remembered per node
    (the walker never changes a node once built), so comparing big conditions stays cheap."""
    hit = _NODE_SHAPES.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    parts: list[Any] = [type(node).__name__]
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            parts.append(shape_id(value))
        elif isinstance(value, list):
            parts.append(tuple(shape_id(v) if isinstance(v, ast.AST) else repr(v) for v in value))
        else:
            parts.append(repr(value) if not isinstance(value, (ast.expr_context,)) else None)
    shape = _SHAPES.setdefault(tuple(parts), len(_SHAPES))
    _NODE_SHAPES[id(node)] = (node, shape)
    return shape


def same(a: Any, b: Any) -> bool:
    if isinstance(a, ast.AST) and isinstance(b, ast.AST):
        return shape_id(a) == shape_id(b)
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - structural comparison of unlike values
        return False


def key_node(key: str) -> ast.expr:
    head, *rest = key.split(".")
    node: ast.expr = ast.Name(head, ast.Load())
    for part in rest:
        node = ast.Attribute(node, part, ast.Load())
    return node


def key_of(value: Any) -> str | None:
    parts = []
    node = value
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + list(reversed(parts)))
    return None


_CONST_NODES: dict[str, ast.expr | Unexpressible] = {}


def const_node(value: Any) -> ast.expr | Unexpressible:
    """The node of a constant; one node per value (by repr, which tells True from 1), so that big
    constants (the logical axis rules) are built and shaped once."""
    key = f"{type(value).__name__}:{value!r}"
    node = _CONST_NODES.get(key)
    if node is None:
        node = _CONST_NODES[key] = _build_const(value)
    return node


def _build_const(value: Any) -> ast.expr | Unexpressible:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return ast.Constant(value)
    if isinstance(value, (tuple, list, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        nodes = [const_node(v) for v in items]
        if any(isinstance(n, Unexpressible) for n in nodes):
            return Unexpressible("nested collection")
        return ast.Tuple(nodes, ast.Load())
    return Unexpressible(f"value of type {type(value).__name__}")


def each_node(function: str, element: str, source: ast.expr, body: ast.expr, guard: ast.expr | None = None) -> ast.expr:
    """`function(body for element in source if guard)`: any, all, sum or prod over a list value."""
    loop = ast.comprehension(ast.Name(element, ast.Store()), source, [guard] if guard is not None else [], 0)
    return ast.Call(ast.Name(function, ast.Load()), [ast.GeneratorExp(body, [loop])], [])


def condition_text(node: ast.AST) -> str:
    """NODE as rule text: `any(x for x in l)` as Python writes it (ast.unparse doubles the
    parentheses of a generator that is a call's only argument)."""
    text = ast.unparse(node)
    for gen in {ast.unparse(n) for n in ast.walk(node) if isinstance(n, ast.GeneratorExp)}:
        text = text.replace(f"({gen})", gen)
    return text


def freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return {k: freeze(v) for k, v in value.items()}
    return value


def _combine(items: list, op: ast.boolop, absorbing: bool) -> ast.expr:
    """`and`/`or` of items, flattened, without repeats; `absorbing` is the constant that decides it."""
    parts: list[ast.expr] = []
    for item in items:
        if isinstance(item, ast.Constant) and item.value is absorbing:
            return TRUE if absorbing else FALSE
        if isinstance(item, ast.Constant) and item.value is (not absorbing):
            continue
        subs = item.values if isinstance(item, ast.BoolOp) and isinstance(item.op, type(op)) else [item]
        for sub in subs:
            if not any(shape_id(sub) == shape_id(p) for p in parts):
                parts.append(sub)
    if not parts:
        return FALSE if absorbing else TRUE
    return parts[0] if len(parts) == 1 else ast.BoolOp(op, parts)


def conj(items: list) -> ast.expr:
    return _combine(items, ast.And(), absorbing=False)


def disj(items: list) -> ast.expr:
    return _combine(items, ast.Or(), absorbing=True)


_INVERSE = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
    ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


def neg(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return ast.Constant(not node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return ast.Compare(node.left, [_INVERSE[type(node.ops[0])]()], node.comparators)
    return ast.UnaryOp(ast.Not(), node)


PY_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: lambda a, b: a == b if None not in (a, b) else a is b,
    ast.IsNot: lambda a, b: a != b if None not in (a, b) else a is not b,
}


def items_of(value: Any) -> list | None:
    if isinstance(value, Const) and isinstance(value.value, (tuple, list, frozenset, set)):
        values = sorted(value.value, key=repr) if isinstance(value.value, (frozenset, set)) else value.value
        return [(None, Const(v)) for v in values]
    if isinstance(value, Const) and isinstance(value.value, dict):
        return [(None, Const(k)) for k in value.value]
    if isinstance(value, Tup):
        return [(None, v) for v in value.items]
    if isinstance(value, Filtered):
        return list(value.items)
    if isinstance(value, DictVal):
        return [(g, Const(k)) for k, _, g in value.entries]
    return None


def exclusive_options(choice: GuardedChoice) -> list:
    if choice.exclusive is not None:
        return [(g, v) for g, (_, v) in zip(choice.exclusive, choice.options)]
    out, earlier = [], []
    for guard, value in choice.options:
        if guard is None:
            out.append((conj([neg(e) for e in earlier]) if earlier else None, value))
            break
        out.append((conj([neg(e) for e in earlier] + [guard]), value))
        earlier.append(guard)
    return out


def make_choice(options: list) -> Any:
    cleaned = []
    for guard, value in options:
        if guard is not None and isinstance(guard, ast.Constant):
            if guard.value:
                cleaned.append((None, value))
                break
            continue
        cleaned.append((guard, value))
    if not cleaned:
        return Unexpressible("no option")
    if cleaned[-1][0] is not None:
        cleaned.append((None, Unexpressible("no option holds")))
    if len(cleaned) == 1 or all(same(v, cleaned[0][1]) for _, v in cleaned):
        return cleaned[0][1]
    if len(cleaned) > MAX_OPTIONS:
        return Unexpressible("too many cases")
    flat = []
    for guard, value in cleaned:
        if isinstance(value, GuardedChoice):
            for inner_guard, inner in exclusive_options(value):
                parts = [g for g in (guard, inner_guard) if g is not None]
                flat.append((conj(parts) if parts else None, inner))
        else:
            flat.append((guard, value))
    if len(flat) > MAX_OPTIONS:
        return Unexpressible("too many cases")
    grouped = _by_enum_value(GuardedChoice(flat))
    return grouped.options[0][1] if len(grouped.options) == 1 else grouped


ENUM_CHOICES: dict[str, tuple] = {}  # enum/literal key -> its values, set by Walker for the package it reads


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def free_names(node: ast.AST) -> set[str]:
    """The names NODE reads that no generator in it binds."""
    if isinstance(node, ast.GeneratorExp):
        bound = {n.id for gen in node.generators for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        inner = set().union(free_names(node.elt), *(free_names(t) for gen in node.generators for t in gen.ifs))
        return (inner - bound) | set().union(*(free_names(gen.iter) for gen in node.generators))
    if isinstance(node, ast.Name):
        return {node.id}
    return set().union(*(free_names(child) for child in ast.iter_child_nodes(node)))


def _decide(node: ast.AST, env: dict[str, Any]) -> bool | None:
    """NODE's truth when the keys it reads have the values in ENV (None when it reads others)."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _decide(node.operand, env)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        parts = [_decide(v, env) for v in node.values]
        if any(p is None for p in parts):
            return None
        return all(parts) if isinstance(node.op, ast.And) else any(parts)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Name) and node.left.id in env:
        try:
            return PY_COMPARE[type(node.ops[0])](env[node.left.id], ast.literal_eval(node.comparators[0]))
        except (ValueError, TypeError):
            return None
    return None


MAX_ENUM_CASES = 256


def _by_enum_value(choice: GuardedChoice) -> GuardedChoice:
    """Guards that only test enum keys against constants, regrouped per option as `key in (...)`
    tests that exclude each other: the walker's nested ifs over custom_mesh_and_rule (and its
    eval twin) otherwise grow without bound."""
    guards = [g for g, _ in choice.options if g is not None]
    keys = sorted(set().union(*(names_in(g) for g in guards))) if guards else []
    if not keys or any(ENUM_CHOICES.get(k) is None for k in keys) or len(keys) > 2:
        return choice
    combos: list[dict[str, Any]] = [{}]
    for key in keys:
        combos = [{**c, key: v} for c in combos for v in ENUM_CHOICES[key]]
    if len(combos) > MAX_ENUM_CASES:
        return choice
    groups: list[tuple[list, Any]] = []
    for env in combos:
        chosen = None
        for guard, option in choice.options:
            holds = True if guard is None else _decide(guard, env)
            if holds is None:
                return choice
            if holds:
                chosen = option
                break
        for group in groups:
            if same(group[1], chosen):
                group[0].append(env)
                break
        else:
            groups.append(([env], chosen))
    if len(groups) == 1:
        return GuardedChoice([(None, groups[0][1])])
    tests = [_combo_test(keys, envs) for envs, _ in groups]
    options = [(test, option) for test, (_, option) in zip(tests[:-1], groups[:-1])] + [(None, groups[-1][1])]
    return GuardedChoice(options, exclusive=tests)


def _member(key: str, values: list) -> ast.expr:
    if len(values) == len(ENUM_CHOICES[key]):
        return TRUE
    if len(values) == 1:
        return ast.Compare(key_node(key), [ast.Eq()], [ast.Constant(values[0])])
    return ast.Compare(key_node(key), [ast.In()], [const_node(tuple(values))])


def _combo_test(keys: list[str], envs: list[dict]) -> ast.expr:
    """The test that holds exactly for the key values in ENVS."""
    if len(keys) == 1:
        return _member(keys[0], [e[keys[0]] for e in envs])
    first, second = keys
    by_first: dict[Any, list] = {}
    for env in envs:
        by_first.setdefault(env[first], []).append(env[second])
    rows: list[tuple[list, list]] = []
    for value, seconds in by_first.items():
        for row in rows:
            if row[1] == seconds:
                row[0].append(value)
                break
        else:
            rows.append(([value], seconds))
    return disj([conj([_member(first, firsts), _member(second, seconds)]) for firsts, seconds in rows])

"""How the validator walker evaluates expressions, and turns symbolic values back into conditions.

A mixin of `Walker` (validator_walker.py). `ev` turns each expression of a validator into a
symbolic value (symbolic.py): a config key read through `self` becomes its name, constants and
enum members are folded, comparisons and arithmetic over keys become conditions, and a division by
a key records a ZeroDivisionError site. `expr`, `truth` and `render` turn a value back into an
expression, a condition, or the text of a message. Calls are followed by `CallWalker`.
"""

from __future__ import annotations

import ast
import operator
from typing import Any, Callable

from flaglint.importer.source_text import clean_source
from flaglint.importer.symbolic import (
    PY_COMPARE,
    SELF,
    TRUE,
    BoolVal,
    Const,
    DictVal,
    Each,
    Filtered,
    GuardedChoice,
    Ref,
    ScaleExp,
    Text,
    Tup,
    Unexpressible,
    conj,
    const_node,
    disj,
    exclusive_options,
    freeze,
    items_of,
    key_node,
    key_of,
    make_choice,
    neg,
    shape_id,
)
from flaglint.importer.walker_state import Frame, State

_PY_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_SILENT_MODULES = {"logger", "max_logging", "logging"}
_BUILTINS = {
    "len", "int", "float", "str", "bool", "abs", "min", "max", "sum", "any", "all", "isinstance", "getattr",
    "hasattr", "tuple", "list", "set", "sorted", "divmod", "prod", "range", "frozenset", "repr", "setattr", "map",
}
_OUT_OF_RANGE = Unexpressible("subscript out of range")
_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# The path length at which each dict literal was built (by id: a DictVal is mutable): an item
# assigned into it later holds under the conditions taken since.
_DICT_DEPTH: dict[int, int] = {}


def container_depth(container: DictVal) -> int:
    return _DICT_DEPTH.get(id(container), 0)


class ExpressionWalker:
    """Expressions and conversions, for `Walker`: uses its `keys`, `scope`, `functions`, `methods`, `first_computed`,
    `str_enums` and `crash_guards`."""

    def cond(self, node: ast.expr, st: State, frame: Frame) -> Any:
        return self.truth(self.ev(node, st, frame))

    def ev(self, node: ast.expr, st: State, frame: Frame) -> Any:
        method = getattr(self, f"ev_{type(node).__name__}", None)
        if method is None:
            return Unexpressible(f"expression {type(node).__name__}")
        return method(node, st, frame)

    def ev_Constant(self, node: ast.Constant, st: State, frame: Frame) -> Any:
        return Const(node.value)

    def ev_Name(self, node: ast.Name, st: State, frame: Frame) -> Any:
        if node.id in st.locals:
            return st.locals[node.id]
        if node.id in self.scope.enums:
            return Ref("enum", node.id)
        if node.id in self.scope.constants:
            return Const(freeze(self.scope.constants[node.id]))
        if node.id in self.scope.classes:
            return Ref("class", node.id)
        if node.id in self.functions:
            return Ref("func", node.id, self.functions[node.id])
        if node.id in _BUILTINS:
            return Ref("builtin", node.id)
        if node.id in _SILENT_MODULES:
            return Ref("silent", node.id)
        return Ref("module", node.id)

    def ev_Attribute(self, node: ast.Attribute, st: State, frame: Frame) -> Any:
        base = self.ev(node.value, st, frame)
        return self.attribute(base, node.attr, st)

    def attribute(self, base: Any, attr: str, st: State) -> Any:
        if base is SELF:
            if attr in self.keys or any(k.startswith(attr + ".") for k in self.keys):
                return st.fields.get(attr, key_node(attr))
            if attr in self.methods or attr == "get":  # get: pyconfig's merged keys, a dict, before 0.2.0
                return Ref("method", attr, SELF)
            return Unexpressible(f"self.{attr}")
        if isinstance(base, ast.Name) and f"{base.id}.{attr}" in self.keys:
            key = f"{base.id}.{attr}"
            return st.fields.get(key, key_node(key))
        if isinstance(base, Ref):
            if base.kind == "enum":
                members = self.scope.enums[base.name].members
                return Const(members[attr]) if attr in members else Unexpressible(f"{base.name}.{attr}")
            if base.kind == "class" and attr == "model_fields":
                return Const(tuple(_class_fields(self.scope.classes[base.name])))
            if base.kind in ("module", "silent"):
                name = f"{base.name}.{attr}"
                if name in self.functions:  # a static method of pyconfig's config class (before 0.2.0)
                    return Ref("func", name, self.functions[name])
                return Ref(base.kind, name)
            return Unexpressible(f"{base.name}.{attr}")
        if attr == "value":
            return base  # an enum field's value is what the rules compare
        if isinstance(base, Unexpressible):
            return base
        return Ref("method", attr, base)

    def ev_Subscript(self, node: ast.Subscript, st: State, frame: Frame) -> Any:
        base = self.ev(node.value, st, frame)
        index = self.ev(node.slice, st, frame)
        if base is SELF and isinstance(index, Const) and isinstance(index.value, str):
            return self.raw_key(index.value, st)
        return self.subscript(base, index)

    def raw_key(self, key: str, st: State) -> Any:
        """`raw_keys["key"]`: pyconfig's merged keys before 0.2.0, read as the config; a value the
        walk computed into it, else the key, else (a key pyconfig has not set here) not known."""
        if key in st.fields:
            return st.fields[key]
        if key in self.keys:
            return key_node(key)
        return Unexpressible(f"raw_keys[{key!r}] before pyconfig sets it")

    def subscript(self, base: Any, index: Any) -> Any:
        if isinstance(base, GuardedChoice):
            options = [(g, self.subscript(v, index)) for g, v in base.options]
            kept = [(g, v) for g, v in options if v != _OUT_OF_RANGE]
            if not kept:
                return _OUT_OF_RANGE
            # an option without the key is one its guard already excluded (`if k in d: d[k]`)
            kept[-1] = (None, kept[-1][1])
            return make_choice(kept)
        if isinstance(base, Const) and isinstance(index, Const):
            try:
                return Const(base.value[index.value])
            except (KeyError, IndexError, TypeError):
                return _OUT_OF_RANGE
        if isinstance(base, Tup) and isinstance(index, Const) and isinstance(index.value, int):
            try:
                return base.items[index.value]
            except IndexError:
                return Unexpressible("subscript out of range")
        if isinstance(base, DictVal) and isinstance(index, Const):
            return self.dict_get(base, index.value, Unexpressible(f"missing key {index.value!r}"))
        if isinstance(base, Unexpressible):
            return base
        return Unexpressible("subscript of a symbolic value")

    def dict_get(self, base: DictVal, key: Any, default: Any) -> Any:
        options = []
        for k, v, guard in reversed(base.entries):
            if k == key:
                options.append((guard, v))
                if guard is None:
                    break
        if not options:
            return default
        if options[-1][0] is not None:
            options.append((None, default))
        return make_choice(options)

    def ev_Tuple(self, node: ast.Tuple, st: State, frame: Frame) -> Any:
        items = [self.ev(e, st, frame) for e in node.elts]
        if all(isinstance(i, Const) for i in items):
            return Const(tuple(i.value for i in items))
        return Tup(items)

    ev_List = ev_Tuple

    def ev_Set(self, node: ast.Set, st: State, frame: Frame) -> Any:
        items = [self.ev(e, st, frame) for e in node.elts]
        if all(isinstance(i, Const) for i in items):
            return Const(frozenset(i.value for i in items))
        return Tup(items)

    def ev_Dict(self, node: ast.Dict, st: State, frame: Frame) -> Any:
        entries = []
        for k, v in zip(node.keys, node.values):
            key = self.ev(k, st, frame) if k is not None else Unexpressible("dict unpacking")
            if not isinstance(key, Const):
                return Unexpressible("dict with a symbolic key")
            entries.append((key.value, self.ev(v, st, frame), None))
        value = DictVal(entries)
        _DICT_DEPTH[id(value)] = len(st.path)
        return value

    def ev_JoinedStr(self, node: ast.JoinedStr, st: State, frame: Frame) -> Any:
        parts: list = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
            else:
                value = self.ev(part.value, st, frame)
                parts.append((value, part))
        if all(isinstance(p, str) or (isinstance(p[0], Const) and p[1].conversion == -1) for p in parts):
            return Const("".join(p if isinstance(p, str) else str(p[0].value) for p in parts))
        choices = [p for p in parts if not isinstance(p, str) and isinstance(p[0], GuardedChoice)]
        if len(choices) == 1 and all(isinstance(v, Const) for _, v in choices[0][0].options):
            def fill(v: Any) -> Any:
                return Const("".join(p if isinstance(p, str) else str((v if p is choices[0] else p[0]).value) for p in parts))

            if all(isinstance(p, str) or p is choices[0] or isinstance(p[0], Const) for p in parts):
                return self.map_choice(choices[0][0], fill)
        return Text(parts)

    def ev_IfExp(self, node: ast.IfExp, st: State, frame: Frame) -> Any:
        test = self.cond(node.test, st, frame)
        if isinstance(test, ast.Constant):
            return self.ev(node.body if test.value else node.orelse, st, frame)
        if isinstance(test, Unexpressible):
            return test
        self.crash_guards.append(test)
        body = self.ev(node.body, st, frame)
        self.crash_guards[-1] = neg(test)
        orelse = self.ev(node.orelse, st, frame)
        self.crash_guards.pop()
        return make_choice([(test, body), (None, orelse)])

    def ev_BoolOp(self, node: ast.BoolOp, st: State, frame: Frame) -> Any:
        values = []
        pushed = 0
        for operand in node.values:
            value = self.ev(operand, st, frame)
            values.append(value)
            truth = self.truth(value)
            if isinstance(truth, ast.Constant):
                if truth.value == isinstance(node.op, ast.Or):
                    break  # short circuit on a constant
                values.pop()
                continue
            if isinstance(truth, Unexpressible):
                continue
            self.crash_guards.append(truth if isinstance(node.op, ast.And) else neg(truth))
            pushed += 1
        del self.crash_guards[len(self.crash_guards) - pushed :]
        op = "and" if isinstance(node.op, ast.And) else "or"
        if not values:
            return Const(op == "and")
        if len(values) == 1:
            return values[0]
        return BoolVal(op, values)

    def ev_UnaryOp(self, node: ast.UnaryOp, st: State, frame: Frame) -> Any:
        value = self.ev(node.operand, st, frame)
        if isinstance(node.op, ast.Not):
            truth = self.truth(value)
            return truth if isinstance(truth, Unexpressible) else neg(truth)
        if isinstance(value, Const) and isinstance(node.op, ast.USub):
            return Const(-value.value)
        expr = self.expr(value)
        if isinstance(expr, Unexpressible):
            return expr
        return ast.UnaryOp(node.op, expr)

    def ev_BinOp(self, node: ast.BinOp, st: State, frame: Frame) -> Any:
        return self.binop(node.op, self.ev(node.left, st, frame), self.ev(node.right, st, frame), node, st, frame)

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST, st: State, frame: Frame) -> Any:
        if isinstance(left, Const) and isinstance(right, Const):
            try:
                return Const(_PY_BINOPS[type(op)](left.value, right.value))
            except (KeyError, TypeError, ZeroDivisionError, ValueError):
                return Unexpressible("constant arithmetic")
        if isinstance(op, ast.Pow) and isinstance(left, Const) and left.value == 2 and isinstance(right, ScaleExp):
            return ast.Name(f"{right.kind}_factor", ast.Load())
        if type(op) not in _PY_BINOPS or isinstance(op, ast.Pow):
            return Unexpressible(f"operator {type(op).__name__}")
        self.none_operands(node, (left, right), st, frame)
        if isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)) and not isinstance(right, Const):
            divisor = self.expr(right)
            if not isinstance(divisor, Unexpressible) and not _positive(divisor):
                shown = clean_source(node.right) if isinstance(node, ast.BinOp) else ast.unparse(divisor)
                self.record(node, frame, "crash", "ZeroDivisionError", f"{shown} is 0: division by zero",
                            self.path_and(st, ast.Compare(divisor, [ast.Eq()], [ast.Constant(0)])))
        a, b = self.expr(left), self.expr(right)
        if isinstance(a, Unexpressible):
            return a
        if isinstance(b, Unexpressible):
            return b
        if isinstance(op, ast.Mult) and _is_const(a, 1):
            return b
        if isinstance(op, ast.Mult) and _is_const(b, 1):
            return a
        return ast.BinOp(a, op, b)

    def ev_Compare(self, node: ast.Compare, st: State, frame: Frame) -> Any:
        left = self.ev(node.left, st, frame)
        parts = []
        for op, comparator in zip(node.ops, node.comparators):
            right = self.ev(comparator, st, frame)
            if isinstance(op, _ORDERINGS):
                self.none_operands(node, (left, right), st, frame)
            parts.append(self.compare(op, left, right))
            left = right
        if len(parts) == 1:
            return parts[0]
        truths = [self.truth(p) for p in parts]
        bad = [t for t in truths if isinstance(t, Unexpressible)]
        return bad[0] if bad else conj(truths)

    def none_operands(self, node: ast.AST, operands: tuple, st: State, frame: Frame) -> None:
        """Before 0.2.0 an empty value (`key=`) reaches pyconfig as None whatever base.yml's value
        is; arithmetic or an ordering with it raises TypeError."""
        for operand in operands:
            key = key_of(operand)
            schema = self.keys.get(key) if key is not None else None
            if schema is not None and schema.typed_as_default and not schema.nullable:
                # one check a key, where it is first computed with: every later use fails the same way
                site, owner = self.first_computed.setdefault(key, (node, frame))
                self.record(site, owner, "crash", "TypeError", f"{key} is None (given empty): pyconfig computes with it",
                            self.path_and(st, ast.Compare(key_node(key), [ast.Is()], [ast.Constant(None)])))

    def compare(self, op: ast.cmpop, left: Any, right: Any) -> Any:
        if isinstance(left, GuardedChoice) and not _expressible_choice(left):
            return self.map_choice(left, lambda v: self.compare(op, v, right))
        if isinstance(right, GuardedChoice) and not _expressible_choice(right):
            return self.map_choice(right, lambda v: self.compare(op, left, v))
        if isinstance(left, Const) and isinstance(right, Const):
            try:
                return Const(PY_COMPARE[type(op)](left.value, right.value))
            except TypeError:
                return Unexpressible("constant comparison")
        if isinstance(op, (ast.Eq, ast.NotEq)) and (isinstance(left, Tup) or isinstance(right, Tup)):
            a, b = items_of(left), items_of(right)
            if a is None or b is None:
                return Unexpressible("comparison of sequences")
            if len(a) != len(b):
                return Const(isinstance(op, ast.NotEq))
            eqs = [self.truth(self.compare(ast.Eq(), x, y)) for (_, x), (_, y) in zip(a, b)]
            if any(isinstance(e, Unexpressible) for e in eqs):
                return Unexpressible("comparison of sequences")
            both = conj(eqs)
            return both if isinstance(op, ast.Eq) else neg(both)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(left, Tup) and items_of(right) is not None:
            found = disj([self.truth(self.compare(ast.Eq(), left, v)) for _, v in items_of(right)])
            return found if isinstance(op, ast.In) else neg(found)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, Each):
            return self.member_of_each(op, left, right)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, DictVal) and isinstance(left, ast.expr) \
                and all(g is None for _, _, g in right.entries):
            # a dict's keys, for a value known when the config is (a list's element)
            return ast.Compare(left, [op], [const_node(tuple(dict.fromkeys(k for k, _, _ in right.entries)))])
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (Tup, Filtered, DictVal)):
            items = items_of(right)
            eqs = [
                self.truth(self.compare(ast.Eq(), left, v)) if g is None else conj([g, self.truth(self.compare(ast.Eq(), left, v))])
                for g, v in items
            ]
            if any(isinstance(e, Unexpressible) for e in eqs):
                return Unexpressible("membership in a symbolic list")
            found = disj(eqs)
            return found if isinstance(op, ast.In) else neg(found)
        a, b = self.expr(left), self.expr(right)
        if isinstance(a, Unexpressible):
            return a
        if isinstance(b, Unexpressible):
            return b
        if isinstance(op, (ast.Eq, ast.NotEq)) and (_is_none(a) or _is_none(b)):
            op = ast.Is() if isinstance(op, ast.Eq) else ast.IsNot()
        if isinstance(op, (ast.Is, ast.IsNot)) and not (_is_none(a) or _is_none(b)):
            op = ast.Eq() if isinstance(op, ast.Is) else ast.NotEq()
        if _is_none(a) and not _is_none(b):
            a, b = b, a
        if isinstance(a, ast.Constant) and isinstance(a.value, bool) and not isinstance(b, ast.Constant):
            a, b = b, a
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(b, ast.Constant) and isinstance(b.value, bool):
            key = key_of(a)
            if key in self.keys and self.keys[key].kind == "bool" and not self.keys[key].nullable:
                return a if b.value == isinstance(op, ast.Eq) else neg(a)
        return ast.Compare(a, [op], [b])

    def ev_ListComp(self, node: ast.ListComp, st: State, frame: Frame) -> Any:
        if len(node.generators) != 1:
            return Unexpressible("nested comprehension")
        gen = node.generators[0]
        iterable = self.ev(gen.iter, st, frame)
        if isinstance(iterable, GuardedChoice) and not _expressible_choice(iterable):
            # one list per value the iterable may hold (a custom mesh file's mesh_axes, the user's)
            return self.map_choice(iterable, lambda value: self.comprehension(node, gen, value, st, frame))
        return self.comprehension(node, gen, iterable, st, frame)

    def comprehension(self, node: ast.ListComp, gen: ast.comprehension, iterable: Any, st: State, frame: Frame) -> Any:
        if isinstance(iterable, Ref) and iterable.kind == "enum":  # an enum class iterates over its members
            iterable = Tup([Const(value) for value in self.scope.enums[iterable.name].members.values()])
        items = items_of(iterable)
        if items is None:
            items = self.members(node.elt, gen.target, iterable, st, frame)
        if items is None and self.listed(iterable):
            return self.each_comprehension(node, gen, iterable, st, frame)
        if items is None:
            return iterable if isinstance(iterable, Unexpressible) else Unexpressible(f"list value: comprehension over {clean_source(gen.iter)}")
        out = []
        for guard, item in items:
            inner = st.fork()
            self.assign(gen.target, item, inner, frame)
            conds = [guard] if guard is not None else []
            for test in gen.ifs:
                t = self.cond(test, inner, frame)
                if isinstance(t, Unexpressible):
                    return t
                conds.append(t)
            c = conj(conds)
            if isinstance(c, ast.Constant) and c.value is False:
                continue
            out.append((None if isinstance(c, ast.Constant) else c, self.ev(node.elt, inner, frame)))
        if all(g is None for g, _ in out) and all(isinstance(v, Const) for _, v in out):
            return Const(tuple(v.value for _, v in out))
        return Filtered(out)

    ev_GeneratorExp = ev_ListComp
    ev_SetComp = ev_ListComp

    def members(self, elt: ast.expr, target: ast.expr, iterable: Any, st: State, frame: Frame) -> list | None:
        """`[table[x] for x in L]` over a list L whose value is read when the config is (a key):
        L read element by element, as the keys of `table` it holds (`'k' in L`). Exact for a list
        without repeats; an element `table` has no key for is not seen (MaxText raises KeyError)."""
        if not (isinstance(iterable, ast.expr) and isinstance(target, ast.Name) and isinstance(elt, ast.Subscript)
                and isinstance(elt.slice, ast.Name) and elt.slice.id == target.id):
            return None
        table = self.ev(elt.value, st, frame)
        if isinstance(table, DictVal):
            names = [k for k, _, _ in table.entries]
        elif isinstance(table, Const) and isinstance(table.value, dict):
            names = list(table.value)
        else:
            return None
        return [(ast.Compare(const_node(name), [ast.In()], [iterable]), Const(name)) for name in dict.fromkeys(names)]

    def ev_NamedExpr(self, node: ast.NamedExpr, st: State, frame: Frame) -> Any:
        value = self.ev(node.value, st, frame)
        self.assign(node.target, value, st, frame)
        return value

    # ---- conversions -------------------------------------------------------------------

    def map_choice(self, choice: GuardedChoice, fn: Callable[[Any], Any]) -> Any:
        exclusive = exclusive_options(choice)
        values = [fn(v) for _, v in exclusive]
        if any(isinstance(v, Each) for v in [*values, *(v for _, v in exclusive)]):
            # a list read element by element: the options' own guards, the first that holds
            # chosen, so that no later option repeats the earlier guards, negated
            options = [(g, v) for (g, _), v in zip(choice.options, values)]
        else:
            options = [(g, v) for (g, _), v in zip(exclusive, values)]
        options[-1] = (None, options[-1][1])
        return make_choice(options)

    def expr(self, value: Any) -> ast.expr | Unexpressible:
        if isinstance(value, ast.expr):
            return value
        if isinstance(value, Const):
            return const_node(value.value)
        if isinstance(value, Unexpressible):
            return value
        if isinstance(value, Tup):
            items = [self.expr(i) for i in value.items]
            bad = [i for i in items if isinstance(i, Unexpressible)]
            return bad[0] if bad else ast.Tuple(items, ast.Load())
        if isinstance(value, GuardedChoice):
            options = [(g, self.expr(v)) for g, v in value.options]
            bad = [v for _, v in options if isinstance(v, Unexpressible)]
            if bad:
                return bad[0]
            out = options[-1][1]
            for guard, option in reversed(options[:-1]):
                out = option if shape_id(option) == shape_id(out) else ast.IfExp(guard, option, out)
            return out
        if isinstance(value, BoolVal):
            if value.op == "or" and len(value.values) == 2 and isinstance(value.values[1], Const) and value.values[1].value == "":
                key = key_of(value.values[0])
                if key in self.keys and not self.keys[key].nullable:
                    return value.values[0]
            items = [self.expr(v) for v in value.values]
            bad = [i for i in items if isinstance(i, Unexpressible)]
            return bad[0] if bad else ast.BoolOp(ast.And() if value.op == "and" else ast.Or(), items)
        return Unexpressible(f"{type(value).__name__} value")

    def truth(self, value: Any) -> ast.expr | Unexpressible:
        if isinstance(value, Const):
            return ast.Constant(bool(value.value))
        if isinstance(value, Unexpressible):
            return value
        if isinstance(value, BoolVal):
            truths = [self.truth(v) for v in value.values]
            bad = [t for t in truths if isinstance(t, Unexpressible)]
            if bad:
                return bad[0]
            return conj(truths) if value.op == "and" else disj(truths)
        if isinstance(value, GuardedChoice):
            parts = []
            for guard, option in exclusive_options(value):
                t = self.truth(option)
                if isinstance(t, Unexpressible):
                    return t
                parts.append(conj([guard, t]) if guard is not None else t)
            return disj(parts)
        if isinstance(value, (Tup, Filtered)):
            items = items_of(value)
            return disj([g if g is not None else TRUE for g, _ in items])
        if isinstance(value, DictVal):
            return disj([g if g is not None else TRUE for _, _, g in value.entries])
        if isinstance(value, Each):
            return self.truth_of_each(value)
        if isinstance(value, (Ref, Text, ScaleExp)):
            return Unexpressible(f"truth of {type(value).__name__}")
        if isinstance(value, (ast.Compare, ast.BoolOp)) or (isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)):
            return value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("startswith", "endswith", "any", "all"):
            return value
        if isinstance(value, ast.Constant):
            return ast.Constant(bool(value.value))
        key = key_of(value)
        if key is not None and key in self.keys:
            return self._key_truth(value, key)
        if isinstance(value, ast.IfExp):
            body, orelse = self.truth(value.body), self.truth(value.orelse)
            if isinstance(body, Unexpressible):
                return body
            if isinstance(orelse, Unexpressible):
                return orelse
            return disj([conj([value.test, body]), conj([neg(value.test), orelse])])
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "lower":
            return ast.Compare(value, [ast.NotEq()], [ast.Constant("")])
        if isinstance(value, ast.expr):
            return ast.Compare(value, [ast.NotEq()], [ast.Constant(0)])
        return Unexpressible(f"truth of {type(value).__name__}")

    def _key_truth(self, node: ast.expr, key: str) -> ast.expr:
        schema = self.keys[key]
        kind = schema.kind
        if kind == "bool":
            base: ast.expr = node
        elif kind in ("int", "float"):
            base = ast.Compare(node, [ast.NotEq()], [ast.Constant(0)])
        elif kind in ("str", "literal") or (kind == "enum" and schema.enum in self.str_enums):
            base = ast.Compare(node, [ast.NotEq()], [ast.Constant("")])
        elif kind in ("list", "dict"):
            base = ast.Compare(ast.Call(ast.Name("len", ast.Load()), [node], []), [ast.Gt()], [ast.Constant(0)])
        elif kind == "enum":
            base = TRUE
        else:
            base = node
        if schema.nullable or schema.typed_as_default:  # before 0.2.0 any key given empty is None
            return conj([ast.Compare(node, [ast.IsNot()], [ast.Constant(None)]), base])
        return base

    def render(self, node: ast.expr | None, st: State, frame: Frame) -> str:
        if node is None:
            return ""
        if isinstance(node, ast.Constant):
            return str(node.value)
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(str(part.value))
                else:
                    out.append(self._render_value(part, st, frame))
            return "".join(out)
        if isinstance(node, ast.Name) and node.id in st.locals:
            value = st.locals[node.id]
            if isinstance(value, Const):
                return str(value.value)
            if isinstance(value, Text):
                return self._render_text(value, st, frame)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.render(node.left, st, frame) + self.render(node.right, st, frame)
        return "{" + clean_source(node) + "}"

    def _render_text(self, text: Text, st: State, frame: Frame) -> str:
        return "".join(p if isinstance(p, str) else self._render_value(p[1], st, frame) for p in text.parts)

    def _render_value(self, part: ast.FormattedValue, st: State, frame: Frame) -> str:
        saved = list(self.crash_guards)
        value = self.ev(part.value, st, frame)
        self.crash_guards = saved
        if isinstance(value, Const) and not isinstance(value.value, (tuple, frozenset, dict)):
            return repr(value.value) if part.conversion == ord("r") else str(value.value)
        if isinstance(part.value, ast.Name) and isinstance(value, Text):
            return self._render_text(value, st, frame)
        if isinstance(value, ast.Name) and value.id in self.keys:  # a local that holds a key: the finding fills it in
            return "{" + value.id + "}"
        if isinstance(part.value, ast.Name) and isinstance(value, ast.expr):  # a value computed from keys: a derived one
            self.message_values.setdefault(part.value.id, set()).add(ast.unparse(value))
        return "{" + clean_source(part.value) + "}"


def _positive(node: ast.expr) -> bool:
    """`max(..., c)` with a positive constant c: never zero."""
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "max"
        and any(isinstance(a, ast.Constant) and isinstance(a.value, (int, float)) and a.value > 0 for a in node.args)
    )


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_const(node: ast.expr, value: Any) -> bool:
    return isinstance(node, ast.Constant) and node.value == value and not isinstance(node.value, bool)


def _expressible_choice(choice: GuardedChoice) -> bool:
    return all(isinstance(v, ast.expr) or (isinstance(v, Const) and not isinstance(v.value, (tuple, frozenset, dict, list)))
               for _, v in choice.options)


def _class_fields(cls: ast.ClassDef) -> list[str]:
    return [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]

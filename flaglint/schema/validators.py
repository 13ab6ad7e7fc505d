"""Import MaxText's own config validators as rules.

An `ast` walker follows the model validators of `MaxTextConfig` (its mixins' included), the
derived-values pass `set_derived_and_validate_values` with the helpers it calls, and the checks of
`pyconfig.py`, and computes for every `raise`/`assert` (and every division by a key, which
raises ZeroDivisionError) the condition under which it is reached: enclosing ifs, early returns,
the guards of the call sites, with local variables and the values the pass overwrites inlined.
Nothing is imported or executed; the package files are read as text.

Each reachable site becomes a rule `not (path and raise condition)`; a site whose condition needs
something the rule language cannot state (an environment variable, a file, the devices JAX sees,
a Jinja parse) is listed in `unexpressible` with the reason.

Raises that come before a site are not negated in its path: the union of the rules rejects
exactly what MaxText rejects (the first site MaxText reaches that holds is among them), and each
rule stays independent, so a user sees every problem at once instead of the first.
"""

from __future__ import annotations

import ast
import copy
import operator
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from flaglint.findings import InputError
from flaglint.schema.fieldtypes import ModuleScope
from flaglint.schema.importer import COMMON_TYPES, ROOT_MODEL, TYPES, _mro, import_schema
from flaglint.schema.sources import PackageFiles, open_package
from flaglint.schema.topologies import LOOKUP, SPEC_MAP, topology_table

PYCONFIG = "configs/pyconfig.py"
CUSTOM_MESH_DIR = "configs/custom_mesh_and_rule"
NUM_DEVICES = "num_devices"
MAX_OPTIONS = 64
MAX_CONDITION_CHARS = 4000
DERIVED_NOTE = f"""\
# Values MaxText computes before it checks them, written over the keys they come from.
# `{NUM_DEVICES}` is the device count MaxText asks JAX for: unknown unless the caller gives it.
# logical_axis_rules are base.yml's (or the custom_mesh_and_rule file's); a logical_axis_rules
# override on the command line or in a model yml is not seen. A num_slices of -1 that no
# compile topology resolves counts as 1 slice (one slice, as on CPU).
"""
MAX_VARIANT_CHARS = 80
POWERS_OF_TWO = tuple(2**k for k in range(31))


# --------------------------------------------------------------------------------------------
# Symbolic values
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Const:
    """A value known while reading the source: a literal, an enum value, a file of the package."""

    value: Any


@dataclass(frozen=True)
class Unknown:
    """A value the rule language cannot state, with the reason."""

    reason: str


@dataclass
class Tup:
    items: list


@dataclass
class Filtered:
    """A list built by a comprehension over known items: [(guard, value)]."""

    items: list


@dataclass
class DictVal:
    """A dict literal with constant keys: [(key, value, guard or None)]."""

    entries: list


@dataclass
class Choice:
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


SELF = Ref("self", "self")
TRUE, FALSE = ast.Constant(True), ast.Constant(False)


_DUMPS: dict[int, tuple[ast.AST, int]] = {}
_SHAPES: dict[tuple, int] = {}


def _dump(node: ast.AST) -> int:
    """A number per expression shape: equal for structurally equal trees. Remembered per node
    (the walker never changes a node once built), so comparing big conditions stays cheap."""
    hit = _DUMPS.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    parts: list[Any] = [type(node).__name__]
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            parts.append(_dump(value))
        elif isinstance(value, list):
            parts.append(tuple(_dump(v) if isinstance(v, ast.AST) else repr(v) for v in value))
        else:
            parts.append(repr(value) if not isinstance(value, (ast.expr_context,)) else None)
    shape = _SHAPES.setdefault(tuple(parts), len(_SHAPES))
    _DUMPS[id(node)] = (node, shape)
    return shape


def key_node(key: str) -> ast.expr:
    head, *rest = key.split(".")
    node: ast.expr = ast.Name(head, ast.Load())
    for part in rest:
        node = ast.Attribute(node, part, ast.Load())
    return node


def _const_node(value: Any) -> ast.expr | Unknown:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return ast.Constant(value)
    if isinstance(value, (tuple, list, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
        nodes = [_const_node(v) for v in items]
        if any(isinstance(n, Unknown) for n in nodes):
            return Unknown("nested collection")
        return ast.Tuple(nodes, ast.Load())
    return Unknown(f"value of type {type(value).__name__}")


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
            if not any(_dump(sub) == _dump(p) for p in parts):
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


_PY_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_PY_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: lambda a, b: a == b if None not in (a, b) else a is b,
    ast.IsNot: lambda a, b: a != b if None not in (a, b) else a is not b,
}
_RUNTIME_MODULES = {
    "os.environ": "environment variable",
    "os.path": "file system",
    "os": "file system",
    "jax": "runtime state (JAX devices)",
    "datetime": "clock",
    "elastic_utils": "runtime state (elastic training)",
    "accelerator_to_spec_map": "runtime state (accelerator topology)",
    "gcs_utils": "path string handling",
    "omegaconf": "model config file",
    "sys": "runtime state",
}
_SILENT_MODULES = {"logger", "max_logging", "logging"}
_BUILTINS = {
    "len", "int", "float", "str", "bool", "abs", "min", "max", "sum", "any", "all", "isinstance", "getattr",
    "hasattr", "tuple", "list", "set", "sorted", "divmod", "prod", "range", "frozenset", "repr", "setattr",
}


# --------------------------------------------------------------------------------------------
# Walker state
# --------------------------------------------------------------------------------------------


@dataclass
class State:
    fields: dict
    locals: dict
    path: list
    dead: str | None = None  # "raise" | "return" | "break"

    def fork(self, extra: ast.expr | None = None) -> State:
        path = list(self.path) + ([extra] if extra is not None else [])
        return State(dict(self.fields), dict(self.locals), path)


@dataclass
class Frame:
    owner: str  # "Class.function" for citations
    file: str
    returns: list = field(default_factory=list)  # [(State, Sym)]
    breaks: list = field(default_factory=list)  # stack of lists of States


@dataclass
class Site:
    file: str
    line: int
    owner: str
    kind: str  # raise | assert | crash
    exception: str
    message: str
    conditions: list = field(default_factory=list)  # ast.expr | Unknown, one per way of reaching it
    variants: list = field(default_factory=list)  # the message as each way of reaching it renders it
    message_source: str = ""  # the message as the source writes it, placeholders named
    reason: str | None = None  # fixed reason this site is not checkable

    def text(self) -> str:
        """One message: a loop's iterations render differently, so list their differing middles."""
        if len(self.variants) < 2:
            return self.message
        prefix = _common_words(self.variants)
        suffix = _common_words([v[len(prefix):][::-1] for v in self.variants], reverse=True)
        middles = [v[len(prefix): len(v) - len(suffix)] for v in self.variants]
        if max(len(m) for m in middles) > MAX_VARIANT_CHARS:
            return self.message_source  # they differ in more than one short span
        if not suffix and all(v.endswith(".") for v in self.variants):  # one sentence, one full stop
            return prefix + "; ".join(m.rstrip(".") for m in middles if m) + "."
        return prefix + "; ".join(m for m in middles if m) + suffix

    @property
    def source(self) -> str:
        return f"maxtext/{self.file}:{self.line} {self.owner}"


# --------------------------------------------------------------------------------------------
# The walker
# --------------------------------------------------------------------------------------------


class Walker:
    def __init__(self, files: PackageFiles):
        self.files = files
        self.schema = import_schema(files.origin)
        self.version = self.schema.version
        self.keys = self.schema.keys
        self.scope = ModuleScope()
        self.trees: dict[str, ast.Module] = {}
        for relpath in (COMMON_TYPES, TYPES, PYCONFIG):
            if files.exists(relpath):
                try:
                    self.trees[relpath] = ast.parse(files.read(relpath), filename=relpath)
                except SyntaxError as err:
                    raise InputError(f"{files.origin}: {relpath}:{err.lineno}: cannot parse: {err.msg}") from None
        for relpath in (COMMON_TYPES, TYPES):
            if relpath in self.trees:
                self.scope.add_module(self.trees[relpath])
        self.str_enums = {
            node.name
            for tree in self.trees.values()
            for node in tree.body
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "str" for b in node.bases)
        }
        self.functions = {
            node.name: (node, TYPES) for node in self.trees[TYPES].body if isinstance(node, ast.FunctionDef)
        }
        self.mro = _mro(self.scope, ROOT_MODEL)
        self.methods: dict[str, tuple[ast.FunctionDef, str]] = {}
        for cls in self.mro:
            for node in self.scope.classes[cls].body:
                if isinstance(node, ast.FunctionDef) and node.name not in self.methods:
                    self.methods[node.name] = (node, cls)
        self.sites: dict[tuple[str, int], Site] = {}
        self.candidates: dict[int, str] = {}  # expression shape -> preferred derived name
        self.candidate_nodes: dict[int, ast.expr] = {}
        self.crash_guards: list[ast.expr] = []
        self.catching: list[set[str]] = []  # exception names the enclosing try statements catch
        self.mesh_files = self._custom_mesh_files()
        self.topologies = topology_table(files)
        _ENUM_CHOICES.clear()
        _ENUM_CHOICES.update({k: tuple(v.choices) for k, v in self.keys.items() if v.kind == "enum" and v.choices
                              and not v.nullable})

    # ---- entry points ------------------------------------------------------------------

    def run(self) -> None:
        for name, (node, cls) in self.methods.items():
            if _is_after_validator(node):
                self._walk_validator(node, cls)
        if PYCONFIG in self.trees:
            self._walk_pyconfig()

    def _initial_state(self) -> State:
        fields: dict[str, Any] = {}
        rules = self.schema.base_defaults.get("logical_axis_rules")
        if rules is not None:
            # The base rules; a custom_mesh_and_rule swaps them (modelled), a user override is not seen.
            fields["logical_axis_rules"] = Const(_freeze(rules))
        return State(fields, {}, [])

    def _walk_validator(self, node: ast.FunctionDef, cls: str) -> None:
        frame = Frame(f"{cls}.{node.name}", TYPES)
        st = self._initial_state()
        st.locals["self"] = SELF
        self.exec_block(node.body, st, frame)

    def _walk_pyconfig(self) -> None:
        """pyconfig checks the raw key dict before pydantic: the two-splash check is a rule; the
        others concern model files, unknown keys and M_<KEY> variables, which other steps own."""
        funcs = {n.name: n for n in self.trees[PYCONFIG].body if isinstance(n, ast.FunctionDef)}
        fixed = {
            "validate_no_keys_overridden_twice": "model config conflict (checked by the --model step)",
            "_prepare_for_pydantic": "unknown key (checked against the schema)",
        }
        for fname, reason in fixed.items():
            if fname in funcs:
                for raise_node in _raises(funcs[fname]):
                    self._pyconfig_site(raise_node, fname).conditions.append(Unknown(reason))
        if "_initialize_pydantic" in funcs:
            self._walk_raw_checks(funcs["_initialize_pydantic"].body, [], "_initialize_pydantic")

    def _pyconfig_site(self, raise_node: ast.Raise, owner: str) -> Site:
        return self._site(raise_node, Frame(owner, PYCONFIG), "raise", _exception_name(raise_node),
                          _source_message(_raise_message(raise_node)))

    def _walk_raw_checks(self, stmts: list[ast.stmt], tests: list[ast.expr], owner: str) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.Raise) and stmt.exc is not None:
                sources = [ast.unparse(t) for t in tests]
                if any("environ" in text or "env_key" in text for text in sources):
                    cond: Any = Unknown("environment variable (M_<KEY> override)")
                elif not tests:
                    cond = Unknown("re-raised exception")
                else:
                    parts = [self._pyconfig_condition(t) for t in tests]
                    cond = next((p for p in parts if isinstance(p, Unknown)), None) or conj(parts)
                self._pyconfig_site(stmt, owner).conditions.append(cond)
            elif isinstance(stmt, ast.If):
                self._walk_raw_checks(stmt.body, tests + [stmt.test], owner)
                self._walk_raw_checks(stmt.orelse, tests + [ast.UnaryOp(ast.Not(), stmt.test)], owner)
            elif isinstance(stmt, (ast.For, ast.While, ast.With)):
                self._walk_raw_checks(stmt.body, tests, owner)
            elif isinstance(stmt, ast.Try):
                for block in [stmt.body, stmt.finalbody] + [h.body for h in stmt.handlers]:
                    self._walk_raw_checks(block, tests, owner)

    def _pyconfig_condition(self, test: ast.expr) -> ast.expr | Unknown:
        """pyconfig checks the raw key dict: `d.get("key")` reads a key."""
        if isinstance(test, ast.BoolOp):
            parts = [self._pyconfig_condition(v) for v in test.values]
            bad = [p for p in parts if isinstance(p, Unknown)]
            if bad:
                return bad[0]
            return conj(parts) if isinstance(test.op, ast.And) else disj(parts)
        if (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Attribute)
            and test.func.attr == "get"
            and test.args
            and isinstance(test.args[0], ast.Constant)
            and test.args[0].value in self.keys
        ):
            return self.truth(key_node(test.args[0].value))
        source = ast.unparse(test)
        if "environ" in source or "env_key" in source:
            return Unknown("environment variable (M_<KEY> override)")
        return Unknown(f"raw config dict: {source}")

    # ---- sites -------------------------------------------------------------------------

    def _site(self, node: ast.stmt | ast.expr, frame: Frame, kind: str, exception: str = "", message: str = "") -> Site:
        key = (frame.file, node.lineno, kind == "crash")
        if key not in self.sites:
            self.sites[key] = Site(frame.file, node.lineno, frame.owner, kind, exception, message)
        return self.sites[key]

    def record(self, node: ast.AST, frame: Frame, kind: str, exception: str, message: str, cond: Any,
               message_node: ast.expr | None = None) -> None:
        if any(exception.split(".")[-1] in caught or caught & {"*", "Exception", "BaseException"} for caught in self.catching):
            return  # an enclosing try catches it: no rejection (subclasses are not followed)
        site = self._site(node, frame, kind, exception, message)
        if message not in site.variants:
            site.variants.append(message)
        if message_node is not None and not site.message_source:
            site.message_source = _source_message(message_node)
        site.conditions.append(cond)

    # ---- statements --------------------------------------------------------------------

    def exec_block(self, stmts: list[ast.stmt], st: State, frame: Frame) -> State:
        for stmt in stmts:
            if st.dead:
                return st
            st = self.exec_stmt(stmt, st, frame)
        return st

    def exec_stmt(self, stmt: ast.stmt, st: State, frame: Frame) -> State:
        if isinstance(stmt, ast.Expr):
            if not isinstance(stmt.value, ast.Constant):
                self.ev(stmt.value, st, frame)
            return st
        if isinstance(stmt, ast.Assign):
            value = self.ev(stmt.value, st, frame)
            for target in stmt.targets:
                self.assign(target, value, st, frame)
            return st
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, self.ev(stmt.value, st, frame), st, frame)
            return st
        if isinstance(stmt, ast.AugAssign):
            value = self.binop(stmt.op, self.ev(stmt.target, st, frame), self.ev(stmt.value, st, frame), stmt, st, frame)
            self.assign(stmt.target, value, st, frame)
            return st
        if isinstance(stmt, ast.If):
            return self.exec_if(self.cond(stmt.test, st, frame), stmt.body, stmt.orelse, st, frame)
        if isinstance(stmt, ast.Raise):
            self.exec_raise(stmt, st, frame)
            st.dead = "raise"
            return st
        if isinstance(stmt, ast.Assert):
            test = self.cond(stmt.test, st, frame)
            cond = test if isinstance(test, Unknown) else neg(test)
            message = self.render(stmt.msg, st, frame) if stmt.msg is not None else ""
            self.record(stmt, frame, "assert", "AssertionError", message, self.path_and(st, cond), stmt.msg)
            return st
        if isinstance(stmt, ast.Return):
            value = self.ev(stmt.value, st, frame) if stmt.value is not None else Const(None)
            frame.returns.append((st, value))
            st.dead = "return"
            return st
        if isinstance(stmt, ast.FunctionDef):
            st.locals[stmt.name] = Ref("func", stmt.name, (stmt, frame.file))
            return st
        if isinstance(stmt, ast.For):
            return self.exec_for(stmt, st, frame)
        if isinstance(stmt, ast.Try):
            self.catching.append(set().union(*(_handler_names(h) for h in stmt.handlers)))
            try:
                st = self.exec_block(stmt.body, st, frame)
            finally:
                self.catching.pop()
            if st.dead == "raise" and stmt.handlers:
                st.dead = None  # a raise its handlers catch ends the try body, not the validator
            for handler in stmt.handlers:
                reason = _try_reason(stmt.body)
                for raise_node in _raises_in(handler.body):
                    self._site(raise_node, frame, "raise", _exception_name(raise_node), self.render(
                        _raise_message(raise_node), st, frame)).conditions.append(Unknown(reason))
            return self.exec_block(stmt.finalbody, st, frame)
        if isinstance(stmt, ast.Match):
            return self.exec_match(stmt, st, frame)
        if isinstance(stmt, ast.Break):
            if frame.breaks:
                frame.breaks[-1].append(st)
            st.dead = "break"
            return st
        if isinstance(stmt, (ast.Pass, ast.Continue, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
            return st
        if isinstance(stmt, ast.With):
            return self.exec_block(stmt.body, st, frame)
        for raise_node in _raises_in([stmt]):
            self._site(raise_node, frame, "raise").conditions.append(Unknown(f"statement {type(stmt).__name__}"))
        return st

    def exec_raise(self, stmt: ast.Raise, st: State, frame: Frame) -> None:
        if stmt.exc is None:
            return
        message = self.render(_raise_message(stmt), st, frame)
        self.record(stmt, frame, "raise", _exception_name(stmt), message, self.path_and(st, TRUE), _raise_message(stmt))

    def path_and(self, st: State, cond: Any) -> Any:
        if isinstance(cond, Unknown):
            return cond
        bad = [p for p in st.path if isinstance(p, Unknown)]
        if bad:
            return bad[0]
        return conj(list(st.path) + list(self.crash_guards) + [cond])

    def exec_if(self, test: Any, body: list, orelse: list, st: State, frame: Frame) -> State:
        if isinstance(test, ast.Constant):
            return self.exec_block(body if test.value else orelse, st, frame)
        if isinstance(test, Unknown):
            test_then, test_else = test, test
        else:
            test_then, test_else = test, neg(test)
        s1 = self.exec_block(body, st.fork(test_then), frame)
        s2 = self.exec_block(orelse, st.fork(test_else), frame)
        return self.join(st, test_then, s1, s2)

    def join(self, base: State, test: Any, s1: State, s2: State) -> State:
        """The state after `if test: <s1> else: <s2>`, both started from BASE."""
        depth = len(base.path) + 1
        if s1.dead == "raise" and s2.dead == "raise":
            return s1
        if s1.dead == "raise":
            return State(s2.fields, s2.locals, base.path + s2.path[depth:], s2.dead)
        if s2.dead == "raise":
            return State(s1.fields, s1.locals, base.path + s1.path[depth:], s1.dead)
        if s1.dead and s2.dead:
            return s1
        if s1.dead:
            return s2
        if s2.dead:
            return s1
        extra = []
        e1, e2 = s1.path[depth:], s2.path[depth:]
        if e1 or e2:
            if isinstance(test, Unknown):
                extra = [test]
            else:
                extra = [disj([conj([test] + e1), conj([neg(test)] + e2)])]
        guard = test if not isinstance(test, Unknown) else test
        return State(
            self._merge_dict(guard, s1.fields, s2.fields, fields=True),
            self._merge_dict(guard, s1.locals, s2.locals),
            base.path + extra,
        )

    def _merge_dict(self, guard: Any, a: dict, b: dict, fields: bool = False) -> dict:
        out = self._merged(guard, a, b, fields)
        if fields:
            for k, v in out.items():
                if isinstance(v, Choice):
                    self._candidate(f"effective_{k.replace('.', '_')}", v, prefer=True)
        return out

    def _merged(self, guard: Any, a: dict, b: dict, fields: bool) -> dict:
        out = {}
        for k in set(a) | set(b):
            # a field nobody assigned still holds the user's value
            unset = key_node(k) if fields else _MISSING
            va, vb = a.get(k, unset), b.get(k, unset)
            if va is vb or (va is not _MISSING and vb is not _MISSING and _same(va, vb)):
                out[k] = va
            elif va is _MISSING or vb is _MISSING:
                out[k] = va if vb is _MISSING else vb
            elif isinstance(guard, Unknown):
                out[k] = guard
            else:
                out[k] = make_choice([(guard, va), (None, vb)])
        return out

    def merge_exits(self, base: State, exits: list[State], with_locals: bool = False) -> State:
        """One state for several ways out of a call or loop that all started at BASE (a loop's
        exits share its frame, so WITH_LOCALS merges its variables too)."""
        live = [s for s in exits if s.dead != "raise"]
        if not live:
            out = base.fork()
            out.dead = "raise"
            return out
        depth = len(base.path)
        extras = [conj(s.path[depth:]) if not any(isinstance(p, Unknown) for p in s.path[depth:]) else None for s in live]
        def merged(attr: str) -> dict:
            out = dict(getattr(live[-1], attr))
            for k in set().union(*(getattr(s, attr) for s in live)):
                unset = key_node(k) if attr == "fields" else _MISSING
                values = [getattr(s, attr).get(k, getattr(base, attr).get(k, unset)) for s in live]
                if any(v is _MISSING for v in values):
                    continue
                if all(_same(v, values[0]) for v in values):
                    out[k] = values[0]
                elif any(e is None for e in extras):
                    out[k] = Unknown("value set under an unknown condition")
                else:
                    out[k] = make_choice([(e, v) for e, v in zip(extras[:-1], values[:-1])] + [(None, values[-1])])
            return out

        return State(merged("fields"), merged("locals") if with_locals else dict(base.locals), list(base.path))

    def exec_for(self, stmt: ast.For, st: State, frame: Frame) -> State:
        iterable = self.ev(stmt.iter, st, frame)
        if isinstance(iterable, Choice) and all(isinstance(v, (Const, Tup)) for _, v in iterable.options):
            exits = []
            for guard, value in _exclusive(iterable):
                branch = st.fork(guard)
                branch = self._unroll(stmt, branch, frame, _items(value))
                exits.append(branch)
            return self.merge_exits(st, exits, with_locals=True) if exits else st
        items = _items(iterable)
        if items is None:
            reason = iterable.reason if isinstance(iterable, Unknown) else f"list value: loop over {_clean_source(stmt.iter)}"
            body_state = st.fork()
            self.assign(stmt.target, Unknown(reason), body_state, frame)
            after = self.exec_block(stmt.body, body_state, frame)
            for name in _assigned_names(stmt.body):
                st.locals[name] = Unknown(reason)
            del after
            return st
        return self._unroll(stmt, st, frame, items)

    def _unroll(self, stmt: ast.For, st: State, frame: Frame, items: list) -> State:
        base = st
        frame.breaks.append([])
        for guard, item in items:
            if st.dead:
                break
            if guard is None:
                self.assign(stmt.target, item, st, frame, name_it=False)
                st = self.exec_block(stmt.body, st, frame)
            else:
                inner = st.fork(guard)
                self.assign(stmt.target, item, inner, frame, name_it=False)
                inner = self.exec_block(stmt.body, inner, frame)
                skipped = st.fork(neg(guard))
                st = self.join(st, guard, inner, skipped)
        broken = frame.breaks.pop()
        if st.dead == "break":
            st.dead = None
            exits = broken
        else:
            exits = broken + [st]
        if len(exits) == 1:
            out = exits[0]
            out.dead = None if out.dead == "break" else out.dead
            return out
        for s in exits:
            s.dead = None if s.dead == "break" else s.dead
        return self.merge_exits(base, exits, with_locals=True)

    def exec_match(self, stmt: ast.Match, st: State, frame: Frame) -> State:
        subject = self.ev(stmt.subject, st, frame)
        earlier: list[ast.expr] = []
        exits = []
        for case in stmt.cases:
            test = self.pattern(case.pattern, subject, st, frame)
            if isinstance(test, Unknown):
                guard: Any = test
            else:
                guard = conj([neg(e) for e in earlier] + [test])
            branch = self.exec_block(case.body, st.fork(guard), frame)
            exits.append(branch)
            if not isinstance(test, Unknown):
                earlier.append(test)
        return self.merge_exits(st, exits + [st.fork(conj([neg(e) for e in earlier]))], with_locals=True)

    def pattern(self, pat: ast.pattern, subject: Any, st: State, frame: Frame) -> Any:
        if isinstance(pat, ast.MatchAs) and pat.pattern is None:
            return TRUE
        if isinstance(pat, ast.MatchValue):
            return self.truth(self.compare(ast.Eq(), subject, self.ev(pat.value, st, frame)))
        if isinstance(pat, ast.MatchSingleton):
            return self.truth(self.compare(ast.Is(), subject, Const(pat.value)))
        if isinstance(pat, ast.MatchOr):
            parts = [self.pattern(p, subject, st, frame) for p in pat.patterns]
            return next((p for p in parts if isinstance(p, Unknown)), None) or disj(parts)
        if isinstance(pat, ast.MatchSequence):
            items = _items(subject)
            if items is None or len(items) != len(pat.patterns) or any(g is not None for g, _ in items):
                return Unknown("match on an unknown sequence")
            parts = [self.pattern(p, v, st, frame) for p, (_, v) in zip(pat.patterns, items)]
            return next((p for p in parts if isinstance(p, Unknown)), None) or conj(parts)
        return Unknown(f"match pattern {type(pat).__name__}")

    def assign(self, target: ast.expr, value: Any, st: State, frame: Frame, name_it: bool = True) -> None:
        if isinstance(target, ast.Name):
            if name_it:
                self._candidate(target.id, value)
            st.locals[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = _items(value)
            if items is None or len(items) != len(target.elts) or any(g is not None for g, _ in items):
                for elt in target.elts:
                    self.assign(elt, Unknown(f"unpacking {ast.unparse(target)}"), st, frame)
            else:
                for elt, (_, item) in zip(target.elts, items):
                    self.assign(elt, item, st, frame, name_it)
        elif isinstance(target, ast.Attribute):
            key = self._self_key(target)
            if key is not None:
                self._candidate(f"effective_{key.replace('.', '_')}", value, prefer=True)
                st.fields[key] = value
        elif isinstance(target, ast.Subscript):
            container = self.ev(target.value, st, frame)
            index = self.ev(target.slice, st, frame)
            if isinstance(container, DictVal) and isinstance(index, Const):
                guard = conj(st.path[container_depth(container):]) if st.path else None
                container.entries.append((index.value, value, guard))

    def _self_key(self, target: ast.Attribute) -> str | None:
        parts = []
        node: ast.expr = target
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in ("self", "config"):
            key = ".".join(reversed(parts))
            return key if key in self.keys else None
        return None

    def _candidate(self, name: str, value: Any, prefer: bool = False) -> None:
        """Remember a computed value under the name MaxText gives it; a field it overwrites wins."""
        if isinstance(value, (Choice, BoolVal)):
            value = self.expr(value)
        if not isinstance(value, ast.expr) or isinstance(value, (ast.Name, ast.Constant, ast.Attribute)):
            return
        dump = _dump(value)
        if dump not in self.candidates or (prefer and not self.candidates[dump].startswith("effective_")):
            self.candidates[dump] = name
            self.candidate_nodes[dump] = value

    # ---- expressions -------------------------------------------------------------------

    def cond(self, node: ast.expr, st: State, frame: Frame) -> Any:
        return self.truth(self.ev(node, st, frame))

    def ev(self, node: ast.expr, st: State, frame: Frame) -> Any:
        method = getattr(self, f"ev_{type(node).__name__}", None)
        if method is None:
            return Unknown(f"expression {type(node).__name__}")
        return method(node, st, frame)

    def ev_Constant(self, node: ast.Constant, st: State, frame: Frame) -> Any:
        return Const(node.value)

    def ev_Name(self, node: ast.Name, st: State, frame: Frame) -> Any:
        if node.id in st.locals:
            return st.locals[node.id]
        if node.id in self.scope.enums:
            return Ref("enum", node.id)
        if node.id in self.scope.constants:
            return Const(_freeze(self.scope.constants[node.id]))
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
            if attr in self.methods:
                return Ref("method", attr, SELF)
            return Unknown(f"self.{attr}")
        if isinstance(base, ast.Name) and f"{base.id}.{attr}" in self.keys:
            key = f"{base.id}.{attr}"
            return st.fields.get(key, key_node(key))
        if isinstance(base, Ref):
            if base.kind == "enum":
                members = self.scope.enums[base.name].members
                return Const(members[attr]) if attr in members else Unknown(f"{base.name}.{attr}")
            if base.kind == "class" and attr == "model_fields":
                return Const(tuple(_class_fields(self.scope.classes[base.name])))
            if base.kind in ("module", "silent"):
                return Ref(base.kind, f"{base.name}.{attr}")
            return Unknown(f"{base.name}.{attr}")
        if attr == "value":
            return base  # an enum field's value is what the rules compare
        if isinstance(base, Unknown):
            return base
        return Ref("method", attr, base)

    def ev_Subscript(self, node: ast.Subscript, st: State, frame: Frame) -> Any:
        base = self.ev(node.value, st, frame)
        index = self.ev(node.slice, st, frame)
        return self.subscript(base, index)

    def subscript(self, base: Any, index: Any) -> Any:
        if isinstance(base, Choice):
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
                return Unknown("subscript out of range")
        if isinstance(base, DictVal) and isinstance(index, Const):
            return self.dict_get(base, index.value, Unknown(f"missing key {index.value!r}"))
        if isinstance(base, Unknown):
            return base
        return Unknown("subscript of a symbolic value")

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
            key = self.ev(k, st, frame) if k is not None else Unknown("dict unpacking")
            if not isinstance(key, Const):
                return Unknown("dict with a symbolic key")
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
        choices = [p for p in parts if not isinstance(p, str) and isinstance(p[0], Choice)]
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
        if isinstance(test, Unknown):
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
            if isinstance(truth, Unknown):
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
            return truth if isinstance(truth, Unknown) else neg(truth)
        if isinstance(value, Const) and isinstance(node.op, ast.USub):
            return Const(-value.value)
        expr = self.expr(value)
        if isinstance(expr, Unknown):
            return expr
        return ast.UnaryOp(node.op, expr)

    def ev_BinOp(self, node: ast.BinOp, st: State, frame: Frame) -> Any:
        return self.binop(node.op, self.ev(node.left, st, frame), self.ev(node.right, st, frame), node, st, frame)

    def binop(self, op: ast.operator, left: Any, right: Any, node: ast.AST, st: State, frame: Frame) -> Any:
        if isinstance(left, Const) and isinstance(right, Const):
            try:
                return Const(_PY_BINOPS[type(op)](left.value, right.value))
            except (KeyError, TypeError, ZeroDivisionError, ValueError):
                return Unknown("constant arithmetic")
        if isinstance(op, ast.Pow) and isinstance(left, Const) and left.value == 2 and isinstance(right, ScaleExp):
            return ast.Name(f"{right.kind}_factor", ast.Load())
        if type(op) not in _PY_BINOPS or isinstance(op, ast.Pow):
            return Unknown(f"operator {type(op).__name__}")
        if isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)) and not isinstance(right, Const):
            divisor = self.expr(right)
            if not isinstance(divisor, Unknown) and not _positive(divisor):
                shown = _clean_source(node.right) if isinstance(node, ast.BinOp) else ast.unparse(divisor)
                self.record(node, frame, "crash", "ZeroDivisionError", f"{shown} is 0: division by zero",
                            self.path_and(st, ast.Compare(divisor, [ast.Eq()], [ast.Constant(0)])))
        a, b = self.expr(left), self.expr(right)
        if isinstance(a, Unknown):
            return a
        if isinstance(b, Unknown):
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
            parts.append(self.compare(op, left, right))
            left = right
        if len(parts) == 1:
            return parts[0]
        truths = [self.truth(p) for p in parts]
        bad = [t for t in truths if isinstance(t, Unknown)]
        return bad[0] if bad else conj(truths)

    def compare(self, op: ast.cmpop, left: Any, right: Any) -> Any:
        if isinstance(left, Choice) and not _expressible_choice(left):
            return self.map_choice(left, lambda v: self.compare(op, v, right))
        if isinstance(right, Choice) and not _expressible_choice(right):
            return self.map_choice(right, lambda v: self.compare(op, left, v))
        if isinstance(left, Const) and isinstance(right, Const):
            try:
                return Const(_PY_COMPARE[type(op)](left.value, right.value))
            except TypeError:
                return Unknown("constant comparison")
        if isinstance(op, (ast.Eq, ast.NotEq)) and (isinstance(left, Tup) or isinstance(right, Tup)):
            a, b = _items(left), _items(right)
            if a is None or b is None:
                return Unknown("comparison of sequences")
            if len(a) != len(b):
                return Const(isinstance(op, ast.NotEq))
            eqs = [self.truth(self.compare(ast.Eq(), x, y)) for (_, x), (_, y) in zip(a, b)]
            if any(isinstance(e, Unknown) for e in eqs):
                return Unknown("comparison of sequences")
            both = conj(eqs)
            return both if isinstance(op, ast.Eq) else neg(both)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(left, Tup) and _items(right) is not None:
            found = disj([self.truth(self.compare(ast.Eq(), left, v)) for _, v in _items(right)])
            return found if isinstance(op, ast.In) else neg(found)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (Tup, Filtered)):
            items = _items(right)
            eqs = [
                self.truth(self.compare(ast.Eq(), left, v)) if g is None else conj([g, self.truth(self.compare(ast.Eq(), left, v))])
                for g, v in items
            ]
            if any(isinstance(e, Unknown) for e in eqs):
                return Unknown("membership in a symbolic list")
            found = disj(eqs)
            return found if isinstance(op, ast.In) else neg(found)
        a, b = self.expr(left), self.expr(right)
        if isinstance(a, Unknown):
            return a
        if isinstance(b, Unknown):
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
            key = _key_of(a)
            if key in self.keys and self.keys[key].kind == "bool" and not self.keys[key].nullable:
                return a if b.value == isinstance(op, ast.Eq) else neg(a)
        return ast.Compare(a, [op], [b])

    def ev_Call(self, node: ast.Call, st: State, frame: Frame) -> Any:
        func = self.ev(node.func, st, frame)
        if isinstance(func, Ref) and func.kind == "silent":
            return Const(None)
        args = [self.ev(a, st, frame) for a in node.args if not isinstance(a, ast.Starred)]
        kwargs = {k.arg: self.ev(k.value, st, frame) for k in node.keywords if k.arg}
        if isinstance(func, Ref):
            if func.kind == "method" and func.target is SELF:
                return self.call_method(func.name, node, args, kwargs, st, frame)
            if func.kind == "func":
                fnode, file = func.target
                model = MODELS.get(fnode.name)
                if model is not None:
                    return model(self, fnode, args, st, frame)
                return self.inline(fnode, file, args, kwargs, {}, st, frame)
            if func.kind == "enum":
                return args[0] if args else Unknown("enum constructor")
            if func.kind == "builtin":
                return self.builtin(func.name, args, node, st, frame)
            if func.kind == "method":
                return self.value_method(func.target, func.name, args)
            if func.kind == "module":
                model = MODELS.get(func.name)
                if model is not None:
                    return model(self, None, args, st, frame)
                if func.name in ("math.prod", "prod"):
                    return self.builtin("prod", args, node, st, frame)
                for prefix, reason in _RUNTIME_MODULES.items():
                    if func.name == prefix or func.name.startswith(prefix + "."):
                        return Unknown(f"{reason}: {func.name}")
                return Unknown(f"call {func.name}")
        if isinstance(func, Unknown):
            return func
        return Unknown(f"call {ast.unparse(node.func)}")

    def call_method(self, name: str, node: ast.Call, args: list, kwargs: dict, st: State, frame: Frame) -> Any:
        model = MODELS.get(name)
        fnode, cls = self.methods[name]
        if model is not None:
            return model(self, fnode, args, st, frame)
        is_static = any(ast.unparse(d) == "staticmethod" for d in fnode.decorator_list)
        bound = {} if is_static else {fnode.args.args[0].arg: SELF}
        return self.inline(fnode, TYPES, args, kwargs, bound, st, frame)

    def inline(self, fnode: ast.FunctionDef, file: str, args: list, kwargs: dict, bound: dict,
               st: State, frame: Frame) -> Any:
        """Walk a call of FNODE at ST: its sites get the caller's path; its returns merge into the
        call's value, its assignments to fields into the caller's fields."""
        if fnode.name in _ACTIVE:
            return Unknown(f"recursion into {fnode.name}")
        _ACTIVE.add(fnode.name)
        try:
            params = [a.arg for a in fnode.args.args if a.arg not in bound]
            defaults = fnode.args.defaults
            locals_ = dict(st.locals) if fnode.name in st.locals else {}
            locals_.update(bound)
            for i, param in enumerate(params):
                if i < len(args):
                    locals_[param] = args[i]
                elif param in kwargs:
                    locals_[param] = kwargs[param]
                else:
                    offset = i - (len(params) - len(defaults))
                    locals_[param] = self.ev(defaults[offset], st, frame) if offset >= 0 else Unknown("missing argument")
            if "self" not in locals_ and fnode.name in st.locals:
                locals_["self"] = SELF
            if fnode.name in st.locals:  # a function nested in the validator
                owner = f"{frame.owner}.{fnode.name}"
            elif fnode.name in self.methods:
                owner = f"{self.methods[fnode.name][1]}.{fnode.name}"
            else:
                owner = fnode.name
            inner_frame = Frame(owner, file)
            inner = State(dict(st.fields), locals_, list(st.path))
            end = self.exec_block(fnode.body, inner, inner_frame)
            exits = [s for s, _ in inner_frame.returns]
            values = [v for _, v in inner_frame.returns]
            if not end.dead:
                exits.append(end)
                values.append(Const(None))
            live = [(s, v) for s, v in zip(exits, values) if s.dead != "raise"]
            merged = self.merge_exits(st, [s for s, _ in live]) if live else st
            st.fields = merged.fields
            if not live:
                return Unknown("call always raises")
            depth = len(st.path)
            if len(live) == 1:
                return live[0][1]
            options = []
            for s, v in live[:-1]:
                extra = s.path[depth:]
                if any(isinstance(p, Unknown) for p in extra):
                    return next(p for p in extra if isinstance(p, Unknown))
                options.append((conj(extra), v))
            options.append((None, live[-1][1]))
            return make_choice(options)
        finally:
            _ACTIVE.discard(fnode.name)

    def builtin(self, name: str, args: list, node: ast.Call, st: State, frame: Frame) -> Any:
        if name in ("tuple", "list", "set", "frozenset", "sorted") and len(args) == 1:
            return args[0]
        if name in ("str", "float", "repr") and len(args) == 1:
            return args[0]
        if name == "int" and len(args) == 1:
            if isinstance(args[0], Const):
                try:
                    return Const(int(args[0].value))
                except (TypeError, ValueError):
                    return Unknown("int() of a constant")
            key = _key_of(args[0])
            if key in self.keys and self.keys[key].kind == "int":
                return args[0]
            value = self.expr(args[0])
            if isinstance(value, Unknown):
                return value
            return ast.BinOp(value, ast.FloorDiv(), ast.Constant(1))  # truncation; sizes here are not negative
        if name == "bool" and len(args) == 1:
            return self.truth(args[0])
        if name == "len" and len(args) == 1:
            items = _items(args[0])
            if isinstance(args[0], Const) and isinstance(args[0].value, str):
                return Const(len(args[0].value))
            if items is not None:
                if all(g is None for g, _ in items):
                    return Const(len(items))
                return ast.Call(ast.Name("count", ast.Load()), [g if g is not None else TRUE for g, _ in items], [])
            expr = self.expr(args[0])
            return expr if isinstance(expr, Unknown) else ast.Call(ast.Name("len", ast.Load()), [expr], [])
        if name in ("any", "all") and len(args) == 1:
            items = _items(args[0])
            if items is None:
                return args[0] if isinstance(args[0], Unknown) else Unknown(f"{name}() over a list value")
            truths = [self.truth(v) if g is None else conj([g, self.truth(v)]) for g, v in items]
            if name == "all":
                truths = [self.truth(v) if g is None else disj([neg(g), self.truth(v)]) for g, v in items]
            if any(isinstance(t, Unknown) for t in truths):
                return next(t for t in truths if isinstance(t, Unknown))
            return disj(truths) if name == "any" else conj(truths)
        if name in ("sum", "prod") and len(args) == 1:
            items = _items(args[0])
            if items is None:
                return args[0] if isinstance(args[0], Unknown) else Unknown(f"{name}() over a list value")
            total: Any = None
            for guard, value in items:
                term = value if guard is None else make_choice([(guard, value), (None, Const(0 if name == "sum" else 1))])
                total = term if total is None else self.binop(ast.Add() if name == "sum" else ast.Mult(), total, term, node, st, frame)
            return Const(0 if name == "sum" else 1) if total is None else total
        if name in ("min", "max", "abs"):
            if all(isinstance(a, Const) for a in args):
                return Const({"min": min, "max": max, "abs": abs}[name](*(a.value for a in args)))
            exprs = [self.expr(a) for a in args]
            if any(isinstance(e, Unknown) for e in exprs):
                return next(e for e in exprs if isinstance(e, Unknown))
            return ast.Call(ast.Name(name, ast.Load()), exprs, [])
        if name == "divmod" and len(args) == 2:
            return Tup([self.binop(ast.FloorDiv(), args[0], args[1], node, st, frame),
                        self.binop(ast.Mod(), args[0], args[1], node, st, frame)])
        if name in ("getattr", "hasattr") and len(args) >= 2:
            if isinstance(args[1], Text) and args[0] is SELF:
                return self._getattr_pattern(args[1], args[2] if len(args) > 2 else Unknown("missing attribute"), st)
            if not isinstance(args[1], (Const, Choice)):
                return Unknown("getattr with a computed name")
            if isinstance(args[1], Choice):
                default = args[2] if len(args) > 2 else Unknown("missing attribute")
                return self.map_choice(args[1], lambda n: self._getattr(args[0], n, default, st))
            default = args[2] if len(args) > 2 else Unknown("missing attribute")
            value = self._getattr(args[0], args[1], default, st)
            return Const(not isinstance(value, Unknown)) if name == "hasattr" else value
        if name == "setattr" and len(args) == 3 and args[0] is SELF and isinstance(args[1], Const):
            if args[1].value in self.keys:
                st.fields[args[1].value] = args[2]
            return Const(None)
        if name == "isinstance" and len(args) == 2:
            return self.isinstance_of(args[0], node.args[1])
        if name == "range" and all(isinstance(a, Const) for a in args):
            return Const(tuple(range(*(a.value for a in args))))
        return Unknown(f"builtin {name}")

    def _getattr_pattern(self, text: Text, default: Any, st: State) -> Any:
        """getattr(self, f"ici_{x}_parallelism", d): one option per key the pattern can name."""
        holes = [p for p in text.parts if not isinstance(p, str)]
        if len(holes) != 1:
            return Unknown("getattr with a computed name")
        selector = self.expr(holes[0][0])
        if isinstance(selector, Unknown):
            return selector
        at = text.parts.index(holes[0])
        prefix, suffix = "".join(text.parts[:at]), "".join(text.parts[at + 1 :])
        options = [
            (ast.Compare(selector, [ast.Eq()], [ast.Constant(key[len(prefix) : len(key) - len(suffix)])]),
             st.fields.get(key, key_node(key)))
            for key in sorted(self.keys)
            if key.startswith(prefix) and key.endswith(suffix) and len(key) > len(prefix) + len(suffix) and "." not in key
        ]
        return make_choice(options + [(None, default)])

    def _getattr(self, obj: Any, attr: Any, default: Any, st: State) -> Any:
        if not isinstance(attr, Const):
            return Unknown("getattr with a computed name")
        if obj is SELF:
            if attr.value in self.keys:
                return st.fields.get(attr.value, key_node(attr.value))
            return default
        return Unknown("getattr of a value")

    def isinstance_of(self, value: Any, type_node: ast.expr) -> Any:
        names = {ast.unparse(e) for e in (type_node.elts if isinstance(type_node, ast.Tuple) else [type_node])}
        if isinstance(value, Const):
            kinds = {"int": int, "str": str, "float": float, "bool": bool, "list": list, "tuple": tuple, "dict": dict}
            return Const(any(isinstance(value.value, kinds[n]) for n in names if n in kinds))
        key = _key_of(value)
        if key is None or key not in self.keys:
            return Unknown(f"isinstance of {ast.unparse(value) if isinstance(value, ast.AST) else 'a value'}")
        schema = self.keys[key]
        kind = {"enum": "enum", "literal": "str"}.get(schema.kind, schema.kind)
        matches = kind in names or (kind == "list" and "list" in names)
        if kind == "enum":
            matches = False  # pydantic has made it an enum member by now
        if schema.nullable and matches:
            return ast.Compare(value, [ast.IsNot()], [ast.Constant(None)])
        return Const(matches)

    def value_method(self, base: Any, name: str, args: list) -> Any:
        if isinstance(base, Choice):
            return self.map_choice(base, lambda v: self.value_method(v, name, args))
        if isinstance(base, Const):
            if isinstance(base.value, (str, tuple, frozenset, dict)) and name in (
                "lower", "upper", "strip", "startswith", "endswith", "get", "keys", "items", "values", "index",
            ) and all(isinstance(a, Const) for a in args):
                try:
                    result = getattr(base.value, name)(*(a.value for a in args))
                except (ValueError, TypeError):
                    return Unknown(f"{name}() on a constant")
                return Const(tuple(result) if name in ("keys", "items", "values") else result)
            if isinstance(base.value, dict) and name == "get" and args and isinstance(args[0], Const):
                return Const(base.value.get(args[0].value)) if args[0].value in base.value else (args[1] if len(args) > 1 else Const(None))
        if isinstance(base, DictVal):
            if name == "items":
                return Filtered([(g, Tup([Const(k), v])) for k, v, g in base.entries])
            if name == "get" and args and isinstance(args[0], Const):
                return self.dict_get(base, args[0].value, args[1] if len(args) > 1 else Const(None))
        if name in ("append", "remove", "insert", "extend", "update"):
            return Const(None)
        expr = self.expr(base)
        if isinstance(expr, Unknown):
            return expr
        if name in ("lower", "upper"):
            return ast.Call(ast.Name("lower", ast.Load()), [expr], [])
        if name == "strip":
            return expr
        if name in ("startswith", "endswith") and len(args) == 1 and isinstance(args[0], Const):
            return ast.Call(ast.Name(name, ast.Load()), [expr, ast.Constant(args[0].value)], [])
        return Unknown(f"method {name}() of a value")

    def ev_ListComp(self, node: ast.ListComp, st: State, frame: Frame) -> Any:
        if len(node.generators) != 1:
            return Unknown("nested comprehension")
        gen = node.generators[0]
        iterable = self.ev(gen.iter, st, frame)
        items = _items(iterable)
        if items is None:
            return iterable if isinstance(iterable, Unknown) else Unknown(f"list value: comprehension over {_clean_source(gen.iter)}")
        out = []
        for guard, item in items:
            inner = st.fork()
            self.assign(gen.target, item, inner, frame)
            conds = [guard] if guard is not None else []
            for test in gen.ifs:
                t = self.cond(test, inner, frame)
                if isinstance(t, Unknown):
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

    def ev_NamedExpr(self, node: ast.NamedExpr, st: State, frame: Frame) -> Any:
        value = self.ev(node.value, st, frame)
        self.assign(node.target, value, st, frame)
        return value

    # ---- conversions -------------------------------------------------------------------

    def map_choice(self, choice: Choice, fn: Callable[[Any], Any]) -> Any:
        options = [(g, fn(v)) for g, v in _exclusive(choice)]
        options[-1] = (None, options[-1][1])
        return make_choice(options)

    def expr(self, value: Any) -> ast.expr | Unknown:
        if isinstance(value, ast.expr):
            return value
        if isinstance(value, Const):
            return _const_node(value.value)
        if isinstance(value, Unknown):
            return value
        if isinstance(value, Tup):
            items = [self.expr(i) for i in value.items]
            bad = [i for i in items if isinstance(i, Unknown)]
            return bad[0] if bad else ast.Tuple(items, ast.Load())
        if isinstance(value, Choice):
            options = [(g, self.expr(v)) for g, v in value.options]
            bad = [v for _, v in options if isinstance(v, Unknown)]
            if bad:
                return bad[0]
            out = options[-1][1]
            for guard, option in reversed(options[:-1]):
                out = option if _dump(option) == _dump(out) else ast.IfExp(guard, option, out)
            return out
        if isinstance(value, BoolVal):
            if value.op == "or" and len(value.values) == 2 and isinstance(value.values[1], Const) and value.values[1].value == "":
                key = _key_of(value.values[0])
                if key in self.keys and not self.keys[key].nullable:
                    return value.values[0]
            items = [self.expr(v) for v in value.values]
            bad = [i for i in items if isinstance(i, Unknown)]
            return bad[0] if bad else ast.BoolOp(ast.And() if value.op == "and" else ast.Or(), items)
        return Unknown(f"{type(value).__name__} value")

    def truth(self, value: Any) -> ast.expr | Unknown:
        if isinstance(value, Const):
            return ast.Constant(bool(value.value))
        if isinstance(value, Unknown):
            return value
        if isinstance(value, BoolVal):
            truths = [self.truth(v) for v in value.values]
            bad = [t for t in truths if isinstance(t, Unknown)]
            if bad:
                return bad[0]
            return conj(truths) if value.op == "and" else disj(truths)
        if isinstance(value, Choice):
            parts = []
            for guard, option in _exclusive(value):
                t = self.truth(option)
                if isinstance(t, Unknown):
                    return t
                parts.append(conj([guard, t]) if guard is not None else t)
            return disj(parts)
        if isinstance(value, (Tup, Filtered)):
            items = _items(value)
            return disj([g if g is not None else TRUE for g, _ in items])
        if isinstance(value, DictVal):
            return disj([g if g is not None else TRUE for _, _, g in value.entries])
        if isinstance(value, (Ref, Text, ScaleExp)):
            return Unknown(f"truth of {type(value).__name__}")
        if isinstance(value, (ast.Compare, ast.BoolOp)) or (isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)):
            return value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("startswith", "endswith"):
            return value
        if isinstance(value, ast.Constant):
            return ast.Constant(bool(value.value))
        key = _key_of(value)
        if key is not None and key in self.keys:
            return self._key_truth(value, key)
        if isinstance(value, ast.IfExp):
            body, orelse = self.truth(value.body), self.truth(value.orelse)
            if isinstance(body, Unknown):
                return body
            if isinstance(orelse, Unknown):
                return orelse
            return disj([conj([value.test, body]), conj([neg(value.test), orelse])])
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "lower":
            return ast.Compare(value, [ast.NotEq()], [ast.Constant("")])
        if isinstance(value, ast.expr):
            return ast.Compare(value, [ast.NotEq()], [ast.Constant(0)])
        return Unknown(f"truth of {type(value).__name__}")

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
        if schema.nullable:
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
                return "".join(p if isinstance(p, str) else self._render_value(p[1], st, frame) for p in value.parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.render(node.left, st, frame) + self.render(node.right, st, frame)
        return "{" + _clean_source(node) + "}"

    def _render_value(self, part: ast.FormattedValue, st: State, frame: Frame) -> str:
        saved = list(self.crash_guards)
        value = self.ev(part.value, st, frame)
        self.crash_guards = saved
        if isinstance(value, Const) and not isinstance(value.value, (tuple, frozenset, dict)):
            return repr(value.value) if part.conversion == ord("r") else str(value.value)
        if isinstance(part.value, ast.Name) and isinstance(value, Text):
            return "".join(p if isinstance(p, str) else self._render_value(p[1], st, frame) for p in value.parts)
        if isinstance(value, ast.Name) and value.id in self.keys:  # a local that holds a key: the finding fills it in
            return "{" + value.id + "}"
        return "{" + _clean_source(part.value) + "}"

    # ---- models of package files -------------------------------------------------------

    def _custom_mesh_files(self) -> dict[str, Any]:
        out = {}
        for relpath in self.files.glob(CUSTOM_MESH_DIR, ".yml"):
            try:
                out[Path(relpath).stem] = _freeze(yaml.safe_load(self.files.read(relpath)) or {})
            except yaml.YAMLError:
                continue
        return out


_MISSING = object()
_ENUM_CHOICES: dict[str, tuple] = {}  # enum/literal key -> its values, set by the walker
_OUT_OF_RANGE = Unknown("subscript out of range")
_ACTIVE: set[str] = set()
_DICT_DEPTH: dict[int, int] = {}


def container_depth(container: DictVal) -> int:
    return _DICT_DEPTH.get(id(container), 0)


@dataclass(frozen=True)
class ScaleExp:
    """One exponent that `get_individual_scales` derives from global_parameter_scale."""

    kind: str


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
        return Unknown("no option")
    if cleaned[-1][0] is not None:
        cleaned.append((None, Unknown("no option holds")))
    if len(cleaned) == 1 or all(_same(v, cleaned[0][1]) for _, v in cleaned):
        return cleaned[0][1]
    if len(cleaned) > MAX_OPTIONS:
        return Unknown("too many cases")
    flat = []
    for guard, value in cleaned:
        if isinstance(value, Choice):
            for inner_guard, inner in _exclusive(value):
                parts = [g for g in (guard, inner_guard) if g is not None]
                flat.append((conj(parts) if parts else None, inner))
        else:
            flat.append((guard, value))
    if len(flat) > MAX_OPTIONS:
        return Unknown("too many cases")
    grouped = _by_enum_value(Choice(flat))
    return grouped.options[0][1] if len(grouped.options) == 1 else grouped


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


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
            return _PY_COMPARE[type(node.ops[0])](env[node.left.id], ast.literal_eval(node.comparators[0]))
        except (ValueError, TypeError):
            return None
    return None


MAX_ENUM_CASES = 256


def _by_enum_value(choice: Choice) -> Choice:
    """Guards that only test enum keys against constants, regrouped per option as `key in (...)`
    tests that exclude each other: the walker's nested ifs over custom_mesh_and_rule (and its
    eval twin) otherwise grow without bound."""
    guards = [g for g, _ in choice.options if g is not None]
    keys = sorted(set().union(*(_names(g) for g in guards))) if guards else []
    if not keys or any(_ENUM_CHOICES.get(k) is None for k in keys) or len(keys) > 2:
        return choice
    combos: list[dict[str, Any]] = [{}]
    for key in keys:
        combos = [{**c, key: v} for c in combos for v in _ENUM_CHOICES[key]]
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
            if _same(group[1], chosen):
                group[0].append(env)
                break
        else:
            groups.append(([env], chosen))
    if len(groups) == 1:
        return Choice([(None, groups[0][1])])
    tests = [_combo_test(keys, envs) for envs, _ in groups]
    options = [(test, option) for test, (_, option) in zip(tests[:-1], groups[:-1])] + [(None, groups[-1][1])]
    return Choice(options, exclusive=tests)


def _member(key: str, values: list) -> ast.expr:
    if len(values) == len(_ENUM_CHOICES[key]):
        return TRUE
    if len(values) == 1:
        return ast.Compare(key_node(key), [ast.Eq()], [ast.Constant(values[0])])
    return ast.Compare(key_node(key), [ast.In()], [_const_node(tuple(values))])


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


def _exclusive(choice: Choice) -> list:
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


def _items(value: Any) -> list | None:
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


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, ast.AST) and isinstance(b, ast.AST):
        return _dump(a) == _dump(b)
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - structural comparison of unlike values
        return False


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


def _expressible_choice(choice: Choice) -> bool:
    return all(isinstance(v, ast.expr) or (isinstance(v, Const) and not isinstance(v.value, (tuple, frozenset, dict, list)))
               for _, v in choice.options)


def _key_of(value: Any) -> str | None:
    parts = []
    node = value
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + list(reversed(parts)))
    return None


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return {k: _freeze(v) for k, v in value.items()}
    return value


def _class_fields(cls: ast.ClassDef) -> list[str]:
    return [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]


def _is_after_validator(node: ast.FunctionDef) -> bool:
    for deco in node.decorator_list:
        if isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("model_validator"):
            for kw in deco.keywords:
                if kw.arg == "mode" and isinstance(kw.value, ast.Constant) and kw.value.value == "after":
                    return True
    return False


def _raises(fnode: ast.FunctionDef) -> list[ast.Raise]:
    return [n for n in ast.walk(fnode) if isinstance(n, ast.Raise) and n.exc is not None]


def _raises_in(stmts: list[ast.stmt]) -> list[ast.Raise]:
    out = []
    for stmt in stmts:
        out.extend(n for n in ast.walk(stmt) if isinstance(n, ast.Raise) and n.exc is not None)
    return out


def _assigned_names(stmts: list[ast.stmt]) -> set[str]:
    return {
        t.id for stmt in stmts for n in ast.walk(stmt) if isinstance(n, ast.Assign)
        for t in n.targets if isinstance(t, ast.Name)
    }


def _exception_name(stmt: ast.Raise) -> str:
    exc = stmt.exc
    func = exc.func if isinstance(exc, ast.Call) else exc
    return ast.unparse(func) if func is not None else ""


def _common_words(texts: list[str], reverse: bool = False) -> str:
    """The longest common start of TEXTS that ends at a word boundary (of the reversed texts'
    end when REVERSE; returned the right way round)."""
    first = texts[0]
    n = 0
    while n < len(first) and all(len(t) > n and t[n] == first[n] for t in texts):
        n += 1
    while n and n < len(first) and first[n - 1] != " ":
        n -= 1
    common = first[:n] if (n == len(first) or first[n - 1] == " ") else ""
    return common[::-1] if reverse else common


def _handler_names(handler: ast.ExceptHandler) -> set[str]:
    if handler.type is None:
        return {"*"}
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return {ast.unparse(n).split(".")[-1] for n in names}


def _raise_message(stmt: ast.Raise) -> ast.expr | None:
    exc = stmt.exc
    if isinstance(exc, ast.Call) and exc.args:
        return exc.args[0]
    return None


def _try_reason(body: list[ast.stmt]) -> str:
    source = "\n".join(ast.unparse(s) for s in body)
    if ".parse(" in source:
        return "jinja parse (chat_template)"
    if "environ" in source:
        return "environment variable"
    return "exception raised at run time"


def _source_message(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(str(p.value) if isinstance(p, ast.Constant) else "{" + _clean_source(p.value) + "}" for p in node.values)
    return "" if node is None else "{" + _clean_source(node) + "}"


def _clean_source(node: ast.expr) -> str:
    text = ast.unparse(node)
    for prefix in ("self.", "config."):
        text = text.replace(prefix, "")
    return text.replace(".value", "")


# --------------------------------------------------------------------------------------------
# Models of the few functions whose meaning the walker cannot derive from their text
# --------------------------------------------------------------------------------------------


def _model_num_target_devices(walker: Walker, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
    """Walk it for its own checks; its value is the device count: `num_devices`, unless
    internal_compile supplies it."""
    if fnode is not None:
        walker.inline(fnode, TYPES, args, {}, {}, st, frame)
    internal = st.fields.get("internal_compile", key_node("internal_compile"))
    count = st.fields.get("internal_compile_num_devices", key_node("internal_compile_num_devices"))
    return make_choice([(walker.truth(internal), count), (None, ast.Name(NUM_DEVICES, ast.Load()))])


def _model_num_slices(walker: Walker, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
    """max_utils.get_num_slices: the user's num_slices, else compile_topology_num_slices when
    positive, else the slices the runtime finds (1 on a single slice)."""
    num_slices = st.fields.get("num_slices", key_node("num_slices"))
    topo = st.fields.get("compile_topology_num_slices", key_node("compile_topology_num_slices"))
    return make_choice([
        (ast.Compare(num_slices, [ast.NotEq()], [ast.Constant(-1)]), num_slices),
        (ast.Compare(topo, [ast.Gt()], [ast.Constant(0)]), topo),
        (None, Const(1)),
    ])


def _model_individual_scales(walker: Walker, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
    """get_individual_scales(scale): raises unless scale is a power of two; returns exponents
    that the pass only uses as `2**e`, which become the derived `<kind>_factor` values."""
    scale = walker.expr(args[0]) if args else Unknown("no argument")
    raises = _raises(fnode) if fnode is not None else []
    if len(raises) == 2 and not isinstance(scale, Unknown):
        conds = [
            ast.Compare(scale, [ast.Eq()], [ast.Constant(0)]),
            ast.Compare(scale, [ast.NotIn()], [_const_node(POWERS_OF_TWO)]),
        ]
        for raise_node, cond in zip(raises, conds):
            owner = fnode.name
            site = walker._site(raise_node, Frame(owner, TYPES), "raise", _exception_name(raise_node),
                                walker.render(_raise_message(raise_node), st, frame))
            site.conditions.append(walker.path_and(st, cond))
    else:
        for raise_node in raises:
            walker._site(raise_node, Frame(fnode.name, TYPES), "raise").conditions.append(Unknown("model out of date"))
    return Tup([ScaleExp(k) for k in ("emb_scale", "num_head_scale", "mlp_dim_scale", "layer_scale")])


def _model_mesh_yaml(walker: Walker, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
    """_load_mesh_config_from_yaml(value): the package's custom_mesh_and_rule/<value>.yml."""
    value = args[0] if args else Unknown("no argument")
    key = _key_of(value)
    choices = walker.keys[key].choices if key in walker.keys and walker.keys[key].choices else []
    missing = tuple(c for c in choices if c not in walker.mesh_files)
    if fnode is not None:
        for raise_node in _raises(fnode):
            site = walker._site(raise_node, Frame(f"MaxTextConfig.{fnode.name}", TYPES), "raise",
                                _exception_name(raise_node), walker.render(_raise_message(raise_node), st, frame))
            if key is None:
                site.conditions.append(Unknown("file existence"))
            else:
                site.conditions.append(walker.path_and(st, ast.Compare(value, [ast.In()], [_const_node(missing)])))
    if isinstance(value, Const):
        return Const(walker.mesh_files.get(value.value, {}))
    expr = walker.expr(value)
    if isinstance(expr, Unknown):
        return expr
    options = [(ast.Compare(expr, [ast.Eq()], [ast.Constant(name)]), Const(data)) for name, data in sorted(walker.mesh_files.items())]
    return make_choice(options + [(None, Const({}))])


def _model_system_characteristics(walker: Walker, fnode: ast.FunctionDef | None, args: list, st: State, frame: Frame) -> Any:
    """accelerator_to_spec_map.get_system_characteristics(name): raises unless `name` is one of
    the table's names (read from the package); its value, the hardware's characteristics, is not modelled."""
    table = walker.topologies
    if table is None:
        return Unknown("runtime state (accelerator topology): no topology table found")
    name = args[0] if args else Unknown("no argument")
    expr = walker.expr(name)
    cond = expr if isinstance(expr, Unknown) else ast.Compare(expr, [ast.NotIn()], [_const_node(table.names)])
    params = [a.arg for a in table.lookup.args.args]
    inner = State(dict(st.fields), dict(zip(params, [name])), list(st.path))
    key = _key_of(name)
    for raise_node in _raises(table.lookup):
        message = walker.render(_raise_message(raise_node), inner, frame)
        if key is not None and params:
            message = message.replace("{" + params[0] + "}", "{" + key + "}")
        message = message.replace("{" + table.table + ".keys()}", f"the {len(table.names)} names of {table.table} (see {key or 'the key'}'s choices)")
        walker.record(raise_node, Frame(LOOKUP, SPEC_MAP), "raise", _exception_name(raise_node), message,
                      walker.path_and(st, cond), _raise_message(raise_node))
    return Unknown("runtime state (accelerator topology): the hardware's characteristics")


MODELS: dict[str, Callable[..., Any]] = {
    "get_num_target_devices": _model_num_target_devices,
    "max_utils.get_num_slices": _model_num_slices,
    "get_individual_scales": _model_individual_scales,
    "_load_mesh_config_from_yaml": _model_mesh_yaml,
    f"accelerator_to_spec_map.{LOOKUP}": _model_system_characteristics,
}


def _scale_factors(kind: str) -> str:
    """`2**<kind>` as a chain over the powers of two MaxText accepts for global_parameter_scale."""
    index = ("emb_scale", "num_head_scale", "mlp_dim_scale", "layer_scale").index(kind)
    pieces = []
    for log2 in range(len(POWERS_OF_TWO)):
        base, rem = divmod(log2, 3)
        exps = (base + int(rem > 1), base + int(rem > 0), base + int(rem > 0), base)
        pieces.append((2**log2, 2 ** exps[index]))
    groups: dict[int, list[int]] = {}
    for scale, factor in pieces:
        groups.setdefault(factor, []).append(scale)
    text = "1"
    for factor, scales in reversed(list(groups.items())):
        if factor == 1:
            continue
        text = f"{factor} if global_parameter_scale in {tuple(scales)} else {text}"
    return text


# --------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------


class _Namer(ast.NodeTransformer):
    """Replace the expressions MaxText computed into a local variable (or a field it overwrote)
    with a derived name, so that rules read like the source."""

    def __init__(self, names: dict[int, str]):
        self.names = names
        self.used: set[str] = set()

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.expr):
            name = self.names.get(_dump(node))
            if name is not None:
                self.used.add(name)
                return ast.Name(name, ast.Load())
            if isinstance(node, ast.Compare) and len(node.ops) == 1:
                name = self.names.get(_dump(neg(node)))
                if name is not None:
                    self.used.add(name)
                    return ast.UnaryOp(ast.Not(), ast.Name(name, ast.Load()))
        return super().visit(node)


@dataclass
class Extraction:
    rules: list
    derived: dict
    unexpressible: list
    safe_divisions: list  # divisions by a key whose path already rules out zero
    checks: int  # raise/assert sites (divisions by a key not counted)
    version: str


def extract_rules(source: str | Path) -> tuple[list[dict], dict[str, str], list[dict]]:
    """The validators of the MaxText at SOURCE (a wheel, an unpacked wheel or a source tree) as
    rules, the derived values they use, and the sites that cannot be expressed (with reasons)."""
    found = extract(source)
    return found.rules, found.derived, found.unexpressible


def extract(source: str | Path) -> Extraction:
    walker = Walker(open_package(source))
    walker.run()
    names = _derived_names(walker)
    namer = _Namer(names)
    rules: list[dict] = []
    unexpressible: list[dict] = []
    safe_divisions: list[str] = []
    order = {TYPES: 0, PYCONFIG: 1}
    ordered = sorted(walker.sites.values(), key=lambda s: (order.get(s.file, 2), s.line, s.kind == "crash"))
    for number, site in enumerate(ordered, start=1):
        rule_id = f"MX{number:04d}"
        bad = [c for c in site.conditions if isinstance(c, Unknown)]
        message = site.text() or site.exception
        if site.kind == "crash":
            message = f"{site.exception}: {site.message}"
        if bad:
            unexpressible.append(_unexpressible(rule_id, site, message, bad[0].reason))
            continue
        cond = _simplify(site.conditions)
        if site.kind == "crash" and isinstance(cond, ast.Constant) and not cond.value:
            safe_divisions.append(site.source)
            continue
        if isinstance(cond, ast.Constant):
            reason = "unreachable: its condition never holds" if not cond.value else "always raises"
            unexpressible.append(_unexpressible(rule_id, site, message, reason))
            continue
        rule = _rule(rule_id, site, message, namer.visit(copy.deepcopy(cond)), walker.version)
        if len(rule.get("when", "")) + len(rule["require"]) > MAX_CONDITION_CHARS:
            unexpressible.append(_unexpressible(rule_id, site, message, "too large: the condition over custom mesh rules "
                                                f"exceeds {MAX_CONDITION_CHARS} characters"))
            continue
        rules.append(rule)
    derived = _derived_values(walker, names, namer)
    checks = sum(1 for site in walker.sites.values() if site.kind != "crash")
    return Extraction(rules, derived, unexpressible, safe_divisions, checks, walker.version)


def _derived_names(walker: Walker) -> dict[int, str]:
    names: dict[int, str] = {}
    taken = set(walker.keys) | {NUM_DEVICES}
    for dump, name in walker.candidates.items():
        base = name if name not in walker.keys else f"{name}_value"
        final, n = base, 2
        while final in taken:
            final, n = f"{base}_{n}", n + 1
        taken.add(final)
        names[dump] = final
    return names


def _derived_values(walker: Walker, names: dict[int, str], namer: _Namer) -> dict[str, str]:
    by_name = {name: dump for dump, name in names.items()}
    derived: dict[str, str] = {}
    pending = sorted(namer.used)
    while pending:
        name = pending.pop()
        if name in derived:
            continue
        node = walker.candidate_nodes[by_name[name]]
        inner = _Namer({d: n for d, n in names.items() if d != by_name[name]})
        rewritten = inner.generic_visit(copy.deepcopy(node))
        derived[name] = ast.unparse(rewritten)
        pending.extend(sorted(inner.used - set(derived)))
    for kind in ("emb_scale", "num_head_scale", "mlp_dim_scale", "layer_scale"):
        if any(f"{kind}_factor" in text for text in derived.values()):
            derived[f"{kind}_factor"] = _scale_factors(kind)
    return dict(sorted(derived.items()))


def _rule(rule_id: str, site: Site, message: str, cond: ast.expr, version: str) -> dict:
    rule: dict[str, Any] = {"id": rule_id, "title": _title(site, message), "severity": "error", "pins": [f"maxtext-{version}"]}
    when, require = _split(cond)
    if when is not None:
        rule["when"] = ast.unparse(when)
    rule["require"] = ast.unparse(require)
    rule["message"] = message
    function = site.owner.split(".")[-1]
    rule["rationale"] = f"MaxText {version} raises this at trainer startup ({function})"
    if site.kind == "crash":
        rule["rationale"] = f"MaxText {version} crashes with {site.exception} at trainer startup ({function})"
    rule["source"] = site.source
    return rule


def _conjuncts(node: ast.expr) -> list[ast.expr]:
    return list(node.values) if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) else [node]


def _disjuncts(node: ast.expr) -> list[ast.expr]:
    return list(node.values) if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) else [node]


def _simplify(conditions: list[ast.expr]) -> ast.expr:
    """The disjunction of CONDITIONS without contradictory or absorbed disjuncts."""
    cases = []
    for cond in conditions:
        for case in _disjuncts(cond):
            parts = _conjuncts(case)
            if any(_implies(a, neg(b)) for a in parts for b in parts if a is not b):
                continue
            parts = [p for p in parts if not any(q is not p and _implies(q, p) and not _implies(p, q) for q in parts)]
            cases.append(parts)
    kept = []
    for i, parts in enumerate(cases):
        dumps = {_dump(p) for p in parts}
        absorbed = any(
            j != i and {_dump(p) for p in other} <= dumps and ({_dump(p) for p in other} != dumps or j < i)
            for j, other in enumerate(cases)
        )
        if not absorbed:
            kept.append(parts)
    return disj([conj(parts) for parts in kept])


def _split(cond: ast.expr) -> tuple[ast.expr | None, ast.expr]:
    """when/require for `not cond`: the conjuncts every case shares become the precondition."""
    cases = [_conjuncts(c) for c in _disjuncts(cond)]
    common = [p for p in cases[0] if all(any(_dump(p) == _dump(q) for q in other) for other in cases[1:])]
    if len(cases) == 1:
        common = common[:-1]
    rest = [[p for p in case if not any(_dump(p) == _dump(c) for c in common)] for case in cases]
    require = conj([neg(conj(r)) for r in rest])
    return (conj(common) if common else None), require


def _implies(a: ast.expr, b: ast.expr) -> bool:
    """A small, sound test that A implies B: the same expression, or comparisons of one operand
    with constants, decided at the constants' boundary points."""
    if _dump(a) == _dump(b):
        return True
    if not (isinstance(a, ast.Compare) and isinstance(b, ast.Compare) and len(a.ops) == len(b.ops) == 1):
        return False
    if _dump(a.left) != _dump(b.left):
        return False
    ca, cb = a.comparators[0], b.comparators[0]
    try:
        va, vb = ast.literal_eval(ca), ast.literal_eval(cb)
    except ValueError:
        return False
    points: set = set()
    for v in (va, vb):
        for item in (v if isinstance(v, tuple) else (v,)):
            if isinstance(item, bool) or not isinstance(item, (int, float, str)) and item is not None:
                return False
            points.add(item)
            if isinstance(item, (int, float)):
                points.update({item - 1, item + 1, item - 0.5, item + 0.5})
    points.add("\x00other")  # a value none of the constants names
    numbers = [p for p in points if isinstance(p, (int, float))]
    if numbers:
        points.update({min(numbers) - 1e9, max(numbers) + 1e9})
    for x in points:
        try:
            if _PY_COMPARE[type(a.ops[0])](x, va) and not _PY_COMPARE[type(b.ops[0])](x, vb):
                return False
        except TypeError:
            continue
    return True


def _unexpressible(rule_id: str, site: Site, message: str, reason: str) -> dict:
    return {"id": rule_id, "site": site.source, "message": message, "reason": reason}


def _title(site: Site, message: str) -> str:
    text = " ".join(message.split())
    first = text.split(". ")[0].rstrip(".")
    if len(first) > 90:
        first = first[:87].rstrip() + "..."
    return first or site.owner.split(".")[-1].replace("_", " ")


def reason_category(reason: str) -> str:
    return reason.split(":")[0].split(" (")[0]


def write_rules(source: str | Path, out_dir: str | Path) -> dict[str, int]:
    """Write rules.yml, derived.yml and unexpressible.yml for the MaxText at SOURCE into OUT_DIR;
    return the counts (sites, rules, unexpressible by reason)."""
    found = extract(source)
    rules, derived, unexpressible = found.rules, found.derived, found.unexpressible
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    header = f"# Generated by `flaglint schema import` from maxtext {found.version}; do not edit.\n"
    _dump_yaml(out / "rules.yml", header, {"rules": rules})
    _dump_yaml(out / "derived.yml", header + DERIVED_NOTE, {"derived": derived})
    _dump_yaml(out / "unexpressible.yml", header, {"rules": [], "unexpressible": unexpressible})
    counts = Counter(reason_category(u["reason"]) for u in unexpressible)
    crash_rules = sum(1 for r in rules if "crashes" in r["rationale"])
    return {"sites": len(rules) + len(unexpressible), "checks": found.checks, "rules": len(rules),
            "check_rules": len(rules) - crash_rules, "crash_rules": crash_rules,
            "safe_divisions": len(found.safe_divisions), "unexpressible": len(unexpressible),
            "device_rules": sum(1 for r in rules if _mentions(r, NUM_DEVICES, derived)),
            **{f"unexpressible: {k}": v for k, v in sorted(counts.items())}}


def _mentions(rule: dict, name: str, derived: dict[str, str]) -> bool:
    """Whether RULE reads NAME, directly or through derived values."""
    seen: set[str] = set()
    texts = [rule.get("when", ""), rule["require"]]
    while texts:
        names = _names(ast.parse(texts.pop() or "True", mode="eval"))
        if name in names:
            return True
        for other in names - seen:
            seen.add(other)
            if other in derived:
                texts.append(derived[other])
    return False


def summary(counts: dict[str, int]) -> str:
    lines = [
        f"validator sites found: {counts['checks']} raise/assert + {counts['sites'] - counts['checks']} divisions by a key "
        f"({counts['safe_divisions']} more proven safe by their path)",
        f"imported as checkable rules: {counts['rules']} ({counts['check_rules']} raise/assert, "
        f"{counts['crash_rules']} ZeroDivisionError; {counts['device_rules']} depend on {NUM_DEVICES})",
        f"unexpressible: {counts['unexpressible']}, by reason:",
    ]
    lines += [f"  {k[len('unexpressible: '):]}: {v}" for k, v in counts.items() if k.startswith("unexpressible: ")]
    return "\n".join(lines)


class _Dumper(yaml.SafeDumper):
    pass


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)


def _dump_yaml(path: Path, header: str, data: dict) -> None:
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)
    path.write_text(header + text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - a developer's shortcut; the CLI wires write_rules
    import sys

    print(summary(write_rules(sys.argv[1], sys.argv[2])))

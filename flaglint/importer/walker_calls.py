"""How the validator walker follows calls: helpers and methods are inlined, builtins and value
methods folded, and a few MaxText helpers replaced by their models (validator_models.py).

A mixin of `Walker` (validator_walker.py). Inlining walks the callee's body at the caller's path,
so a raise inside a helper is reached under the caller's guards, and the callee's returns merge
into one guarded value. Calls that ask the runtime (environment, file system, JAX devices) become
`Unexpressible` with the reason.
"""

from __future__ import annotations

import ast
from typing import Any

from flaglint.importer.source_text import clean_source
from flaglint.importer.sources import TYPES
from flaglint.importer.symbolic import (
    SELF,
    TRUE,
    Const,
    DictVal,
    Each,
    Filtered,
    GuardedChoice,
    Ref,
    Text,
    Tup,
    Unexpressible,
    conj,
    const_node,
    disj,
    items_of,
    key_node,
    key_of,
    make_choice,
    neg,
    same,
)
from flaglint.importer.validator_models import MODELS
from flaglint.importer.walker_state import Frame, State

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
_DTYPE_CALLS = ("jax.numpy.dtype", "jnp.dtype")
DTYPE_NAMES = "dtype names: JAX reads numpy's and ml_dtypes' names, not listed here; only a word no numpy reads is judged"
REFUSED_DTYPE = "refused_dtype_name"  # maxtext/dtypes.py's, a function rules call
DTYPES = ("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
_ACTIVE: set[str] = set()  # the functions being inlined: a recursive call is not followed


class CallWalker:
    """Calls, for `Walker`: uses its `keys`, `methods` and the statement and expression mixins."""

    def ev_Call(self, node: ast.Call, st: State, frame: Frame) -> Any:
        func = self.ev(node.func, st, frame)
        if isinstance(func, Ref) and func.kind == "silent":
            return Const(None)
        args = [self.ev(a, st, frame) for a in node.args if not isinstance(a, ast.Starred)]
        kwargs = {k.arg: self.ev(k.value, st, frame) for k in node.keywords if k.arg}
        if isinstance(func, Ref):
            if func.kind == "method" and func.target is SELF and func.name not in self.methods:
                return self.keys_get(args, st)
            if func.kind == "method" and func.target is SELF:
                return self.call_method(func.name, node, args, kwargs, st, frame)
            if func.kind == "func":
                fnode, file = func.target
                model = MODELS.get(fnode.name)
                if model is not None:
                    return model(self, fnode, args, st, frame)
                return self.inline(fnode, file, args, kwargs, {}, st, frame)
            if func.kind == "enum":
                return self.construct_enum(func.name, args, node, st, frame)
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
                if func.name == "math.fabs":
                    return self.builtin("abs", args, node, st, frame)
                if func.name in _DTYPE_CALLS:
                    self.dtype_of(node, st, frame)
                for prefix, reason in _RUNTIME_MODULES.items():
                    if func.name == prefix or func.name.startswith(prefix + "."):
                        return Unexpressible(f"{reason}: {func.name}")
                return Unexpressible(f"call {func.name}")
        if isinstance(func, Unexpressible):
            return func
        return Unexpressible(f"call {ast.unparse(node.func)}")

    def keys_get(self, args: list, st: State) -> Any:
        """`raw_keys.get("key", default)` before 0.2.0: the key where pyconfig has it, else the default."""
        if not args or not isinstance(args[0], Const) or not isinstance(args[0].value, str):
            return Unexpressible("get with a computed name")
        if args[0].value in self.keys or args[0].value in st.fields:
            return self.raw_key(args[0].value, st)
        return args[1] if len(args) > 1 else Const(None)

    def dtype_of(self, node: ast.Call, st: State, frame: Frame) -> None:
        """`jax.numpy.dtype(value)` raises TypeError for a name that is no dtype: a rule where the
        value is a word no numpy reads; JAX's other dtype names (numpy's forms and ml_dtypes' names)
        are not listed here, so the check is not judged for any other value."""
        shown = clean_source(node.args[0]) if node.args else ""
        message = f"data type '{{{shown}}}' not understood" if shown.isidentifier() else f"data type of {shown} not understood"
        value = self.expr(self.ev(node.args[0], st, frame)) if node.args else Unexpressible("no argument")
        if isinstance(value, Unexpressible):
            self.record(node, frame, "crash", "TypeError", message, self.path_and(st, value))
            return
        # a name every JAX reads as a dtype is no case of it; a word no numpy reads is one
        # (maxtext/dtypes.py); any other name is not judged
        unknown = ast.Compare(value, [ast.NotIn()], [const_node(DTYPES)])
        refused = ast.Call(ast.Name(REFUSED_DTYPE, ast.Load()), [value], [])
        self.record(node, frame, "crash", "TypeError", message, self.path_and(st, conj([unknown, refused])))
        other = self.path_and(st, conj([unknown, neg(refused)]))
        self.record(node, frame, "crash", "TypeError", message,
                    Unexpressible(DTYPE_NAMES, given=other.given if isinstance(other, Unexpressible) else other))

    def construct_enum(self, name: str, args: list, node: ast.Call, st: State, frame: Frame) -> Any:
        """`SomeEnum(value)` is the member with that value (compared as the value itself); any other
        value raises ValueError, as Python's Enum does."""
        if not args:
            return Unexpressible("enum constructor")
        value = self.expr(args[0])
        if not isinstance(value, Unexpressible):
            members = tuple(self.scope.enums[name].members.values())
            shown = clean_source(node.args[0]) if node.args else ast.unparse(value)
            # a key's value is filled in; the value of an expression is named by it
            message = f"'{{{shown}}}' is not a valid {name}" if shown.isidentifier() else f"{shown} is not a valid {name}"
            self.record(node, frame, "crash", "ValueError", message,
                        self.path_and(st, ast.Compare(value, [ast.NotIn()], [const_node(members)])))
        return args[0]

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
            return Unexpressible(f"recursion into {fnode.name}")
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
                    locals_[param] = self.ev(defaults[offset], st, frame) if offset >= 0 else Unexpressible("missing argument")
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
                return Unexpressible("call always raises")
            depth = len(st.path)
            if len(live) == 1:
                return live[0][1]
            options = []
            for s, v in live[:-1]:
                extra = s.path[depth:]
                if any(isinstance(p, Unexpressible) for p in extra):
                    return next(p for p in extra if isinstance(p, Unexpressible))
                options.append((conj(extra), v))
            options.append((None, live[-1][1]))
            return make_choice(options)
        finally:
            _ACTIVE.discard(fnode.name)

    def builtin(self, name: str, args: list, node: ast.Call, st: State, frame: Frame) -> Any:
        if name in ("sum", "prod", "any", "all", "len") and len(args) == 1 and isinstance(args[0], GuardedChoice):
            # one value per list the argument may be (a custom mesh file's, the user's)
            return self.map_choice(args[0], lambda value: self.builtin(name, [value], node, st, frame))
        if name in ("tuple", "list", "set", "frozenset", "sorted") and len(args) == 1:
            return args[0]
        if name == "map" and len(args) == 2 and args[0] in (Ref("builtin", "float"), Ref("builtin", "int"), Ref("builtin", "str")):
            # each piece retyped: a piece that is no number is refused where the value is typed
            return args[1]
        if len(args) == 1 and isinstance(args[0], Each):
            return self.over_each(name, args[0])
        if name in ("str", "float", "repr") and len(args) == 1:
            return args[0]
        if name in ("int", "float") and len(args) == 1:
            self.none_operands(node, (args[0],), st, frame)
        if name == "int" and len(args) == 1:
            if isinstance(args[0], Const):
                try:
                    return Const(int(args[0].value))
                except (TypeError, ValueError):
                    return Unexpressible("int() of a constant")
            key = key_of(args[0])
            if key in self.keys and self.keys[key].kind == "int":
                return args[0]
            value = self.expr(args[0])
            if isinstance(value, Unexpressible):
                return value
            return ast.BinOp(value, ast.FloorDiv(), ast.Constant(1))  # truncation; sizes here are not negative
        if name == "bool" and len(args) == 1:
            return self.truth(args[0])
        if name == "len" and len(args) == 1:
            items = items_of(args[0])
            if isinstance(args[0], Const) and isinstance(args[0].value, str):
                return Const(len(args[0].value))
            if items is not None:
                if all(g is None for g, _ in items):
                    return Const(len(items))
                return ast.Call(ast.Name("count", ast.Load()), [g if g is not None else TRUE for g, _ in items], [])
            expr = self.expr(args[0])
            return expr if isinstance(expr, Unexpressible) else ast.Call(ast.Name("len", ast.Load()), [expr], [])
        if name in ("any", "all") and len(args) == 1:
            items = items_of(args[0])
            if items is None:
                return args[0] if isinstance(args[0], Unexpressible) else Unexpressible(f"{name}() over a list value")
            truths = [self.truth(v) if g is None else conj([g, self.truth(v)]) for g, v in items]
            if name == "all":
                truths = [self.truth(v) if g is None else disj([neg(g), self.truth(v)]) for g, v in items]
            if any(isinstance(t, Unexpressible) for t in truths):
                return next(t for t in truths if isinstance(t, Unexpressible))
            return disj(truths) if name == "any" else conj(truths)
        if name in ("sum", "prod") and len(args) == 1:
            items = items_of(args[0])
            if items is None:
                return args[0] if isinstance(args[0], Unexpressible) else Unexpressible(f"{name}() over a list value")
            total: Any = None
            for guard, value in items:
                term = value if guard is None else make_choice([(guard, value), (None, Const(0 if name == "sum" else 1))])
                total = term if total is None else self.binop(ast.Add() if name == "sum" else ast.Mult(), total, term, node, st, frame)
            return Const(0 if name == "sum" else 1) if total is None else total
        if name in ("min", "max", "abs"):
            if all(isinstance(a, Const) for a in args):
                return Const({"min": min, "max": max, "abs": abs}[name](*(a.value for a in args)))
            exprs = [self.expr(a) for a in args]
            if any(isinstance(e, Unexpressible) for e in exprs):
                return next(e for e in exprs if isinstance(e, Unexpressible))
            return ast.Call(ast.Name(name, ast.Load()), exprs, [])
        if name == "divmod" and len(args) == 2:
            return Tup([self.binop(ast.FloorDiv(), args[0], args[1], node, st, frame),
                        self.binop(ast.Mod(), args[0], args[1], node, st, frame)])
        if name in ("getattr", "hasattr") and len(args) >= 2:
            if isinstance(args[1], Text) and args[0] is SELF:
                return self._getattr_pattern(args[1], args[2] if len(args) > 2 else Unexpressible("missing attribute"), st)
            if not isinstance(args[1], (Const, GuardedChoice)):
                return Unexpressible("getattr with a computed name")
            if isinstance(args[1], GuardedChoice):
                default = args[2] if len(args) > 2 else Unexpressible("missing attribute")
                return self.map_choice(args[1], lambda n: self._getattr(args[0], n, default, st))
            default = args[2] if len(args) > 2 else Unexpressible("missing attribute")
            value = self._getattr(args[0], args[1], default, st)
            return Const(not isinstance(value, Unexpressible)) if name == "hasattr" else value
        if name == "setattr" and len(args) == 3 and args[0] is SELF and isinstance(args[1], Const):
            if args[1].value in self.keys:
                st.fields[args[1].value] = args[2]
            return Const(None)
        if name == "isinstance" and len(args) == 2:
            return self.isinstance_of(args[0], node.args[1])
        if name == "range" and all(isinstance(a, Const) for a in args):
            return Const(tuple(range(*(a.value for a in args))))
        return Unexpressible(f"builtin {name}")

    def dict_lookup(self, base: DictVal, key: ast.expr, default: Any) -> Any:
        """`d.get(k, default)` for a K known when the config is (a list's element): the value of the
        entry K equals, the last written of a key winning, else DEFAULT; the keys of one value are
        tested together, and those of DEFAULT's value not at all."""
        if any(guard is not None for _, _, guard in base.entries):
            return Unexpressible("a dict written under conditions, read at a list's element")
        by_value: list[tuple[Any, list]] = []
        for k, v in {k: v for k, v, _ in base.entries}.items():
            group = next((g for g in by_value if same(g[0], v)), None)
            if group is None:
                by_value.append((v, [k]))
            else:
                group[1].append(k)
        options = [(ast.Compare(key, [ast.In()], [const_node(tuple(names))]) if len(names) > 1
                    else ast.Compare(key, [ast.Eq()], [const_node(names[0])]), v)
                   for v, names in by_value if not same(v, default)]
        return make_choice(options + [(None, default)])

    def _getattr_pattern(self, text: Text, default: Any, st: State) -> Any:
        """getattr(self, f"ici_{x}_parallelism", d): one option per key the pattern can name."""
        holes = [p for p in text.parts if not isinstance(p, str)]
        if len(holes) != 1:
            return Unexpressible("getattr with a computed name")
        selector = self.expr(holes[0][0])
        if isinstance(selector, Unexpressible):
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
            return Unexpressible("getattr with a computed name")
        if obj is SELF:
            if attr.value in self.keys:
                return st.fields.get(attr.value, key_node(attr.value))
            return default
        return Unexpressible("getattr of a value")

    def isinstance_of(self, value: Any, type_node: ast.expr) -> Any:
        names = {ast.unparse(e) for e in (type_node.elts if isinstance(type_node, ast.Tuple) else [type_node])}
        if isinstance(value, Const):
            kinds = {"int": int, "str": str, "float": float, "bool": bool, "list": list, "tuple": tuple, "dict": dict}
            return Const(any(isinstance(value.value, kinds[n]) for n in names if n in kinds))
        key = key_of(value)
        if key is None or key not in self.keys:
            return Unexpressible(f"isinstance of {ast.unparse(value) if isinstance(value, ast.AST) else 'a value'}")
        schema = self.keys[key]
        kind = {"enum": "enum", "literal": "str"}.get(schema.kind, schema.kind)
        matches = kind in names or (kind == "list" and "list" in names)
        if kind == "enum":
            matches = False  # pydantic has made it an enum member by now
        # before 0.2.0 an empty value (`key=`) is None whatever base.yml's value is
        if (schema.nullable or schema.typed_as_default) and matches:
            return ast.Compare(value, [ast.IsNot()], [ast.Constant(None)])
        return Const(matches)

    def value_method(self, base: Any, name: str, args: list) -> Any:
        if isinstance(base, GuardedChoice):
            return self.map_choice(base, lambda v: self.value_method(v, name, args))
        if isinstance(base, Const):
            if isinstance(base.value, (str, tuple, frozenset, dict)) and name in (
                "lower", "upper", "strip", "startswith", "endswith", "get", "keys", "items", "values", "index",
            ) and all(isinstance(a, Const) for a in args):
                try:
                    result = getattr(base.value, name)(*(a.value for a in args))
                except (ValueError, TypeError):
                    return Unexpressible(f"{name}() on a constant")
                return Const(tuple(result) if name in ("keys", "items", "values") else result)
            if isinstance(base.value, dict) and name == "get" and args and isinstance(args[0], Const):
                return Const(base.value.get(args[0].value)) if args[0].value in base.value else (args[1] if len(args) > 1 else Const(None))
        if isinstance(base, DictVal):
            if name == "items":
                return Filtered([(g, Tup([Const(k), v])) for k, v, g in base.entries])
            if name == "get" and args and isinstance(args[0], Const):
                return self.dict_get(base, args[0].value, args[1] if len(args) > 1 else Const(None))
            if name == "get" and args and isinstance(args[0], ast.expr):
                return self.dict_lookup(base, args[0], args[1] if len(args) > 1 else Const(None))
        if name in ("append", "remove", "insert", "extend", "update"):
            return Const(None)
        expr = self.expr(base)
        if isinstance(expr, Unexpressible):
            return expr
        if name in ("lower", "upper"):
            return ast.Call(ast.Name("lower", ast.Load()), [expr], [])
        if name == "strip":
            return expr
        if name in ("startswith", "endswith", "split") and len(args) == 1 and isinstance(args[0], Const) and isinstance(args[0].value, str):
            return ast.Call(ast.Name(name, ast.Load()), [expr, ast.Constant(args[0].value)], [])
        return Unexpressible(f"method {name}() of a value")

"""Tunix's checks read from its source as rules: every `raise` (and `assert`) a validator reaches,
with the condition under which it is reached, in the rule language over Tunix's keys.

The walker follows a function's statements with the values it knows: constants of the module and
of the function, the merged config (`self.config[...]`, `.get(...)`, a section a builder is given
as `self`), the environment (`os.environ`), the program's path (`argv[0]`). It follows the
branches (an arm that raises or returns narrows what comes after it), unrolls loops over constant
lists, and inlines the functions it can read: the class's own methods, functions of the module
and of the modules it imports from the same tree, and functions defined inside the body. What
such a function returns to an assignment (`a, self.b = helper(...)`) is what each of its
`return`s gives, under the conditions that reach it.
Everything else is opaque; a raise under an opaque condition is kept as unexpressible, with the
reason. Nothing is imported or run: the files are read with `ast`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from flaglint.importer.source_text import exception_name
from flaglint.importer.symbolic import FALSE, TRUE, conj, disj, key_node, neg, shape_id
from flaglint.tunix.pins import PROGRAM

MAX_DEPTH = 8  # functions inlined inside one another


class Opaque(Exception):
    """A value the rule language cannot state; as a condition, `known` holds the parts of it that
    can be stated and must hold with it (the other operands of an `and`)."""

    def __init__(self, reason: str, known: tuple = ()):
        super().__init__(reason)
        self.reason = reason
        self.known = known


@dataclass(frozen=True)
class Config:
    """A part of the merged config: the whole (path ()), a section, a key."""

    path: tuple[str, ...]


@dataclass(frozen=True)
class Environ:
    """`os.environ`."""


@dataclass(frozen=True)
class Argv:
    """The argv list HyperParameters is given."""


@dataclass(frozen=True)
class Instance:
    """`self`: of a class whose methods the walker follows; for a builder (a dataclass made from a
    section), its fields are that section's keys."""

    cls: str
    section: tuple[str, ...] | None = None


@dataclass
class Defaults:
    """`collections.defaultdict(lambda: VALUE)` with the entries the body sets."""

    default: Any
    entries: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Function:
    node: ast.FunctionDef
    module: Module
    instance: Instance | None = None


@dataclass(frozen=True)
class ModuleRef:
    module: Module


@dataclass
class Site:
    """A raise the walker reached: where, in which function, and when."""

    file: str
    line: int
    function: str
    exception: str
    condition: list  # the path's conditions (ast.expr), all holding when it raises
    reason: str | None = None  # why it is unexpressible


class Module:
    """One source file's constants, functions, classes and imports (resolved lazily)."""

    def __init__(self, tree: SourceTree, relpath: str):
        self.tree, self.relpath = tree, relpath
        self.ast = tree.parse(relpath)
        self.functions: dict[str, ast.FunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.constants: dict[str, ast.expr] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}  # name -> (module, attribute or None)
        for stmt in self.ast.body:
            if isinstance(stmt, ast.FunctionDef):
                self.functions[stmt.name] = stmt
            elif isinstance(stmt, ast.ClassDef):
                self.classes[stmt.name] = stmt
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                self.constants[stmt.targets[0].id] = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                self.constants[stmt.target.id] = stmt.value
        for stmt in ast.walk(self.ast):  # a function's own imports too (`from tunix.rl.grpo import grpo_learner` in a method)
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    self.imports.setdefault(alias.asname or alias.name.split(".")[0],
                                            (alias.name if alias.asname else alias.name.split(".")[0], None))
            elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for alias in stmt.names:
                    self.imports.setdefault(alias.asname or alias.name, (stmt.module, alias.name))

    def resolve(self, name: str) -> Any:
        """A module-level name: a function, a class (by name), a constant, an imported module or
        name of the tree; None when the tree does not hold it."""
        if name in self.functions:
            return Function(self.functions[name], self)
        if name in self.classes:
            return ("class", self, name)
        if name in self.constants and isinstance(self.constants[name], (ast.Name, ast.Attribute)):
            alias = self.base_class(self.constants[name])  # an alias: `GrpoConfig = GRPOConfig`, `= grpo_learner.GrpoConfig`
            return ("class", *alias) if alias is not None else None
        if name in self.imports:
            module, attribute = self.imports[name]
            if attribute is None:
                return self.tree.module_ref(module)
            target = self.tree.module_ref(f"{module}.{attribute}")
            if target is not None:
                return target
            source = self.tree.module_ref(module)
            return source.module.resolve(attribute) if source is not None else None
        return None

    def method(self, cls: str, name: str) -> tuple[ast.FunctionDef, Module] | None:
        """A method of a class of this module, looked up through its bases in the tree."""
        node = self.classes.get(cls)
        if node is None:
            return None
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
                return stmt, self
        for base in node.bases:
            found = self.base_class(base)
            if found is not None:
                hit = found[0].method(found[1], name)
                if hit is not None:
                    return hit
        return None

    def base_class(self, base: ast.expr) -> tuple[Module, str] | None:
        if isinstance(base, ast.Name):
            target = self.resolve(base.id)
        elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
            holder = self.resolve(base.value.id)
            target = holder.module.resolve(base.attr) if isinstance(holder, ModuleRef) else None
        else:
            return None
        if isinstance(target, tuple) and target[0] == "class":
            return target[1], target[2]
        return None


class SourceTree:
    """The modules of a source tree, by dotted name (`tunix.rl.utils`), parsed once each."""

    def __init__(self, files):
        self.files = files  # importer.tunix.TreeFiles
        self._modules: dict[str, Module | None] = {}

    def parse(self, relpath: str) -> ast.Module:
        return self.files.parse(relpath)

    def module(self, relpath: str) -> Module:
        name = relpath.removesuffix(".py").replace("/", ".")
        if self._modules.get(name) is None:
            self._modules[name] = Module(self, relpath)
        return self._modules[name]

    def module_ref(self, dotted: str) -> ModuleRef | None:
        for relpath in (dotted.replace(".", "/") + ".py", dotted.replace(".", "/") + "/__init__.py"):
            if self.files.exists(relpath):
                return ModuleRef(self.module(relpath))
        return None


class Walker:
    """Collects the sites of the functions it is started on (`walk`)."""

    def __init__(self):
        self.sites: dict[tuple[str, int], Site] = {}
        # per depth of inlining, where the `return`s of a function whose value is assigned go
        self._returns: dict[int, list | None] = {}

    def walk(self, function: Function, args: dict[str, Any], label: str) -> None:
        self._body(function.node.body, dict(args), [], function.module, function.instance, label, 0)

    # ---- statements ----

    def _body(self, stmts: list[ast.stmt], env: dict, path: list, module: Module, instance: Instance | None,
              label: str, depth: int) -> bool:
        """Walks STMTS; whether every way through them ends (raises or returns)."""
        path = list(path)
        for stmt in stmts:
            ended, after = self._statement(stmt, env, path, module, instance, label, depth)
            if ended:
                return True
            path = after
        return False

    def _statement(self, stmt: ast.stmt, env: dict, path: list, module: Module, instance: Instance | None, label: str,
                   depth: int) -> tuple[bool, list]:
        def value(node: ast.expr) -> Any:
            return self._value(node, env, module, instance)

        if isinstance(stmt, ast.Raise):
            self._site(stmt, path, module, label)
            return True, path
        if isinstance(stmt, ast.Assert):
            self._site(stmt, [*path, self._negated(stmt.test, env, module, instance)], module, label)
            return False, path
        if isinstance(stmt, ast.Return):
            if (returns := self._returns.get(depth)) is not None:
                returns.append((path, self._returned(stmt.value, env, module, instance)))
            return True, path
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if stmt.value is None:
                return False, path
            if isinstance(stmt.value, ast.Call) and self._is_tunix_function(stmt.value, env, module, instance):
                returns: list = []
                if self._call(stmt.value, env, path, module, instance, label, depth, returns):
                    if not returns:  # every way through it raises
                        return True, path
                    value = _joined_returns(returns, len(path))
                    for target in targets:
                        _bind(target, value, env)
                    return False, path
            for target in targets:
                self._assign(target, stmt.value, env, module, instance)
            return False, path
        if isinstance(stmt, ast.FunctionDef):
            env[stmt.name] = Function(stmt, module, instance)
            return False, path
        if isinstance(stmt, ast.If):
            test = self._condition(stmt.test, env, module, instance)
            body_env, else_env = dict(env), dict(env)
            body_ends = self._body(stmt.body, body_env, [*path, test], module, instance, label, depth)
            else_ends = self._body(stmt.orelse, else_env, [*path, _not(test)], module, instance, label, depth)
            env.clear()
            if body_ends and else_ends:
                return True, path
            if body_ends:
                env.update(else_env)
                return False, [*path, _not(test)]
            if else_ends:
                env.update(body_env)
                return False, [*path, test]
            env.update(_joined(test, body_env, else_env, instance))
            return False, path
        if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
            try:
                items = _constant(value(stmt.iter))
            except Opaque:
                items = None
            if isinstance(items, (list, tuple)):
                for item in items:
                    env[stmt.target.id] = ast.Constant(item)
                    self._body(stmt.body, env, path, module, instance, label, depth)
            return False, path
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self._call(stmt.value, env, path, module, instance, label, depth)
            return False, path
        if isinstance(stmt, ast.Try):
            ends = self._body(stmt.body, env, path, module, instance, label, depth)
            for handler in stmt.handlers:
                for inner in handler.body:
                    if isinstance(inner, ast.Raise):
                        self._site(inner, [*path, Opaque(f"raised when {_first_line(stmt.body)} fails")], module, label)
            return ends and not stmt.handlers, path
        if isinstance(stmt, ast.With):
            return self._body(stmt.body, env, path, module, instance, label, depth), path
        return False, path

    def _assign(self, target: ast.expr, node: ast.expr, env: dict, module: Module, instance: Instance | None) -> None:
        name = _target_name(target)
        if name is not None:
            try:
                env[name] = self._value(node, env, module, instance)
            except Opaque as err:
                env[name] = err
        elif isinstance(target, ast.Tuple):  # `a, self.b = f(...)`: what each becomes is not followed
            for element in target.elts:
                if (element_name := _target_name(element)) is not None:
                    env[element_name] = Opaque(f"{element_name} set from {ast.unparse(node)[:40]}")
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            holder = env.get(target.value.id)
            if isinstance(holder, Defaults):
                try:
                    holder.entries[_constant(self._value(target.slice, env, module, instance))] = self._value(node, env, module, instance)
                except Opaque:
                    pass

    def _site(self, stmt: ast.Raise | ast.Assert, path: list, module: Module, label: str) -> None:
        opaque = next((c for c in path if isinstance(c, Opaque)), None)
        where = (module.relpath, stmt.lineno)
        exception = exception_name(stmt) if isinstance(stmt, ast.Raise) else "AssertionError"
        known = [c for c in path if not isinstance(c, Opaque)] + [k for c in path if isinstance(c, Opaque) for k in c.known]
        site = Site(module.relpath, stmt.lineno, label, exception, known, opaque.reason if opaque else None)
        known = self.sites.get(where)
        if known is None:
            self.sites[where] = site
        elif known.reason is None and site.reason is None:  # reached on another path too: either raises
            known.condition = [disj([conj(known.condition), conj(site.condition)])]
        elif site.reason is not None:
            known.reason = known.reason or site.reason

    def _call(self, call: ast.Call, env: dict, path: list, module: Module, instance: Instance | None, label: str,
              depth: int, returns: list | None = None) -> bool:
        """Walks the body of the function CALL calls, where the walker can read it; whether it did.
        RETURNS, when given, gets each `return` of that body: (the path that reaches it, its value)."""
        if depth >= MAX_DEPTH:
            return False
        try:
            target = self._callee(call.func, env, module, instance)
        except Opaque:
            return False
        if not isinstance(target, Function):
            return False
        params = [a.arg for a in target.node.args.args]
        bound_self = target.instance
        if params and params[0] == "self" and bound_self is not None:
            params = params[1:]
        args: dict[str, Any] = {}
        defaults = target.node.args.defaults
        for name, default in zip(params[len(params) - len(defaults):], defaults):
            args[name] = self.value_or_opaque(default, {}, target.module, bound_self)
        for name, arg in zip(params, call.args):
            args[name] = self.value_or_opaque(arg, env, module, instance)
        for keyword in call.keywords:
            if keyword.arg is not None:
                args[keyword.arg] = self.value_or_opaque(keyword.value, env, module, instance)
        inner = {n: v for n, v in env.items() if isinstance(v, Function)} | args
        callee_label = target.node.name if bound_self is None else f"{bound_self.cls}.{target.node.name}"
        outer = self._returns.get(depth + 1)
        self._returns[depth + 1] = returns
        try:  # a body that runs off its end returns None
            self._body([*target.node.body, ast.Return(None)], inner, path, target.module, bound_self,
                       label if target.node.name == "<lambda>" else f"{label} -> {callee_label}" if depth else callee_label,
                       depth + 1)
        finally:
            self._returns[depth + 1] = outer
        return True

    def _is_tunix_function(self, call: ast.Call, env: dict, module: Module, instance: Instance | None) -> bool:
        """Whether CALL calls a function of Tunix's own (a helper whose value is followed; the
        packages Tunix imports are read for their classes' fields only)."""
        try:
            target = self._callee(call.func, env, module, instance)
        except Opaque:
            return False
        return isinstance(target, Function) and target.module.relpath.startswith("tunix/")

    def _returned(self, node: ast.expr | None, env: dict, module: Module, instance: Instance | None) -> Any:
        """What a `return` gives: its value, a Python tuple of values for `return a, b`, or the
        Opaque that says why it has none."""
        if node is None:
            return ast.Constant(None)
        if isinstance(node, ast.Tuple):
            return tuple(self.value_or_opaque(e, env, module, instance) for e in node.elts)
        return self.value_or_opaque(node, env, module, instance)

    def value_or_opaque(self, node: ast.expr, env: dict, module: Module, instance: Instance | None) -> Any:
        """The value of an expression, or the Opaque that says why it has none."""
        try:
            return self._value(node, env, module, instance)
        except Opaque as err:
            return err

    def _callee(self, func: ast.expr, env: dict, module: Module, instance: Instance | None) -> Any:
        if isinstance(func, ast.Name):
            return env.get(func.id) or module.resolve(func.id)
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id == "self" and instance is not None:
                hit = module.method(instance.cls, func.attr)
                return Function(hit[0], hit[1], instance) if hit else None
            holder = self._value(func.value, env, module, instance)
            if isinstance(holder, ModuleRef):
                return holder.module.resolve(func.attr)
        return None

    # ---- expressions ----

    def _condition(self, node: ast.expr, env: dict, module: Module, instance: Instance | None) -> Any:
        try:
            return _as_expr(self._value(node, env, module, instance))
        except Opaque as err:
            if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
                parts = [self._condition(v, env, module, instance) for v in node.values]
                known = tuple(p for p in parts if not isinstance(p, Opaque))
                return Opaque(err.reason, known + tuple(k for p in parts if isinstance(p, Opaque) for k in p.known))
            return err

    def _negated(self, node: ast.expr, env: dict, module: Module, instance: Instance | None) -> Any:
        return _not(self._condition(node, env, module, instance))

    def _value(self, node: ast.expr, env: dict, module: Module, instance: Instance | None) -> Any:
        value = self._value_of(node, env, module, instance)
        if isinstance(value, Opaque):
            raise value
        return value

    def _value_of(self, node: ast.expr, env: dict, module: Module, instance: Instance | None) -> Any:
        def value(inner: ast.expr) -> Any:
            return self._value(inner, env, module, instance)

        if isinstance(node, ast.Constant):
            return node
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = [_constant(value(e)) for e in node.elts]
            return ast.Constant(tuple(sorted(items, key=repr)) if isinstance(node, ast.Set) else tuple(items))
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id == "self" and instance is not None:
                return instance
            if node.id in module.constants:
                return value(module.constants[node.id])
            resolved = module.resolve(node.id)
            if resolved is not None:
                return resolved
            raise Opaque(f"the name {node.id}")
        if isinstance(node, ast.Attribute):
            if ast.unparse(node) == "os.environ":
                return Environ()
            if isinstance(node.value, ast.Name) and node.value.id == "self" and f"self.{node.attr}" in env:
                return env[f"self.{node.attr}"]  # a field the body has set
            holder = value(node.value)
            if isinstance(holder, Instance):
                if node.attr == "config" and holder.section is None:
                    return Config(())
                if holder.section is not None:
                    return Config((*holder.section, node.attr))
            if isinstance(holder, ModuleRef):
                resolved = holder.module.resolve(node.attr)
                if resolved is None and node.attr in holder.module.constants:
                    return value(holder.module.constants[node.attr])
                if resolved is not None:
                    return resolved
            raise Opaque(f"the attribute {ast.unparse(node)}")
        if isinstance(node, ast.Subscript):
            holder = value(node.value)
            key = value(node.slice)
            if isinstance(holder, Config):
                return Config((*holder.path, _text(key)))
            if isinstance(holder, Environ):
                return key_node(_text(key))
            if isinstance(holder, Argv) and _constant(key) == 0:
                return key_node(PROGRAM)
            if isinstance(holder, Defaults):
                return holder.entries.get(_constant(key), holder.default)
            raise Opaque(f"the subscript {ast.unparse(node)}")
        if isinstance(node, ast.Call):
            return self._call_value(node, env, module, instance)
        if isinstance(node, ast.Compare):
            return self._compare(node, env, module, instance)
        if isinstance(node, ast.BoolOp):
            parts = [_as_expr(value(v)) for v in node.values]
            return conj(parts) if isinstance(node.op, ast.And) else disj(parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return _not(_as_expr(value(node.operand)))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = _as_expr(value(node.operand))
            return ast.Constant(-operand.value) if isinstance(operand, ast.Constant) else ast.UnaryOp(ast.USub(), operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Mod, ast.FloorDiv, ast.Div)):
            return ast.BinOp(_as_expr(value(node.left)), node.op, _as_expr(value(node.right)))
        if isinstance(node, ast.Lambda):
            return Function(ast.FunctionDef(name="<lambda>", args=node.args, body=[ast.Return(node.body)], decorator_list=[]), module, instance)
        raise Opaque(f"the expression {ast.unparse(node)[:60]}")

    def _call_value(self, node: ast.Call, env: dict, module: Module, instance: Instance | None) -> Any:
        def value(inner: ast.expr) -> Any:
            return self._value(inner, env, module, instance)

        func = node.func
        text = ast.unparse(func)
        if isinstance(func, ast.Attribute) and func.attr == "get" and node.args:
            holder = value(func.value)
            key = _text(value(node.args[0]))
            if isinstance(holder, Config):
                return Config((*holder.path, key))
            if isinstance(holder, Environ):
                return key_node(key)
        if isinstance(func, ast.Attribute) and func.attr in ("startswith", "endswith") and len(node.args) == 1:
            subject = _as_expr(value(func.value))
            prefixes = _constant(value(node.args[0]))
            prefixes = prefixes if isinstance(prefixes, tuple) else (prefixes,)
            return disj([ast.Call(ast.Name(func.attr, ast.Load()), [subject, ast.Constant(p)], []) for p in prefixes])
        if isinstance(func, ast.Attribute) and func.attr == "lower" and not node.args:
            return ast.Call(ast.Name("lower", ast.Load()), [_as_expr(value(func.value))], [])
        if text == "isinstance" and len(node.args) == 2:
            kinds = _kinds(node.args[1])
            return ast.Compare(ast.Call(ast.Name("kind", ast.Load()), [_as_expr(value(node.args[0]))], []), [ast.In()],
                               [ast.Constant(kinds)])
        if text == "len" and len(node.args) == 1:
            return ast.Call(ast.Name("len", ast.Load()), [_as_expr(value(node.args[0]))], [])
        if text == "getattr" and len(node.args) == 2:
            holder = value(node.args[0])
            if isinstance(holder, Instance) and holder.section is not None:
                return Config((*holder.section, _text(value(node.args[1]))))
        if text in ("collections.defaultdict", "defaultdict") and node.args:
            factory = value(node.args[0])
            if isinstance(factory, Function) and factory.node.name == "<lambda>":
                return Defaults(ast.Constant(_constant(value(factory.node.body[0].value))))
        if text in ("list", "tuple", "set", "frozenset") and len(node.args) == 1:
            return ast.Constant(tuple(_constant(value(node.args[0]))))
        raise Opaque(f"the call {text}()")

    def _compare(self, node: ast.Compare, env: dict, module: Module, instance: Instance | None) -> ast.expr:
        left = self._value(node.left, env, module, instance)
        parts = []
        for op, comparator in zip(node.ops, node.comparators):
            right = self._value(comparator, env, module, instance)
            if isinstance(right, Config) and isinstance(op, (ast.In, ast.NotIn)):
                raise Opaque("whether a section holds a key")
            if isinstance(right, Environ) and isinstance(op, (ast.In, ast.NotIn)):
                name = key_node(_text(left))
                parts.append(ast.Compare(name, [ast.IsNot() if isinstance(op, ast.In) else ast.Is()], [ast.Constant(None)]))
            else:
                parts.append(ast.Compare(_as_expr(left), [op], [_as_expr(right)]))
            left = right
        return conj(parts)


def _joined_returns(returns: list, prefix: int) -> Any:
    """The value of a call from its RETURNS (paths that share the caller's first PREFIX
    conditions, and values): the first return whose own conditions hold, as `a if c else b`,
    element by element for tuples; an Opaque where a condition or a value cannot be stated."""
    owns = [path[prefix:] for path, _ in returns]
    if opaque := next((c for own in owns for c in own if isinstance(c, Opaque)), None):
        return opaque
    # a condition every return passes is one without which the function raises: not part of the value
    shared = set.intersection(*({shape_id(c) for c in own} for own in owns))
    arms = []
    for own, (_, value) in zip(owns, returns):
        condition = conj([c for c in own if shape_id(c) not in shared])
        if shape_id(condition) == shape_id(FALSE):
            continue
        arms.append((condition, value))
        if shape_id(condition) == shape_id(TRUE):
            break
    if not arms:
        return Opaque("a function with no return Tunix can reach")
    widths = {len(v) if isinstance(v, tuple) else None for _, v in arms}
    if len(widths) > 1:
        return Opaque("a function that returns values of different shapes")
    width = widths.pop()
    if width is None:
        return _chain(arms)
    return tuple(_chain([(c, v[i]) for c, v in arms]) for i in range(width))


def _chain(arms: list) -> Any:
    """`v1 if c1 else (v2 if c2 else … vn)`: the last arm is taken when the others are not (the
    function raises otherwise)."""
    value = arms[-1][1]
    for condition, arm in reversed(arms[:-1]):
        if isinstance(opaque := arm if isinstance(arm, Opaque) else value, Opaque):
            return opaque
        try:
            value = ast.IfExp(condition, _as_expr(arm), _as_expr(value))
        except Opaque as err:
            return err
    return value


def _bind(target: ast.expr, value: Any, env: dict) -> None:
    """Binds an assignment's target to a value the walker computed (an Opaque is kept as one)."""
    name = _target_name(target)
    if name is not None:
        env[name] = value
    elif isinstance(target, ast.Tuple):
        parts = value if isinstance(value, tuple) and len(value) == len(target.elts) else None
        for i, element in enumerate(target.elts):
            _bind(element, parts[i] if parts is not None else
                  value if isinstance(value, Opaque) else Opaque(f"{ast.unparse(element)}, unpacked from a value that is not a tuple"),
                  env)


def _target_name(target: ast.expr) -> str | None:
    """The name an assignment binds: a local, or `self.<field>` (kept as that text)."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return f"self.{target.attr}"
    return None


def _joined(test: Any, body: dict, orelse: dict, instance: Instance | None) -> dict:
    """The names after an if whose arms both go on: a name the arms set apart is `a if test else
    b` where both are conditions or values over keys, opaque otherwise. A field one arm leaves
    alone keeps the section's value there."""
    joined = {}

    def before(name: str) -> Any:
        field_name = name.removeprefix("self.")
        if field_name != name and instance is not None and instance.section is not None:
            return Config((*instance.section, field_name))
        return Opaque(f"{name}, set on one path only")

    for name in body.keys() | orelse.keys():
        a = body[name] if name in body else before(name)
        b = orelse[name] if name in orelse else before(name)
        if a is b:
            joined[name] = a
        elif isinstance(test, Opaque):
            joined[name] = test
        else:
            try:
                joined[name] = ast.IfExp(test, _as_expr(a), _as_expr(b))
            except Opaque as err:
                joined[name] = err
    return joined


def _as_expr(value: Any) -> ast.expr:
    if isinstance(value, Config):
        if not value.path:
            raise Opaque("the whole config as a value")
        return key_node(".".join(value.path))
    if isinstance(value, ast.expr):
        return value
    raise Opaque(f"a {type(value).__name__} as a value")


def _not(condition: Any) -> Any:
    return Opaque(condition.reason) if isinstance(condition, Opaque) else neg(condition)


def _constant(value: Any) -> Any:
    if isinstance(value, ast.Constant):
        return value.value
    raise Opaque("a value known only when Tunix runs")


def _text(value: Any) -> str:
    found = _constant(value)
    if not isinstance(found, str):
        raise Opaque("a key that is not a string")
    return found


_KIND_NAMES = {"int": ("int", "bool"), "bool": ("bool",), "float": ("float",), "str": ("str",), "list": ("list",),
               "tuple": ("list",), "dict": ("dict",)}


def _kinds(node: ast.expr) -> tuple[str, ...]:
    names = [ast.unparse(e) for e in node.elts] if isinstance(node, ast.Tuple) else [ast.unparse(node)]
    if not all(name in _KIND_NAMES for name in names):
        raise Opaque(f"isinstance of {ast.unparse(node)}")
    return tuple(sorted({kind for name in names for kind in _KIND_NAMES[name]}))


def _first_line(stmts: list[ast.stmt]) -> str:
    return ast.unparse(stmts[0]).splitlines()[0][:60] if stmts else "the block"

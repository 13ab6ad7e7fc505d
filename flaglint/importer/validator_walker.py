"""The walker that reads MaxText's config validators as programs over symbolic values.

`Walker` parses the package's config types and pyconfig.py with `ast` (nothing is imported or
run), walks each `model_validator(mode="after")` of MaxTextConfig's classes and pyconfig's checks
of the raw key dict, and collects in `sites` every raise, assert and division by a key with the
conditions on config keys under which it is reached. Its statement, expression and call handling
are mixins, one module each, as are the models of a few MaxText helpers (validator_models.py);
this module holds what ties them together: the package read, the entry points, and where sites
are recorded.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from flaglint.core.findings import InputError
from flaglint.core.omegaconf_yaml import load_document
from flaglint.importer.fieldtypes import ModuleScope
from flaglint.importer.importer import ROOT_MODEL, class_mro, import_schema
from flaglint.importer.source_text import (
    exception_name,
    raise_message,
    raises_in,
    source_message,
)
from flaglint.importer.sources import (
    COMMON_TYPES,
    OLD_LAYOUT_PATHS,
    PYCONFIG,
    TYPES,
    PackageFiles,
)
from flaglint.importer.symbolic import (
    ENUM_CHOICES,
    SELF,
    Const,
    Ref,
    Unexpressible,
    conj,
    disj,
    freeze,
    key_node,
)
from flaglint.importer.topologies import topology_table
from flaglint.importer.validator_models import MESH_DIR_NAME, MESH_SUFFIX, HelperModels
from flaglint.importer.walker_calls import CallWalker
from flaglint.importer.walker_expressions import ExpressionWalker
from flaglint.importer.walker_lists import ListWalker
from flaglint.importer.walker_state import Frame, Site, State
from flaglint.importer.walker_statements import StatementWalker
from flaglint.schema.model import MaxTextSchemaFile

CUSTOM_MESH_DIR = f"configs/{MESH_DIR_NAME}"
# Why pyconfig's checks of model files, unknown keys, value types and M_<KEY> variables are not
# rules: another step of flaglint checks them (FL004-FL006, FL040-FL042), so none is reported as
# not judged.
MODEL_CONFLICT = "model config conflict (checked by the --model step)"
UNKNOWN_KEY = "unknown key (checked against the schema)"
VALUE_TYPING = "value typing (checked when each value is typed)"
M_VARIABLE = "environment variable (M_<KEY> override, checked when the M_ variables are read)"
CHECKED_ELSEWHERE = frozenset({MODEL_CONFLICT, UNKNOWN_KEY, VALUE_TYPING, M_VARIABLE})


class Walker(StatementWalker, ExpressionWalker, CallWalker, ListWalker, HelperModels):
    """One walk over the validators of the MaxText package in FILES; `run` fills `sites`."""

    def __init__(self, files: PackageFiles, schema: MaxTextSchemaFile | None = None):
        self.files = files
        self.schema = schema or import_schema(files.origin)
        self.version = self.schema.version
        self.keys = self.schema.keys
        self.scope = ModuleScope()
        self.trees: dict[str, ast.Module] = {}
        for relpath in (COMMON_TYPES, TYPES, PYCONFIG):
            if files.exists(relpath):
                self.trees[relpath] = files.parse(relpath)
        if TYPES not in self.trees and PYCONFIG not in self.trees:
            raise InputError(f"{files.origin}: neither {TYPES} nor {PYCONFIG}: no checks to read")
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
        } if TYPES in self.trees else _old_layout_functions(self.trees[PYCONFIG])
        self.mro = class_mro(self.scope, ROOT_MODEL) if ROOT_MODEL in self.scope.classes else []
        self.methods: dict[str, tuple[ast.FunctionDef, str]] = {}
        for cls in self.mro:
            for node in self.scope.classes[cls].body:
                if isinstance(node, ast.FunctionDef) and node.name not in self.methods:
                    self.methods[node.name] = (node, cls)
        self.sites: dict[tuple[str, int], Site] = {}
        self.first_computed: dict[str, tuple[ast.AST, Frame]] = {}  # where pyconfig first computes with a key
        self.candidates: dict[int, str] = {}  # expression shape -> preferred derived name
        self.candidate_nodes: dict[int, ast.expr] = {}
        # local named in a message placeholder -> the expressions it holds there
        self.message_values: dict[str, set[str]] = {}
        self.crash_guards: list[ast.expr] = []
        self.catching: list[set[str]] = []  # exception names the enclosing try statements catch
        self.binders: list[tuple[str, ast.expr]] = []  # the loops over list values being walked: (element, list)
        self.elements: set[str] = set()  # the names given to their elements
        self.mesh_files = self._custom_mesh_files()
        self.topologies = topology_table(files)
        ENUM_CHOICES.clear()
        ENUM_CHOICES.update({k: tuple(v.choices) for k, v in self.keys.items() if v.kind == "enum" and v.choices
                             and not v.nullable})

    # ---- entry points ------------------------------------------------------------------

    def run(self) -> None:
        if self.files.old_layout:
            self._walk_old_pyconfig()
            return
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
            fields["logical_axis_rules"] = Const(freeze(rules))
        return State(fields, {}, [])

    def _walk_validator(self, node: ast.FunctionDef, cls: str) -> None:
        frame = Frame(f"{cls}.{node.name}", TYPES)
        st = self._initial_state()
        st.locals["self"] = SELF
        try:
            self.exec_block(node.body, st, frame)
        except (InputError, RecursionError, ValueError, TypeError, KeyError, AttributeError, IndexError) as err:
            # A construct this walker does not know: the validator's checks are listed as not
            # expressible with the reason, and the import goes on.
            reason = Unexpressible(f"not read by the importer ({type(err).__name__}: {err})".splitlines()[0][:160])
            for raise_node in raises_in(node.body):
                self.site_at(raise_node, frame, "raise", exception_name(raise_node),
                             source_message(raise_message(raise_node))).conditions.append(reason)

    def _walk_pyconfig(self) -> None:
        """pyconfig checks the raw key dict before pydantic: the two-splash check is a rule; the
        others concern model files, unknown keys and M_<KEY> variables, which other steps own."""
        funcs = {n.name: n for n in self.trees[PYCONFIG].body if isinstance(n, ast.FunctionDef)}
        fixed = {"validate_no_keys_overridden_twice": MODEL_CONFLICT, "_prepare_for_pydantic": UNKNOWN_KEY}
        for fname, reason in fixed.items():
            if fname in funcs:
                for raise_node in raises_in([funcs[fname]]):
                    site = self._pyconfig_site(raise_node, fname)
                    if fname == "_prepare_for_pydantic" and " not in " not in site.message:
                        # 0.2.0 types muon_consistent_rms here, as the value step types a float
                        site.conditions.append(Unexpressible(VALUE_TYPING))
                    else:
                        site.conditions.append(Unexpressible(reason))
        # the raw-dict checks: `_initialize_pydantic` since 0.2.3, `initialize_pydantic` in 0.2.0
        for fname in ("_initialize_pydantic", "initialize_pydantic"):
            if fname in funcs:
                self._walk_raw_checks(funcs[fname].body, [], fname)
                break

    def _walk_old_pyconfig(self) -> None:
        """Before 0.2.0 pyconfig checks the raw key dict itself: `_HyperParameters.__init__` from
        the point it holds the merged keys (`raw_keys`, read and written as the config) is walked
        with the helpers it calls. The checks of overrides (unknown keys, their types, M_<KEY>
        variables, model conflicts) are other steps of flaglint's."""
        hyper = next((n for n in self.trees[PYCONFIG].body if isinstance(n, ast.ClassDef) and n.name == OLD_CONFIG_CLASS), None)
        if hyper is None:
            raise InputError(f"{self.files.origin}: {PYCONFIG} defines no class {OLD_CONFIG_CLASS}")
        methods = {n.name: n for n in hyper.body if isinstance(n, ast.FunctionDef)}
        for fname, reason in _OLD_OVERRIDE_CHECKS.items():
            fnode = methods.get(fname) or self.functions.get(fname, (None,))[0]
            for raise_node in raises_in([fnode] if fnode is not None else []):
                site = self._pyconfig_site(raise_node, fname)
                text = ast.unparse(raise_node)
                site.conditions.append(Unexpressible(VALUE_TYPING if "type" in text or "parse" in text
                                                     else M_VARIABLE if "ENV" in text or "env" in text else reason))
        init = methods["__init__"]
        start = next((i for i, stmt in enumerate(init.body) if _binds_raw_keys(stmt)), None)
        if start is None:
            raise InputError(f"{self.files.origin}: {PYCONFIG}: {OLD_CONFIG_CLASS}.__init__ makes no raw_keys dict")
        st = self._initial_state()
        st.locals.update({"raw_keys": SELF, "self": Ref("module", "self"), "argv": Unexpressible("argv"),
                          "config_name": Unexpressible("the config file's name")})
        frame = Frame(f"{OLD_CONFIG_CLASS}.__init__", PYCONFIG)
        try:
            self.exec_block(init.body[start + 1:], st, frame)
        except (InputError, RecursionError, ValueError, TypeError, KeyError, AttributeError, IndexError) as err:
            reason = Unexpressible(f"not read by the importer ({type(err).__name__}: {err})".splitlines()[0][:160])
            for raise_node in raises_in(self.trees[PYCONFIG].body):
                site = self._pyconfig_site(raise_node, "pyconfig")
                if not site.conditions:
                    site.conditions.append(reason)

    def _pyconfig_site(self, raise_node: ast.Raise, owner: str) -> Site:
        return self.site_at(raise_node, Frame(owner, PYCONFIG), "raise", exception_name(raise_node),
                            source_message(raise_message(raise_node)))

    def _walk_raw_checks(self, stmts: list[ast.stmt], tests: list[ast.expr], owner: str) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.Raise) and stmt.exc is not None:
                sources = [ast.unparse(t) for t in tests]
                if any("environ" in text or "env_key" in text for text in sources):
                    cond: Any = Unexpressible(M_VARIABLE)
                elif not tests:
                    cond = Unexpressible("re-raised exception")
                else:
                    parts = [self._pyconfig_condition(t) for t in tests]
                    cond = next((p for p in parts if isinstance(p, Unexpressible)), None) or conj(parts)
                self._pyconfig_site(stmt, owner).conditions.append(cond)
            elif isinstance(stmt, ast.If):
                self._walk_raw_checks(stmt.body, tests + [stmt.test], owner)
                self._walk_raw_checks(stmt.orelse, tests + [ast.UnaryOp(ast.Not(), stmt.test)], owner)
            elif isinstance(stmt, (ast.For, ast.While, ast.With)):
                self._walk_raw_checks(stmt.body, tests, owner)
            elif isinstance(stmt, ast.Try):
                for block in [stmt.body, stmt.finalbody] + [h.body for h in stmt.handlers]:
                    self._walk_raw_checks(block, tests, owner)

    def _pyconfig_condition(self, test: ast.expr) -> ast.expr | Unexpressible:
        """pyconfig checks the raw key dict: `d.get("key")` reads a key."""
        if isinstance(test, ast.BoolOp):
            parts = [self._pyconfig_condition(v) for v in test.values]
            bad = [p for p in parts if isinstance(p, Unexpressible)]
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
            return Unexpressible(M_VARIABLE)
        return Unexpressible(f"raw config dict: {source}")

    # ---- sites -------------------------------------------------------------------------

    def site_at(self, node: ast.stmt | ast.expr, frame: Frame, kind: str, exception: str = "", message: str = "") -> Site:
        key = (frame.file, node.lineno, kind == "crash")
        if key not in self.sites:
            shown = f"MaxText/{OLD_LAYOUT_PATHS.get(frame.file, frame.file)}" if self.files.old_layout else ""
            self.sites[key] = Site(frame.file, node.lineno, frame.owner, kind, exception, message, path=shown)
        return self.sites[key]

    def record(self, node: ast.AST, frame: Frame, kind: str, exception: str, message: str, cond: Any,
               message_node: ast.expr | None = None) -> None:
        if any(exception.split(".")[-1] in caught or caught & {"*", "Exception", "BaseException"} for caught in self.catching):
            return  # an enclosing try catches it: no rejection (subclasses are not followed)
        site = self.site_at(node, frame, kind, exception, message)
        cond = self.bound_by_loops(cond)
        if message not in site.variants:
            site.variants.append(message)
        if message_node is not None and not site.message_source:
            site.message_source = source_message(message_node)
        site.conditions.append(cond)

    # ---- models of package files -------------------------------------------------------

    def _custom_mesh_files(self) -> dict[str, Any]:
        out = {}
        for relpath in self.files.glob(CUSTOM_MESH_DIR, MESH_SUFFIX):
            try:
                out[Path(relpath).stem] = freeze(load_document(self.files.read(relpath), relpath, "MaxText")[1] or {})
            except InputError:  # MaxText cannot load it either
                continue
        return out


OLD_CONFIG_CLASS = "_HyperParameters"
# pyconfig's checks of overrides before 0.2.0, and what each concerns (a raise naming the
# environment is about M_<KEY> variables, one naming a type about value typing)
_OLD_OVERRIDE_CHECKS = {
    "_validate_env_variables": M_VARIABLE,
    "_update_from_env_and_command_line": UNKNOWN_KEY,
    "validate_no_keys_overwritten_twice": MODEL_CONFLICT,
}


def _old_layout_functions(tree: ast.Module) -> dict[str, tuple[ast.FunctionDef, str]]:
    """pyconfig.py's functions, and the static methods of its config class as
    `_HyperParameters.<name>`, but the override checks (_OLD_OVERRIDE_CHECKS)."""
    found = {node.name: (node, PYCONFIG) for node in tree.body if isinstance(node, ast.FunctionDef)}
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and cls.name == OLD_CONFIG_CLASS:
            found.update({f"{cls.name}.{node.name}": (node, PYCONFIG) for node in cls.body
                          if isinstance(node, ast.FunctionDef)
                          and any(ast.unparse(d) == "staticmethod" for d in node.decorator_list)})
    return {name: entry for name, entry in found.items() if name.split(".")[-1] not in _OLD_OVERRIDE_CHECKS}


def _binds_raw_keys(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == "raw_keys")


def _is_after_validator(node: ast.FunctionDef) -> bool:
    for deco in node.decorator_list:
        if isinstance(deco, ast.Call) and ast.unparse(deco.func).endswith("model_validator"):
            for kw in deco.keywords:
                if kw.arg == "mode" and isinstance(kw.value, ast.Constant) and kw.value.value == "after":
                    return True
    return False

"""What a pydantic field's annotation and default mean, read from the ast of the module that
declares it (never by importing it)."""

from __future__ import annotations

import ast
import posixpath
from dataclasses import dataclass, field
from typing import Any

# gettempdir() depends on the machine the trainer runs on; the schema records this placeholder.
TEMPDIR_PLACEHOLDER = "<tempdir>"

_BUILTIN_KINDS = {"bool": "bool", "int": "int", "float": "float", "str": "str", "list": "list", "dict": "dict", "Any": "any"}
# pydantic's constrained aliases, as the bounds they carry.
_CONSTRAINED = {
    "NonNegativeInt": ("int", {"ge": 0}),
    "PositiveInt": ("int", {"gt": 0}),
    "NonNegativeFloat": ("float", {"ge": 0}),
    "NonPositiveInt": ("int", {"le": 0}),
    "NegativeInt": ("int", {"lt": 0}),
    "PositiveFloat": ("float", {"gt": 0}),
    "NonPositiveFloat": ("float", {"le": 0}),
    "NegativeFloat": ("float", {"lt": 0}),
}
_ENUM_BASES = {"Enum", "IntEnum", "StrEnum"}


class NotUnderstood(Exception):
    """An annotation or default the importer cannot read: the key stays defined with what is known,
    and the text is recorded (a default computed at run time, an annotation of an unknown form)."""

    def __init__(self, node: ast.AST):
        super().__init__(ast.unparse(node))
        self.text = ast.unparse(node)
BOUNDS = ("ge", "gt", "le", "lt")


def tighter(bound: str, current: float | None, new: float | None) -> float | None:
    """Both constraints apply when an alias's bound meets a Field's: the stricter one is in effect."""
    if current is None or new is None:
        return new if current is None else current
    return max(current, new) if bound in ("ge", "gt") else min(current, new)


@dataclass
class EnumClass:
    name: str
    members: dict[str, Any]
    int_enum: bool
    unread: ast.AST | None = None  # a member whose value is not a literal: the choices are unknown


@dataclass
class FieldType:
    kind: str
    nullable: bool = False
    choices: list[Any] | None = None
    enum: str | None = None
    int_enum: bool = False
    item: str | None = None
    members: list[str] | None = None
    bounds: dict[str, float] = field(default_factory=dict)
    model: str | None = None  # the nested BaseModel class, for kind "dict" fields that hold one
    unread: str | None = None  # the annotation's text, where the importer could not read it


class ModuleScope:
    """The module-level names field declarations refer to: enums, type aliases, literal constants
    and BaseModel classes, gathered from one or more modules (later modules win)."""

    def __init__(self) -> None:
        self.enums: dict[str, EnumClass] = {}
        self.aliases: dict[str, ast.expr] = {}
        self.constants: dict[str, Any] = {}
        self.classes: dict[str, ast.ClassDef] = {}

    def add_module(self, tree: ast.Module) -> None:
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                if _base_names(node) & _ENUM_BASES:
                    self.enums[node.name] = _enum_class(node)
                else:
                    self.classes[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        self._add_assignment(target.id, node.value)

    def _add_assignment(self, name: str, value: ast.expr) -> None:
        try:
            self.constants[name] = ast.literal_eval(value)
            return
        except (ValueError, TypeError, SyntaxError):
            pass
        if _is_type_expression(value):
            self.aliases[name] = value

    # ---- annotations ----

    def field_type(self, annotation: ast.expr) -> FieldType:
        atoms = self._atoms(annotation)
        nullable = any(atom is None for atom in atoms)
        kinds = [atom for atom in atoms if atom is not None]
        if len(kinds) == 1:
            result = kinds[0]
            result.nullable = nullable or result.kind == "any"
            return result
        lists = [atom for atom in kinds if atom.kind == "list"]
        return FieldType(
            kind="union",
            nullable=nullable or any(atom.kind == "any" for atom in kinds),
            members=[atom.kind for atom in kinds],
            item=lists[0].item if lists else None,
        )

    def _atoms(self, node: ast.expr) -> list[FieldType | None]:
        """The alternatives of a (possibly union) annotation; None stands for NoneType."""
        if isinstance(node, ast.Constant) and node.value is None:
            return [None]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self._atoms(node.left) + self._atoms(node.right)
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        if isinstance(node, ast.Call) and _dotted_tail(node.func) == "NewType":
            return self._atoms(node.args[1])
        name = _dotted_tail(node)
        if name == "None":
            return [None]
        if name == "list":
            return [FieldType("list", item="any")]
        if name in _BUILTIN_KINDS:
            return [FieldType(_BUILTIN_KINDS[name])]
        if name in _CONSTRAINED:
            kind, bounds = _CONSTRAINED[name]
            return [FieldType(kind, bounds=dict(bounds))]
        if name in self.enums:
            enum = self.enums[name]
            if enum.unread is not None:
                raise NotUnderstood(enum.unread)
            choices = list(dict.fromkeys(enum.members.values()))
            return [FieldType("enum", choices=choices, enum=name, int_enum=enum.int_enum)]
        if name in self.aliases:
            return self._atoms(self.aliases[name])
        if name in self.classes:
            return [FieldType("dict", model=name)]
        raise NotUnderstood(node)

    def _subscript(self, node: ast.Subscript) -> list[FieldType | None]:
        head = _dotted_tail(node.value)
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return self._atoms(args[0]) + [None]
        if head == "Union":
            return [atom for arg in args for atom in self._atoms(arg)]
        if head == "Literal":
            try:
                values = [ast.literal_eval(arg) for arg in args]
            except (ValueError, TypeError, SyntaxError):
                raise NotUnderstood(node) from None
            return [None] * (None in values) + [FieldType("literal", choices=[v for v in values if v is not None])]
        if head in ("list", "List", "Sequence"):
            item = self.field_type(args[0])
            return [FieldType("list", item=item.kind)]
        if head in ("dict", "Dict", "Mapping"):
            return [FieldType("dict")]
        raise NotUnderstood(node)

    # ---- defaults ----

    def value(self, node: ast.expr) -> Any:
        """The value a default expression evaluates to, for the forms field defaults use."""
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError):
            pass
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        if isinstance(node, ast.Attribute):
            if node.attr == "value" and isinstance(node.value, ast.Attribute):
                return self.value(node.value)
            owner = _dotted_tail(node.value)
            if owner in self.enums and node.attr in self.enums[owner].members:
                return self.enums[owner].members[node.attr]
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(elt) for elt in node.elts]
        if isinstance(node, ast.Call):
            func = ast.unparse(node.func)
            if func == "gettempdir" or func == "tempfile.gettempdir":
                return TEMPDIR_PLACEHOLDER
            if func == "os.path.join":
                return posixpath.join(*(self.value(arg) for arg in node.args))
            if func in ("copy.deepcopy", "copy.copy", "deepcopy") and len(node.args) == 1:
                return self.value(node.args[0])
        raise NotUnderstood(node)

    def factory_value(self, node: ast.expr) -> Any:
        """What a `default_factory` produces: a builtin constructor, a lambda, or a nested model."""
        if isinstance(node, ast.Lambda):
            return self.value(node.body)
        name = _dotted_tail(node)
        if name in ("list", "dict", "set", "tuple"):
            return [] if name != "dict" else {}
        raise NotUnderstood(node)


def _base_names(node: ast.ClassDef) -> set[str]:
    return {_dotted_tail(base) for base in node.bases}


def _dotted_tail(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_type_expression(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        return _dotted_tail(node.func) == "NewType"
    if isinstance(node, ast.Subscript):
        return _dotted_tail(node.value) in ("Literal", "Optional", "Union", "list", "dict")
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.BitOr)
    return isinstance(node, ast.Name) and node.id in _BUILTIN_KINDS


def _enum_class(node: ast.ClassDef) -> EnumClass:
    enum = EnumClass(node.name, {}, int_enum="IntEnum" in _base_names(node))
    for stmt in node.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                enum.members[stmt.targets[0].id] = ast.literal_eval(stmt.value)
            except (ValueError, TypeError, SyntaxError):
                enum.unread = enum.unread or stmt.value
    return enum

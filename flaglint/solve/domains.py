"""What a fix search varies, without the solver: the keys it may change, the values each may take,
and the case split's reading of concrete values. The Z3 encoding (smt.py) and the search that
needs no solver (enumeration.py) share them, so both search the same space."""

from __future__ import annotations

from flaglint.maxtext.mesh import fix_values
from flaglint.maxtext.tpu import RULE_FUNCTIONS
from flaglint.maxtext.values import ValueError_, coerce
from flaglint.resolve.resolver import Config
from flaglint.rules.expr import Node, Unknown, call, values_equal
from flaglint.rules.ruleset import Rule
from flaglint.solve.solutions import fixed_names
from flaglint.tunix.variables import load_tunix, type_tunix

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any


class Undefined:
    """A rule expression's value where it reads what the config leaves unknown."""

    def __repr__(self) -> str:
        return "an undefined value"


UNDEFINED = Undefined()


class KeyDomains:
    """The keys of one fix search and the values each may take.

    The keys are those of the broken rules (and, when those alone cannot give a fix of one change,
    the keys one rule further out); every other key keeps its value, so the problem stays small
    even with hundreds of imported rules.
    """

    def __init__(self, config: Config, rules: list[Rule], broken: list[Rule]):
        self.config = config
        self.rules = rules
        self.broken = {rule.id for rule in broken}
        self.fixed = fixed_names(config)
        self.cone = {n for rule in broken for n in rule.names} - self.fixed
        self.literals: dict[str, set] = {}
        self.frozen: set[str] = set()
        self.names: list[str] = []

    def _widen(self, names: set[str]) -> set[str]:
        return names | {n for rule in self.rules if names & set(rule.names) for n in rule.names}

    def _literals_of(self, name: str) -> set:
        # Only the rules that read `name`: a rule's trees are decoded when first read.
        if name not in self.literals:
            self.literals[name] = set().union(*(rule.literals for rule in self.rules if name in rule.name_set))
        return self.literals[name]

    def _domain_literals(self, name: str) -> list[Any]:
        return sorted(self._literals_of(name), key=lambda v: (type(v).__name__, str(v)))

    def variable_kind(self, name: str) -> str:
        """"bool": a boolean set to true or false, either of them; "number": a Tunix number set to a
        number, any value the arithmetic of the rules asks for; "finite": one of finite_values()."""
        current = self.config.lookup(name)
        tunix = load_tunix().variables.get(name)
        kind = tunix.kind if tunix else self.config.pin.keys[name].kind
        if kind == "bool" and isinstance(current, bool):
            return "bool"
        if kind in ("int", "float") and current is not None and not isinstance(current, bool) and tunix is not None:
            return "number"
        return "finite"

    def finite_values(self, name: str) -> list[Any]:
        """The values a "finite" key may take, its current one first."""
        current = self.config.lookup(name)
        tunix = load_tunix().variables.get(name)
        schema = self.config.pin.keys.get(name)
        kind = tunix.kind if tunix else schema.kind
        choices = list((tunix.choices if tunix else schema.choices) or [])
        if kind == "bool":
            choices += [True, False]
        # A MaxText number takes its default, or a value the rules name (or one either side of it):
        # values the rules never mention are where MaxText's unmodelled checks and crashes live.
        candidates = [self._default(name), *self._domain_literals(name)] if kind in ("int", "float") else self._domain_literals(name)
        if kind == "list" and self._iterated(name):
            # a list the rules read element by element compares its elements with their literals,
            # not itself: it may take its default
            candidates.append(self._default(name))
        if kind in ("int", "float"):
            candidates += [v + step for v in self._domain_literals(name) if numeric(v) and not isinstance(v, bool) for step in (-1, 1)]
        literals = [v for v in fix_values(name, candidates) if self._accepts(name, v)]
        nullable = tunix is not None or (schema is not None and schema.nullable)
        values = [current]
        for value in [*choices, *literals, *([None] if nullable else [])]:
            if not any(same_value(value, seen) for seen in values):
                values.append(value)
        return values

    def _iterated(self, name: str) -> bool:
        """Whether a rule reads the list NAME element by element (a generator over it)."""
        return any(_iterates(tree, name) for rule in self.rules if name in rule.name_set
                   for tree in (rule.when, rule.require) if tree is not None)

    def _accepts(self, name: str, value: Any) -> bool:
        if value is None:
            return False
        tunix = load_tunix().variables.get(name)
        try:
            if tunix:
                type_tunix(name, tunix, str(value))
            else:
                return same_value(coerce(self.config.pin.keys[name], value), value)
        except (ValueError, ValueError_):
            return False
        return True

    def _holdable(self, name: str) -> bool:
        """An unset number stays unset: a fix does not invent a value for it. A key that takes no
        None (given empty before 0.2.0, where pyconfig passes None on) is not unset."""
        tunix = load_tunix().variables.get(name)
        schema = None if tunix else self.config.pin.keys[name]
        kind = tunix.kind if tunix else schema.kind
        return kind in ("int", "float") and self.config.lookup(name) is None and (schema is None or schema.nullable)

    def _default(self, name: str) -> Any:
        tunix = load_tunix().variables.get(name)
        if tunix:
            return None
        return self.config.pin.default(name)

    def varied(self) -> list[str]:
        """The names of self.names a search varies: an unset number stays unset, a frozen key as it is."""
        return [name for name in self.names if name not in self.frozen and not self._holdable(name)]


def _iterates(node: Node, name: str) -> bool:
    if node.op == "each" and node.args[0].op == "var" and node.args[0].value == name:
        return True
    return any(_iterates(arg, name) for arg in node.args)


def numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and value is not UNDEFINED


def same_value(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or (numeric(a) and numeric(b) and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def contains(container: Any, value: Any) -> bool:
    if isinstance(container, str):
        return isinstance(value, str) and value in container
    return any(values_equal(value, c) for c in container)


def applied(name: str, args: list[Any]) -> Any:
    """A rule function on concrete arguments; UNDEFINED where it has no value."""
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    try:
        return call(name, args, RULE_FUNCTIONS)
    except (Unknown, TypeError, ValueError):
        return UNDEFINED

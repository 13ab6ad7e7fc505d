"""Every cross-key rule on the resolved config at once, and the smallest fixes.

Checking a concrete config evaluates each rule directly (fast, no solver). Fixes are a MaxSMT
problem over "each key keeps its value", solved with Z3's Optimize on the keys the broken rules
reach; z3 is imported only on that path, and only where the search is not small (enumeration.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from flaglint.core.findings import Finding
from flaglint.maxtext.tpu import RULE_FUNCTIONS
from flaglint.maxtext.values import shown_setting
from flaglint.resolve.resolver import Config
from flaglint.rules.expr import ExprError, Unknown, evaluate, parse
from flaglint.rules.ruleset import Rule, RuleSet

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

    from flaglint.solve.solutions import Solution


def rule_names(rule: Rule) -> list[str]:
    return rule.names


def applicable(ruleset: RuleSet, config: Config) -> list[Rule]:
    return [
        rule
        for rule in ruleset.rules
        if not rule.builtin and rule.applies_to(config.pin.chain) and all(config.knows(n) for n in rule_names(rule))
    ]


def holds(rule: Rule, lookup) -> bool:
    """False only when the rule is known to be broken; a rule that cannot be computed holds."""
    try:
        if rule.when is not None and not evaluate(rule.when, lookup, RULE_FUNCTIONS):
            return True
        return bool(evaluate(rule.require, lookup, RULE_FUNCTIONS))
    except Unknown:
        return True


def violated(rules: Iterable[Rule], config: Config) -> list[Rule]:
    return [rule for rule in rules if not holds(rule, config.lookup)]


def located_order(rule: Rule) -> list[str]:
    """The names a finding of the rule is located at, in order: the first one the flags set is its place."""
    return list(dict.fromkeys([*(rule.require.names() if rule.require else []), *rule_names(rule)]))


def finding(rule: Rule, config: Config, derived: dict | None = None) -> Finding:
    """`derived`: the ruleset's derived values, for placeholders that name one."""
    names = rule_names(rule)
    shown = _values(names, config)
    located = [n for n in located_order(rule) if config.location(n)]
    primary = config.location(located[0]) if located else None
    related = tuple(loc for n in dict.fromkeys(located) if (loc := config.location(n)) and loc != primary)
    return Finding(rule.id, rule.severity, f"{_filled(rule.message, config, derived or {})} ({shown})", tuple(names), primary, related)


# More values than this in a finding are grouped: each value many keys share is said once, after
# the values that stand out (those the inputs set first), so a mesh's dozen axes of 1 read at a glance.
MAX_VALUES_EACH = 6
SHARED_BY = 3


def _values(names: list[str], config: Config) -> str:
    pairs = [(n, shown_setting(config.lookup(n))) for n in names]
    if len(pairs) <= MAX_VALUES_EACH:
        return ", ".join(f"{n}={v}" for n, v in pairs)
    pairs.sort(key=lambda pair: config.location(pair[0]) is None)  # stable: the rule's order within each
    sharing = Counter(v for _, v in pairs)
    alone = [f"{n}={v}" for n, v in pairs if sharing[v] < SHARED_BY]
    groups = [f"each {v}: {', '.join(n for n, w in pairs if w == v)}" for v in dict.fromkeys(v for _, v in pairs) if sharing[v] >= SHARED_BY]
    return "; ".join([", ".join(alone), *groups] if alone else groups)


def _filled(message: str, config: Config, derived: Mapping) -> str:
    """MaxText's messages name keys as `{key}` placeholders, and some an expression over keys
    (`{engram_max_ngram_size - 1}`): the values this config gives them, and the value of a derived
    one (context_parallel_size, num_stages) where it can be computed. Placeholders over the
    validator's other locals stay as written."""

    def known(name: str) -> Any:
        if config.knows(name):
            return config.lookup(name)
        if name in derived:
            return evaluate(derived[name], config.lookup, RULE_FUNCTIONS)
        raise Unknown(name)

    def value(match: re.Match) -> str:
        text = match[1]
        try:
            if re.fullmatch(_NAME, text):
                return shown_setting(known(text))
            return shown_setting(evaluate(parse(text), known, RULE_FUNCTIONS))
        except (Unknown, ExprError, ArithmeticError, TypeError, ValueError):
            return match[0]

    return re.sub(_PLACEHOLDER, value, message)


_PLACEHOLDER = r"\{([^{}]+)\}"  # compiled by re when first used: a check compiles only the patterns it uses
_NAME = r"[A-Za-z_][A-Za-z0-9_.]*"


def minimal_changes(config: Config, rules: list[Rule], broken: list[Rule], max_fixes: int) -> list[Solution]:
    """The smallest fixes: tried one change at a time where the search is small, else Z3's."""
    from flaglint.solve.enumeration import small_fixes  # noqa: PLC0415 only when a fix is searched for

    found = small_fixes(config, rules, broken, max_fixes)
    if found is not None:
        return found
    from flaglint.solve.smt import FixProblem  # noqa: PLC0415 z3: only when a fix is searched for beyond a small one

    return FixProblem(config, rules, broken).solve(max_fixes)

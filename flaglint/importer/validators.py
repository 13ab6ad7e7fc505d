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

This module turns the walker's sites into rules and writes them (`write_rules`, `summary`). The
walk itself is `Walker` (validator_walker.py, with its mixins walker_statements.py,
walker_expressions.py and walker_calls.py) over the values of symbolic.py; the models of the
MaxText helpers it cannot read are in validator_models.py.
"""

from __future__ import annotations

import ast
import copy
import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from flaglint.importer.key_reads import KeyReads
from flaglint.importer.sources import PYCONFIG, TYPES, open_package
from flaglint.importer.symbolic import (
    PY_COMPARE,
    TRUE,
    Unexpressible,
    condition_text,
    conj,
    disj,
    names_in,
    neg,
    shape_id,
)
from flaglint.importer.validator_models import (
    LIVE_SLICES,
    NUM_DEVICES,
    SCALE_KINDS,
    scale_factors,
)
from flaglint.importer.validator_walker import CHECKED_ELSEWHERE, Walker
from flaglint.importer.walker_state import Site
from flaglint.rules.expr import ExprError, parse
from flaglint.schema.model import MaxTextSchemaFile

MAX_CONDITION_CHARS = 4000
DERIVED_NOTE = f"""\
# Values MaxText computes before it checks them, written over the keys they come from.
# `{NUM_DEVICES}` is the device count MaxText asks JAX for: unknown unless the caller gives it.
# logical_axis_rules are base.yml's (or the custom_mesh_and_rule file's); a logical_axis_rules
# override on the command line or in a model yml is not seen. `{LIVE_SLICES}` is the slices JAX
# finds, for a num_slices of -1 that no compile topology resolves: the device count's, else 1.
"""


class _Namer(ast.NodeTransformer):
    """Replace the expressions MaxText computed into a local variable (or a field it overwrote)
    with a derived name, so that rules read like the source."""

    def __init__(self, names: dict[int, str]):
        self.names = names
        self.used: set[str] = set()

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.expr):
            name = self.names.get(shape_id(node))
            if name is not None:
                self.used.add(name)
                return ast.Name(name, ast.Load())
            if isinstance(node, ast.Compare) and len(node.ops) == 1:
                name = self.names.get(shape_id(neg(node)))
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
    sites: int  # the sites but the safe divisions: each a rule, listed as not expressible, or both (by the ways to it)


def extract_rules(source: str | Path) -> tuple[list[dict], dict[str, str], list[dict]]:
    """The validators of the MaxText at SOURCE (a wheel, an unpacked wheel or a source tree) as
    rules, the derived values they use, and the sites that cannot be expressed (with reasons)."""
    found = extract(source)
    return found.rules, found.derived, found.unexpressible


def extract(source: str | Path, pin: str | None = None, schema: MaxTextSchemaFile | None = None) -> Extraction:
    """PIN: the pin the rules apply to (default `maxtext-<version>`); SCHEMA: the package's, when
    the caller has imported it already."""
    walker = Walker(open_package(source), schema)
    walker.run()
    names = _derived_names(walker)
    namer = _Namer(names)
    reads = KeyReads(walker.trees, walker.keys)
    rules: list[dict] = []
    unexpressible: list[dict] = []
    safe_divisions: list[str] = []
    order = {TYPES: 0, PYCONFIG: 1}
    ordered = sorted(walker.sites.values(), key=lambda s: (order.get(s.file, 2), s.line, s.kind == "crash"))
    taken: set[str] = set()
    for site in ordered:
        message = site.text() or site.exception
        if site.kind == "crash":
            message = f"{site.exception}: {site.message}"
        # A site is a rule where its condition can be stated (the ways to it that can), and is
        # listed as not expressible for the ways that cannot: both, when some ways can.
        unknown = [c for c in site.conditions if isinstance(c, Unexpressible)]
        known = [c for c in site.conditions if not isinstance(c, Unexpressible)]
        cond = _simplify(known) if known else None
        rule_id = stable_rule_id(check_identity(site, cond, unknown), taken)
        taken.add(rule_id)
        if isinstance(cond, ast.Constant):
            if unknown:
                pass  # the ways that can be stated never raise: only the others are listed
            elif site.kind == "crash" and not cond.value:
                safe_divisions.append(site.source)
            else:
                reason = "unreachable: its condition never holds" if not cond.value else "always raises"
                unexpressible.append(_unexpressible(rule_id, site, message, reason))
            cond = None
        if cond is not None:
            rule = _rule(rule_id, site, message, namer.visit(copy.deepcopy(cond)), walker.version, pin)
            if len(rule.get("when", "")) + len(rule["require"]) <= MAX_CONDITION_CHARS:
                rules.append(rule)
            else:
                unknown.insert(0, Unexpressible(f"too large: the condition over custom mesh rules exceeds {MAX_CONDITION_CHARS} characters",
                                                given=cond))
        if unknown:
            entry = _unexpressible(rule_id, site, message, unknown[0].reason)
            if unknown[0].reason not in CHECKED_ELSEWHERE:
                entry |= _not_judged_when(site, unknown, reads, namer, set(walker.keys))
            unexpressible.append(entry)
    derived = _derived_values(walker, names, namer)
    checks = sum(1 for site in walker.sites.values() if site.kind != "crash")
    return Extraction(rules, derived, unexpressible, safe_divisions, checks, walker.version, len(ordered) - len(safe_divisions))


# Crockford's base32: no I, L, O or U, so an id read aloud or typed by hand is not misread.
_ID_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_CHARS = 5  # 25 bits: the bundled releases' few hundred checks are far from sharing one


def check_identity(site: Site, cond: ast.expr | None, unknown: list[Unexpressible]) -> str:
    """What SITE checks and where MaxText defines it, in a form that is equal at two releases
    exactly when the check is: the function that raises (not its file or line, which move), the
    message as the source writes it, the condition over the keys (derived values inlined, before
    they are named, as names are numbered per release) and the reasons of the ways no rule can state."""
    parts = [site.owner, site.message_source or site.message, "" if cond is None else ast.unparse(cond),
             *sorted({way.reason for way in unknown})]
    return "\n".join(parts)


def stable_rule_id(check: str, taken: set[str] = frozenset(), prefix: str = "MX") -> str:
    """PREFIX (`MX` for MaxText's validators, `TX` for Tunix's checks) and ID_CHARS characters of a
    hash of CHECK (check_identity): one id for one check at every release. An id TAKEN already (a
    second raise of one function that checks the same thing, such as two divisions by one key;
    later in source order) hashes the check with its ordinal."""
    occurrence = 1
    while True:
        text = check if occurrence == 1 else f"{check}\n#{occurrence}"
        number = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> (64 - 5 * ID_CHARS)
        rule_id = prefix + "".join(_ID_ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(ID_CHARS)))
        if rule_id not in taken:
            return rule_id
        occurrence += 1


def _derived_names(walker: Walker) -> dict[int, str]:
    names: dict[int, str] = {}
    taken = set(walker.keys) | {NUM_DEVICES, LIVE_SLICES}
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
        derived[name] = condition_text(rewritten)
        pending.extend(sorted(inner.used - set(derived)))
    for name, texts in sorted(walker.message_values.items()):
        # A local a message names, computed from keys the same way wherever it is named (and named
        # so nowhere else): the finding can say its value.
        if len(texts) == 1 and name not in derived and name not in by_name and name not in walker.keys:
            (text,) = texts
            if _reads_only(text, set(walker.keys) | set(derived)):
                derived[name] = text
    for kind in SCALE_KINDS:
        if any(f"{kind}_factor" in text for text in derived.values()):
            derived[f"{kind}_factor"] = scale_factors(kind)
    return dict(sorted(derived.items()))


def _reads_only(text: str, names: set[str]) -> bool:
    try:
        return set(parse(text).names()) <= names
    except ExprError:
        return False


def _rule(rule_id: str, site: Site, message: str, cond: ast.expr, version: str, pin: str | None) -> dict:
    rule: dict[str, Any] = {"id": rule_id, "title": _title(site, message), "severity": "error",
                            "pins": [pin or f"maxtext-{version}"]}
    when, require = _split(cond)
    if when is not None:
        rule["when"] = condition_text(when)
    rule["require"] = condition_text(require)
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
        dumps = {shape_id(p) for p in parts}
        absorbed = any(
            j != i and {shape_id(p) for p in other} <= dumps and ({shape_id(p) for p in other} != dumps or j < i)
            for j, other in enumerate(cases)
        )
        if not absorbed:
            kept.append(parts)
    return disj([conj(parts) for parts in kept])


def _split(cond: ast.expr) -> tuple[ast.expr | None, ast.expr]:
    """when/require for `not cond`: the conjuncts every case shares become the precondition."""
    cases = [_conjuncts(c) for c in _disjuncts(cond)]
    common = [p for p in cases[0] if all(any(shape_id(p) == shape_id(q) for q in other) for other in cases[1:])]
    if len(cases) == 1:
        common = common[:-1]
    rest = [[p for p in case if not any(shape_id(p) == shape_id(c) for c in common)] for case in cases]
    require = conj([neg(conj(r)) for r in rest])
    return (conj(common) if common else None), require


def _implies(a: ast.expr, b: ast.expr) -> bool:
    """A small, sound test that A implies B: the same expression, or comparisons of one operand
    with constants, decided at the constants' boundary points."""
    if shape_id(a) == shape_id(b):
        return True
    if not (isinstance(a, ast.Compare) and isinstance(b, ast.Compare) and len(a.ops) == len(b.ops) == 1):
        return False
    if shape_id(a.left) != shape_id(b.left):
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
            if PY_COMPARE[type(a.ops[0])](x, va) and not PY_COMPARE[type(b.ops[0])](x, vb):
                return False
        except TypeError:
            continue
    return True


def _unexpressible(rule_id: str, site: Site, message: str, reason: str) -> dict:
    return {"id": rule_id, "site": site.source, "message": message, "reason": reason}


def _not_judged_when(site: Site, ways: list[Unexpressible], reads: KeyReads, namer: _Namer, keys: set[str]) -> dict:
    """When a check reports SITE as not judged: `keys`, the keys it reads, of which the config
    sets one, and `when`, what the rule language can state of the WAYS to it that it cannot (each
    one's `given`; a way without one makes it hold always)."""
    given = _simplify([TRUE if way.given is None else way.given for way in ways])
    entry: dict[str, Any] = {"keys": sorted(reads.at(site.file, site.line) | (names_in(given) & keys))}
    when = condition_text(namer.visit(copy.deepcopy(given)))
    if not (isinstance(given, ast.Constant) and given.value) and len(when) <= MAX_CONDITION_CHARS:
        entry["when"] = when
    return entry


def _title(site: Site, message: str) -> str:
    text = " ".join(message.split())
    first = text.split(". ")[0].rstrip(".")
    if len(first) > 90:
        first = first[:87].rstrip() + "..."
    return first or site.owner.split(".")[-1].replace("_", " ")


def reason_category(reason: str) -> str:
    return reason.split(":")[0].split(" (")[0]


def write_rules(source: str | Path, out_dir: str | Path, pin: str | None = None,
                schema: MaxTextSchemaFile | None = None) -> dict[str, int]:
    """Write rules.yml, derived.yml and unexpressible.yml for the MaxText at SOURCE into OUT_DIR;
    return the counts (sites, rules, unexpressible by reason)."""
    found = extract(source, pin, schema)
    rules, derived, unexpressible = found.rules, found.derived, found.unexpressible
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    header = f"# Generated by `flaglint schema import` from maxtext {found.version}; do not edit.\n"
    _dump_yaml(out / "rules.yml", header, {"rules": rules})
    _dump_yaml(out / "derived.yml", header + DERIVED_NOTE, {"derived": derived})
    _dump_yaml(out / "unexpressible.yml", header, {"rules": [], "unexpressible": unexpressible})
    counts = Counter(reason_category(u["reason"]) for u in unexpressible)
    crash_rules = sum(1 for r in rules if "crashes" in r["rationale"])
    return {"sites": found.sites, "checks": found.checks, "rules": len(rules),
            "check_rules": len(rules) - crash_rules, "crash_rules": crash_rules,
            "safe_divisions": len(found.safe_divisions), "unexpressible": len(unexpressible),
            "device_rules": sum(1 for r in rules if _mentions(r, NUM_DEVICES, derived)),
            **{f"unexpressible: {k}": v for k, v in sorted(counts.items())}}


def _mentions(rule: dict, name: str, derived: dict[str, str]) -> bool:
    """Whether RULE reads NAME, directly or through derived values."""
    seen: set[str] = set()
    texts = [rule.get("when", ""), rule["require"]]
    while texts:
        names = names_in(ast.parse(texts.pop() or "True", mode="eval"))
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

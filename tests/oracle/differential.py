"""Flag strings drawn with hypothesis around the rules' boundaries, and flaglint's verdict on them
next to the real MaxText's. Shared by tests/oracle/test_differential.py and bench/agreement_bench.py.

Each string sets keys of one loaded rule (boundary ints, booleans, enum values, the rule's own
literals, wrong types), plus some of: keys of another rule, a near-miss spelling of a key, a key
repeated with another value, and any MaxText key set to its default in another spelling or to a
value of the wrong type. Only MaxText keys, no Tunix variables; one bundled release's pin
(maxtext-0.2.5 unless told another).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import hypothesis
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from maxtext_env import maxtext_tree, maxtext_wheel

from flaglint.core.findings import Result
from flaglint.frontends.checker import Checker
from flaglint.pins.pins import PinSchema, bundled_pins, load_pin, not_judged
from flaglint.pins.register import register
from flaglint.read.flags import FlagSource
from flaglint.rules.expr import Node
from flaglint.rules.ruleset import load_ruleset
from flaglint.schema.model import KeySchema
from flaglint.solve.rules import rule_names

PIN = "maxtext-0.2.5"
DISAGREEMENTS = Path(__file__).resolve().parents[1] / "disagreements.yml"

_WRONG = {
    "bool": ["2", "1.5", "abc", "[1]", "none"],
    "int": ["1.5", "abc", "[1,2]", "none", ".inf", "2.5e3"],
    "float": ["abc", "[1]", "none", "x1"],
    "str": ["123", "true", "[a,b]", "1.5", "{a: 1}", "none"],
    "enum": ["bogus", "1", "none", "true"],
    "literal": ["bogus", "1", "true"],
    "list": ["x", "1", "true"],
}
_BOOL_SPELLINGS = {True: ["true", "True", "TRUE", "yes", "on", "1", "'true'", "1.0"], False: ["false", "False", "no", "off", "0", "'false'"]}


def _constants(node: Node | None, into: set) -> set:
    if node is None:
        return into
    if node.op == "const":
        values = node.value if isinstance(node.value, tuple) else (node.value,)
        into.update(v for v in values if isinstance(v, (bool, int, float, str)))
    for arg in node.args:
        if isinstance(arg, Node):
            _constants(arg, into)
    return into


def _spellings(schema: KeySchema, value: Any) -> list[str]:
    """Ways to write `value` on the command line that MaxText types back to `value` for this key."""
    if value is None:
        return ["none", "None", "null", "~", ""] if schema.nullable else []
    if isinstance(value, bool):
        return _BOOL_SPELLINGS[value] if schema.kind in ("bool", "any") else []
    if isinstance(value, int):
        if schema.kind != "int":
            return [str(value)]
        return [str(value), f"{value}.0", f"'{value}'"] + ([f"0x{value:x}", f"{value:_}"] if value > 1000 else [])
    if isinstance(value, float):
        if not math.isfinite(value):
            return []
        return [repr(value)] + ([str(int(value))] if value.is_integer() else [])
    if isinstance(value, str):
        if value == "":
            return ["''"]
        return [value] if not any(c.isspace() for c in value) else []
    if isinstance(value, list) and all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in value):
        return ["[" + ",".join(str(v) for v in value) + "]"]
    return []


def release_pin(version: str) -> str | None:
    """The pin of MaxText VERSION: bundled, else its wheel imported into the user pin store (point
    XDG_CACHE_HOME at a scratch folder first); None when the wheel cannot be had."""
    if f"maxtext-{version}" in bundled_pins():
        return f"maxtext-{version}"
    wheel = maxtext_wheel(version)
    return None if wheel is None else register(wheel).name


def tree_pin(git_dir: str | Path, commit: str) -> str | None:
    """The pin of the MaxText tree of GIT_DIR at COMMIT (a full sha), imported into the user pin
    store under the commit's name; None when the tree cannot be written out."""
    tree = maxtext_tree(git_dir, commit)
    return None if tree is None else register(tree, name=commit).name


@dataclass
class ConfigSpace:
    """The keys the loaded rules involve, and the candidate values of every key."""

    pin: PinSchema
    groups: list[list[str]] = field(default_factory=list)  # the MaxText keys of each applicable rule
    literals: dict[str, set] = field(default_factory=dict)

    @classmethod
    def for_pin(cls, pin_name: str = PIN, not_judged_checks: bool = False) -> ConfigSpace:
        """With NOT_JUDGED_CHECKS, also the keys of each check of MaxText's that no rule states
        (the pin's unexpressible list), so that a draw reaches what flaglint reports as not judged."""
        pin = load_pin(pin_name)
        space = cls(pin)
        for rule in load_ruleset(pin.rules).rules:
            if not rule.builtin and rule.applies_to(pin.chain):
                space._add([n for n in rule_names(rule) if n in pin.keys], _constants(rule.require, _constants(rule.when, set())))
        for check in not_judged(pin.rules) if not_judged_checks else ():
            space._add([k for k in check.keys if k in pin.keys], _constants(check.when, set()))
        return space

    def _add(self, keys: list[str], constants: set) -> None:
        if keys:
            self.groups.append(keys)
            for key in keys:
                self.literals.setdefault(key, set()).update(constants)

    @cached_property
    def rule_keys(self) -> list[str]:
        return sorted({k for group in self.groups for k in group})

    @cached_property
    def all_keys(self) -> list[str]:
        return sorted(k for k, s in self.pin.keys.items() if s.kind != "dict")

    def boundary_values(self, key: str) -> list[str]:
        """Values around the key's bounds, choices, default and the rules' literals."""
        schema = self.pin.keys[key]
        default = self._default(key)
        values: set[str] = set(_spellings(schema, default))
        numbers = [b for b in (schema.ge, schema.gt, schema.le, schema.lt) if b is not None]
        numbers += [v for v in self.literals.get(key, ()) if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            numbers.append(default)
        if schema.kind == "bool":
            values |= {"true", "false"}
        elif schema.kind == "int":
            values |= {str(int(n) + d) for n in numbers if math.isfinite(n) for d in (-1, 0, 1)} | {"0", "1", "2", "-1", "4"}
        elif schema.kind == "float":
            values |= {repr(float(n) + d) for n in numbers for d in (-1.0, 0.0, 0.5)} | {"0", "1.5", "2.75", "-1"}
        elif schema.kind in ("enum", "literal"):
            values |= {spelled for c in schema.choices or () for spelled in _spellings(schema, c)}
        elif schema.kind == "str":
            values |= {"x", "abc"} | {v for v in self.literals.get(key, ()) if isinstance(v, str) and v and " " not in v}
        if schema.nullable:
            values |= {"none", "null"}
        return sorted(values)

    def wrong_values(self, key: str) -> list[str]:
        schema = self.pin.keys[key]
        wrong = [v for v in _WRONG.get(schema.kind, []) if not (schema.nullable and v == "none")]
        if schema.kind in ("enum", "literal"):
            wrong += [str(c).upper() for c in schema.choices or () if str(c).upper() != str(c)][:2]
        if not schema.nullable and schema.kind in ("str", "enum", "literal"):
            wrong.append("")
        return wrong or ["[1]"]

    def default_spellings(self, key: str) -> list[str]:
        return _spellings(self.pin.keys[key], self._default(key))

    def _default(self, key: str) -> Any:
        try:
            return self.pin.default(key)
        except Exception:  # noqa: BLE001 - flaglint cannot type this key (a bug the checks then report)
            return self.pin.keys[key].default


def _near_miss(key: str, position: int, edit: int, known: dict) -> str:
    at = position % len(key)
    candidates = [
        key[:at] + key[at + 1 :],  # a letter dropped
        key[:at] + key[at + 1 : at + 2] + key[at : at + 1] + key[at + 2 :],  # two letters swapped
        key.replace("_", "-", 1),
        key + "s",
        key.upper(),
    ]
    spelled = candidates[edit % len(candidates)]
    return spelled if spelled not in known and spelled else key + "_x"


def flag_strings(space: ConfigSpace) -> st.SearchStrategy[str]:
    @st.composite
    def draw_flags(draw) -> str:
        def value(key: str) -> str:
            pool = space.wrong_values(key) if draw(st.integers(0, 19)) == 19 else space.boundary_values(key)
            return draw(st.sampled_from(pool))

        group = draw(st.sampled_from(space.groups))
        keys = draw(st.lists(st.sampled_from(group), min_size=1, max_size=min(4, len(group)), unique=True))
        tokens = [f"{key}={value(key)}" for key in keys]
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["rule", "rule", "near-miss", "repeat", "default", "wrong-type"]))
            if kind == "rule":
                key = draw(st.sampled_from(space.rule_keys))
                tokens.append(f"{key}={value(key)}")
            elif kind == "near-miss":
                key = draw(st.sampled_from(space.rule_keys))
                typo = _near_miss(key, draw(st.integers(0, 60)), draw(st.integers(0, 4)), space.pin.keys)
                tokens.append(f"{typo}={value(key)}")
            elif kind == "repeat":
                key = draw(st.sampled_from(tokens)).split("=", 1)[0]
                known = key in space.pin.keys
                tokens.insert(draw(st.integers(0, len(tokens))), f"{key}={value(key) if known else 'true'}")
            else:
                key = draw(st.sampled_from(space.all_keys))
                pool = space.default_spellings(key) if kind == "default" else space.wrong_values(key)
                if pool:
                    tokens.append(f"{key}={draw(st.sampled_from(pool))}")
        return " ".join(tokens)

    return draw_flags()


def draw_configs(n: int, space: ConfigSpace | None = None, pin: str = PIN, not_judged_checks: bool = False) -> list[str]:
    """`n` distinct flag strings for PIN, the same ones on every run (hypothesis, derandomized)."""
    space = space or ConfigSpace.for_pin(pin, not_judged_checks)
    drawn: dict[str, None] = {}

    @settings(max_examples=3 * n, derandomize=True, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(flag_strings(space))
    def collect(flags: str) -> None:
        if len(drawn) < n:
            drawn[flags] = None

    collect()
    return list(drawn)


@dataclass(frozen=True)
class FlaglintVerdict:
    rejects: bool | None  # None: flaglint crashed
    description: str
    fixes: tuple[str, ...] = ()
    not_judged: bool = False  # a MaxText check flaglint cannot judge reads a key the flags set (FL016, a warning)

    @classmethod
    def of(cls, result: Result) -> FlaglintVerdict:
        errors = [f for f in result.findings if f.severity == "error"]
        description = "rejects: " + "; ".join(f"{f.rule} {f.message}" for f in errors) if errors else "accepts"
        return cls(bool(errors), description, tuple(fix.flags for fix in result.fixes), any(f.rule == "FL016" for f in result.findings))


def flaglint_verdict(checker: Checker, flags: str, *, fix: bool = True) -> FlaglintVerdict:
    try:
        return FlaglintVerdict.of(checker.check(FlagSource(flags), fix=fix))
    except Exception as err:  # noqa: BLE001 - a crash is a disagreement to report, not the end of the run
        return FlaglintVerdict(None, f"crashes: {type(err).__name__}: {err}")


@dataclass
class Case:
    flags: str
    flaglint: FlaglintVerdict
    maxtext: Any  # flaglint.frontends.check.confirm.Verdict

    @property
    def agrees(self) -> bool:
        return self.flaglint.rejects == (not self.maxtext.ok)

    def as_entry(self) -> dict[str, str]:
        return {"flags": self.flags, "flaglint": self.flaglint.description[:300], "maxtext": self.maxtext.describe()}


@dataclass(frozen=True)
class Figures:
    """Agreement over some cases, with recall (of the configs MaxText rejects, the share flaglint
    rejects) and specificity (of those it accepts, the share flaglint accepts)."""

    cases: int
    agreed: int
    rejected: int  # by MaxText
    caught: int  # of those, rejected by flaglint
    accepted: int  # by MaxText
    passed: int  # of those, accepted by flaglint

    @property
    def agreement(self) -> float:
        return self.agreed / max(1, self.cases)

    @property
    def recall(self) -> float:
        return self.caught / max(1, self.rejected)

    @property
    def specificity(self) -> float:
        return self.passed / max(1, self.accepted)

    def __str__(self) -> str:
        return (f"agreement {self.agreed}/{self.cases} = {self.agreement:.2%}, recall {self.recall:.2%} "
                f"(of {self.rejected} MaxText rejects), specificity {self.specificity:.2%} (of {self.accepted} MaxText accepts)")


def figures(cases: list[Case]) -> Figures:
    rejected = [c for c in cases if not c.maxtext.ok]
    accepted = [c for c in cases if c.maxtext.ok]
    return Figures(len(cases), sum(c.agrees for c in cases), len(rejected), sum(c.flaglint.rejects is True for c in rejected),
                   len(accepted), sum(c.flaglint.rejects is False for c in accepted))


@dataclass
class Listed:
    """The committed disagreement list of one pin: the explained classes (shared by the releases),
    that pin's entries by flag string, and the hypothesis version that drew them (another version
    draws other configs)."""

    classes: dict[str, dict]
    entries: dict[str, dict]
    hypothesis: str | None


def load_disagreements(path: Path = DISAGREEMENTS, pin: str = PIN) -> Listed:
    """An entry without `pin` is maxtext-0.2.5's."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    classes = {str(name): dict(spec) for name, spec in (data.get("classes") or {}).items()}
    entries = {str(e["flags"]): e for e in data.get("disagreements") or [] if e.get("pin", PIN) == pin}
    return Listed(classes, entries, data.get("drawn_with_hypothesis"))


def matches(case: Case, spec: dict) -> bool:
    """Whether a case fits a class: its `flags`, `flaglint` and `maxtext` patterns (regex) match."""
    entry = case.as_entry()
    return all(re.search(spec[part], entry[part]) for part in ("flags", "flaglint", "maxtext") if spec.get(part))


def classify(case: Case, classes: dict[str, dict]) -> str | None:
    return next((name for name, spec in classes.items() if matches(case, spec)), None)


def write_disagreements(cases: list[Case], path: Path = DISAGREEMENTS, pin: str = PIN) -> int:
    """Rewrite PIN's entries from these cases, keeping the classes, the other pins' entries and the
    refused-fix classes; unclassified entries get class `unclassified`."""
    classes = load_disagreements(path).classes
    entries = [{**case.as_entry(), "class": classify(case, classes) or "unclassified", **({"pin": pin} if pin != PIN else {})}
               for case in cases if not case.agrees]
    text = path.read_text(encoding="utf-8")
    header = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    kept = [e for e in (yaml.safe_load(text) or {}).get("disagreements") or [] if e.get("pin", PIN) != pin]
    entries = kept + entries
    refused = (yaml.safe_load(text) or {}).get("refused_fixes") or {}
    data = {"drawn_with_hypothesis": hypothesis.__version__, "classes": classes, "disagreements": entries, "refused_fixes": refused}
    path.write_text(header + yaml.safe_dump(data, sort_keys=False, width=120, allow_unicode=True), encoding="utf-8")
    return len(entries)

"""Rule documentation generated from the rule data: `flaglint explain`, the rules' links and titles
in reports, and docs/rules.md (`python -m flaglint.report.rule_docs docs/rules.md` regenerates it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flaglint.core.data import data_dir
from flaglint.core.findings import InputError
from flaglint.pins.pins import NotJudged, PinSchema, bundled_pins, load_pin, not_judged
from flaglint.rules.expr import parse
from flaglint.rules.ruleset import Rule, RuleSet, load_ruleset


def docs_url(configured: str | None = None) -> str:
    """Where the rules' docs are: the `docs-url` setting (where a team publishes docs/rules.md, such
    as its repository's blob URL), else the docs/rules.md shipped with flaglint, as a file URI."""
    return configured or (data_dir("docs") / "rules.md").resolve().as_uri()


def rules_by_id(pin: str) -> dict[str, Rule]:
    """Rule id -> Rule for the pin's rules (all built-in rules when the pin is unknown), for reports."""
    try:
        rules = load_pin(pin).rules if pin else None
    except (InputError, OSError, ValueError):
        rules = None
    return {rule.id: rule for rule in load_ruleset(rules).rules}


@dataclass
class Listed:
    """A rule as `flaglint rules` and `explain` show it: its newest wording (or its wording at a pin),
    and the pins it was written for (None: every pin; an imported validator's releases, and the
    pins that extend them)."""

    rule: Rule
    pins: tuple[str, ...] | None
    ruleset: RuleSet  # the rules of the release of its wording

    @property
    def derived(self) -> dict[str, str]:
        """The derived values its condition names, and those they name in turn, with their definitions."""
        found: dict[str, str] = {}
        pending = [text for text in (self.rule.when_text, self.rule.require_text) if text]
        while pending:
            for name in parse(pending.pop()).names():
                if name in self.ruleset.derived_text and name not in found:
                    found[name] = self.ruleset.derived_text[name]
                    pending.append(found[name])
        return found


def _rule_sources(pin: PinSchema | None) -> list[str | Path]:
    """The imported rules of the bundled pins, oldest release first (and PIN's, an imported one)."""
    sources = list(dict.fromkeys(load_pin(name).rules for name in bundled_pins()))
    return sources + [pin.rules] if pin is not None and pin.rules not in sources else sources


def rule_catalogue(pin: PinSchema | None = None) -> dict[str, Listed]:
    """Every rule of the bundled pins (and of PIN, an imported one), by id: one id is one check at
    every pin, so an imported validator is listed once with every release that has it."""
    listed: dict[str, Listed] = {}
    for rules in _rule_sources(pin):
        ruleset = load_ruleset(rules)
        for rule in ruleset.rules:
            earlier = listed.get(rule.id)
            pins = rule.pins
            if earlier is not None and earlier.pins is not None and rule.pins is not None:
                pins = tuple(dict.fromkeys([*earlier.pins, *rule.pins]))
            listed[rule.id] = Listed(rule, pins, ruleset)
    return dict(sorted(listed.items()))


def rule_at(rule_id: str, pin: PinSchema) -> Listed | None:
    """RULE_ID as it is at PIN (its wording and derived values there) with every pin that has it;
    None when it does not apply there."""
    ruleset = load_ruleset(pin.rules)
    rule = ruleset.by_id(rule_id)
    if rule is None or not rule.applies_to(pin.chain):
        return None
    return Listed(rule, rule_catalogue(pin)[rule_id].pins, ruleset)


def not_judged_check(rule_id: str, pin: PinSchema | None = None) -> tuple[NotJudged, tuple[str, ...]] | None:
    """A check of MaxText's that no rule states (FL016 names it by its id), as the newest bundled
    release (or PIN) has it, with the releases that have it; None when none does."""
    sources = [pin.rules] if pin is not None else _rule_sources(None)
    found = [(rules, entry) for rules in sources for entry in not_judged(rules) if entry.id == rule_id]
    if not found:
        return None
    pins = tuple(pin.pin if pin is not None else f"maxtext-{rules}" for rules, _ in found)
    return found[-1][1], pins


_NOT_JUDGED_TITLE = "a check of MaxText's that no rule states"
_NOT_JUDGED_RATIONALE = ("flaglint cannot judge it from the flags. Where a config sets a key it reads, FL016 says so: "
                         "a warning, an error in gate unless --allow-unverified.")


def not_judged_json(entry: NotJudged, pins: tuple[str, ...]) -> dict[str, str | list[str]]:
    """`flaglint explain --format json` of a check no rule states: what FL016 says of it."""
    facts = {"id": entry.id, "title": _NOT_JUDGED_TITLE, "reason": entry.reason, "rationale": _NOT_JUDGED_RATIONALE,
             "keys": list(entry.keys), "when": entry.when_text, "pins": list(pins), "message": entry.message, "source": entry.site}
    return {name: value for name, value in facts.items() if value is not None}


def explain_not_judged(entry: NotJudged, pins: tuple[str, ...]) -> str:
    """`flaglint explain` of a check no rule states."""
    lines = [f"{entry.id}: {_NOT_JUDGED_TITLE} ({entry.reason})", "", _NOT_JUDGED_RATIONALE, ""]
    sections = [("Keys", ", ".join(entry.keys)), ("When", entry.when_text), ("Pins", f"{', '.join(pins)} and the pins that extend them"),
                ("Message", entry.message), ("Source", entry.site)]
    lines += [f"{label + ':':9}{text}" for label, text in sections if text]
    return "\n".join(lines)


def pins_cell(pins: tuple[str, ...] | None) -> str:
    """The pins column: `all`, or the pins with the releases' versions after one `maxtext-`."""
    if pins is None:
        return "all"
    releases = [p.removeprefix("maxtext-") for p in pins if p.startswith("maxtext-")]
    others = [p for p in pins if not p.startswith("maxtext-")]
    return ",".join([*(["maxtext-" + ",".join(releases)] if releases else []), *others])


def rule_url(rule_id: str, base: str | None = None) -> str:
    """The rule's section of the generated docs (imported MaxText validators share one section);
    `base`: the `docs-url` setting."""
    anchor = rule_id.lower() if rule_id.startswith("FL") else "imported-maxtext-validators"
    return f"{docs_url(base)}#{anchor}"


def _example(example) -> str:
    if isinstance(example, str):
        return f"`{example}`" if example else "(empty)"
    parts = []
    if example.get("tunix"):
        parts.append(f"Tunix command line `{example['tunix']}`")
    if example.get("flags"):
        parts.append(f"flags `{example['flags']}`")
    if example.get("env"):
        parts.append("env `" + " ".join(f"{k}={v}" for k, v in example["env"].items() if k != "__line__") + "`")
    if example.get("config"):
        parts.append(f"config `{example['config']}`")
    for key in ("pin", "model", "config_class"):
        if example.get(key):
            parts.append(f"{key} `{example[key]}`")
    return ", ".join(parts) or "(defaults)"


def _sections(rule: Rule, code: str = "{}", pins: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
    """The rule's documented facts as (label, text), in the order the docs show them; PINS: the pins
    it has (default: those of its entry)."""
    pins = rule.pins if pins is None else pins
    sections = []
    if rule.when_text:
        sections.append(("When", code.format(rule.when_text)))
    if rule.require_text:
        sections.append(("Require", code.format(rule.require_text)))
    if pins:
        sections.append(("Pins", f"{', '.join(pins)} and the pins that extend them"))
    if rule.stage:
        sections.append(("Stage", rule.stage))
    sections.append(("Message", code.format(rule.message)))
    sections += [("States", f"MaxText's check {code.format(text)}…, which its import cannot state") for text in rule.states]
    sections += [(f"Message ({variant})", code.format(text)) for variant, text in rule.messages.items()]
    sections += [(kind.capitalize(), _example(rule.examples[kind])) for kind in ("bad", "good") if kind in rule.examples]
    if rule.fix:
        sections.append(("Fix", rule.fix))
    sections.append(("Source", rule.source))
    return sections


def _severity(rule: Rule) -> str:
    graded = [f"{rule.unverified_severity} with --allow-unverified"] if rule.unverified_severity else []
    graded += [f"{rule.fail_closed_severity} in gate unless --allow-unverified"] if rule.fail_closed_severity else []
    return "; ".join([rule.severity, *graded])


def explain_rule(rule: Rule, listed: Listed | None = None) -> str:
    """The text of `flaglint explain`; LISTED: the rule across pins (the pins it has, the derived
    values it names)."""
    lines = [f"{rule.id}: {rule.title} ({_severity(rule)})", "", rule.rationale, ""]
    sections = _sections(rule, pins=listed.pins if listed else rule.pins)
    if listed and listed.derived:
        where = [f"{name} = {' '.join(text.split())}" for name, text in listed.derived.items()]
        sections.insert(2 if rule.require_text and rule.when_text else 1, ("Where", "\n".join(where)))
    width = max(9, *(len(label) + 2 for label, _ in sections))
    for label, text in sections:
        first, *rest = text.split("\n")
        lines += [f"{label + ':':{width}}{first}", *(" " * width + more for more in rest)]
    return "\n".join(lines)


def rule_json(rule: Rule, listed: Listed | None = None) -> dict:
    """`flaglint explain --format json`: what the text shows, as data (a field without a value is left out)."""
    pins = listed.pins if listed else rule.pins
    data = {
        "id": rule.id, "title": rule.title, "severity": rule.severity,
        "severity_with_allow_unverified": rule.unverified_severity,
        "severity_in_gate": rule.fail_closed_severity,
        "rationale": rule.rationale, "pins": list(pins) if pins else None, "stage": rule.stage,
        "when": rule.when_text, "require": rule.require_text, "where": listed.derived if listed else None,
        "message": rule.message, "messages": rule.messages, "states": list(rule.states),
        "examples": _without_lines(rule.examples), "fix": rule.fix, "source": rule.source,
    }
    return {name: value for name, value in data.items() if value not in (None, {}, [])} | {"fixable": rule.fixable}


def _without_lines(value):
    """VALUE without the `__line__` entries the rule loader adds to mappings, for its errors."""
    if isinstance(value, dict):
        return {k: _without_lines(v) for k, v in value.items() if k != "__line__"}
    return value


def rules_markdown(ruleset: RuleSet) -> str:
    out = ["# flaglint rules", "", "Generated from `rules/*.yml` by `python -m flaglint.report.rule_docs`; do not edit by hand.", ""]
    out += ["| id | severity | title |", "|---|---|---|"]
    hand_written = [r for r in ruleset.rules if r.id.startswith("FL")]
    out += [f"| [{r.id}](#{r.id.lower()}) | {r.severity} | {r.title} |" for r in hand_written]
    for rule in hand_written:
        out += ["", f"## {rule.id}", "", f"**{rule.title}** ({_severity(rule)})", "", rule.rationale, ""]
        out += [f"- {label}: {text}" for label, text in _sections(rule, "`{}`")]
    imported = [r for r in ruleset.rules if not r.id.startswith("FL")]
    if imported:
        out += ["", "## Imported MaxText validators", "",
                f"{len(imported)} rules imported from MaxText's own validators by `flaglint schema import`; "
                "`flaglint explain ID` shows each one, and `flaglint rules` lists them with the pins each applies at. "
                "An id is one check at every pin ([rule-ids.md](rule-ids.md)).", ""]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 2 or len(sys.argv) == 2 and sys.argv[1].startswith("-"):
        sys.exit("usage: python -m flaglint.report.rule_docs [TARGET.md]  (default docs/rules.md)")
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/rules.md")
    target.write_text(rules_markdown(load_ruleset("0.2.5")), encoding="utf-8")

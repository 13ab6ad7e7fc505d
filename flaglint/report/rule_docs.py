"""Rule documentation generated from the rule data: `flaglint explain`, the rules' links and titles
in reports, and docs/rules.md (`python -m flaglint.report.rule_docs docs/rules.md` regenerates it)."""

from __future__ import annotations

from flaglint.core.data import data_dir
from flaglint.core.findings import InputError
from flaglint.pins.pins import load_pin
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
    for key in ("pin", "model"):
        if example.get(key):
            parts.append(f"{key} `{example[key]}`")
    return ", ".join(parts) or "(defaults)"


def _sections(rule: Rule, code: str = "{}") -> list[tuple[str, str]]:
    """The rule's documented facts as (label, text), in the order the docs show them."""
    sections = []
    if rule.when_text:
        sections.append(("When", code.format(rule.when_text)))
    if rule.require_text:
        sections.append(("Require", code.format(rule.require_text)))
    if rule.pins:
        sections.append(("Pins", f"{', '.join(rule.pins)} and the pins that extend them"))
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


def explain_rule(rule: Rule) -> str:
    lines = [f"{rule.id}: {rule.title} ({_severity(rule)})", "", rule.rationale, ""]
    sections = _sections(rule)
    width = max(9, *(len(label) + 2 for label, _ in sections))
    lines += [f"{label + ':':{width}}{text}" for label, text in sections]
    return "\n".join(lines)


def rule_json(rule: Rule) -> dict:
    """`flaglint explain --format json`: the rule's metadata, as the registry holds it."""
    return {
        "id": rule.id, "title": rule.title, "severity": rule.severity, "message": rule.message,
        "rationale": rule.rationale, "fix": rule.fix, "source": rule.source,
        "pins": list(rule.pins) if rule.pins else None, "when": rule.when_text, "require": rule.require_text,
        "examples": rule.examples, "builtin": rule.builtin, "fixable": rule.fixable, "messages": rule.messages,
        "refused_value": rule.refused_value, "unverified_severity": rule.unverified_severity,
        "fail_closed_severity": rule.fail_closed_severity,
        "flag_string_only": rule.flag_string_only, "states": list(rule.states),
    }


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
                "`flaglint explain ID` shows each one.", ""]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import sys
    from pathlib import Path

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/rules.md")
    target.write_text(rules_markdown(load_ruleset("0.2.5")), encoding="utf-8")

"""docs/rules.md is generated from the rule data; this fails when it is out of date."""

from __future__ import annotations

from pathlib import Path

from flaglint.report.rule_docs import rules_markdown
from flaglint.rules.ruleset import load_ruleset

DOCS = Path(__file__).parents[2] / "docs" / "rules.md"


def test_rules_md_is_up_to_date():
    expected = rules_markdown(load_ruleset("0.2.5"))
    assert DOCS.read_text(encoding="utf-8") == expected, "docs/rules.md is stale: run `python -m flaglint.report.rule_docs docs/rules.md`"


def test_every_hand_written_rule_has_a_section():
    text = DOCS.read_text(encoding="utf-8")
    for rule in load_ruleset("0.2.5").rules:
        if rule.id.startswith("FL"):
            assert f"\n## {rule.id}\n" in text and rule.title in text

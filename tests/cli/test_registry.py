"""The rule registry: every finding flaglint can emit has an entry with its metadata, and the docs,
`flaglint rules` and `flaglint explain` are made from those entries."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from commandline import run_flaglint as invoke
from flaglint.config import known_rule_ids
from flaglint.ruleset import load_ruleset

PACKAGE = Path(__file__).resolve().parents[2] / "flaglint"
_CARRIED = {"rule.id", "finding.rule"}
REGISTRY = {rule.id: rule for rule in load_ruleset("0.2.5").rules}


def _emitted_ids() -> dict[str, str]:
    """Every rule id the code writes into a Finding itself (rules from the data carry their own)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("Finding", "built_in") and node.args:
                first, where = node.args[0], f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
                if isinstance(first, ast.Attribute) and ast.unparse(first) in _CARRIED:
                    continue  # a data rule's own id, or a finding passed on with its id
                if isinstance(first, ast.Name) and first.id == "rule_id" and path.name == "ruleset.py":
                    continue  # built_in, whose callers write the id as a literal
                assert isinstance(first, ast.Constant), f"{where}: a Finding's rule id must be a literal the registry can be checked for"
                found[first.value] = where
    return found


def test_every_id_the_code_emits_is_a_registered_rule():
    emitted = _emitted_ids()
    assert {"FL001", "FL004", "FL005", "FL090"} <= set(emitted)
    missing = {rule_id: where for rule_id, where in emitted.items() if rule_id not in REGISTRY}
    assert not missing, f"findings without a registry entry (add them to rules/core.yml): {missing}"


def test_every_built_in_entry_is_emitted_somewhere():
    built_in = {rule.id for rule in REGISTRY.values() if rule.builtin}
    assert built_in == set(_emitted_ids()), "a built-in entry nothing emits, or an emitted id not marked builtin"


@pytest.mark.parametrize("rule", [r for r in REGISTRY.values() if r.id.startswith("FL")], ids=lambda r: r.id)
def test_every_entry_has_the_metadata_and_names_its_source_as_users_can_look_it_up(rule):
    assert rule.title and rule.severity and rule.rationale and rule.fix and rule.source and rule.examples
    for text in (rule.title, rule.message, rule.rationale, rule.fix, rule.source):
        assert not re.search(r"\b(seed|review|session|reference)\b", text, re.I), (rule.id, text)


def test_explain_shows_every_emitted_id_in_text_and_json():
    for rule_id in _emitted_ids():
        assert invoke("explain", rule_id).returncode == 0, rule_id
    payload = json.loads(invoke("explain", "--format", "json", "fl090").stdout)
    assert payload["id"] == "FL090" and payload["builtin"] and payload["fix"]
    gather = json.loads(invoke("explain", "--format", "json", "FL101").stdout)
    assert gather["require"] == "moe_chunk_pipeline" and "google/tunix#2884" in gather["source"]
    assert "AI-Hypercomputer/maxtext#5758" in gather["source"]


def test_the_docs_and_the_config_check_read_the_same_registry():
    docs = (PACKAGE.parent / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "\n## FL090\n" in docs
    assert set(REGISTRY) <= known_rule_ids()


def test_whether_an_edit_of_the_flags_can_remove_a_finding_is_registry_data():
    """The pin's own findings and the string's size stay whatever the fix does, so a fix is judged
    without them; the registry entry says so, and explain shows it."""
    assert {rule.id for rule in REGISTRY.values() if not rule.fixable} == {"FL007", "FL009"}
    assert json.loads(invoke("explain", "--format", "json", "FL009").stdout)["fixable"] is False
    assert json.loads(invoke("explain", "--format", "json", "FL004").stdout)["fixable"] is True

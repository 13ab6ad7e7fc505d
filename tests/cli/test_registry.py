"""The rule registry: every finding flaglint can emit has an entry with its metadata, and the docs,
`flaglint rules` and `flaglint explain` are made from those entries."""

from __future__ import annotations

import ast
import json
import re
from functools import cache

import pytest
from commandline import run_flaglint as invoke
from package_source import PACKAGE, package_modules

from flaglint.rules.ruleset import fill, load_ruleset
from flaglint.settings.settings import known_rule_ids

_CARRIED = {"rule.id", "finding.rule"}
REGISTRY = {rule.id: rule for rule in load_ruleset("0.2.5").rules}


@cache
def _emitted_ids() -> dict[str, str]:
    """Every rule id the code writes into a Finding itself (rules from the data carry their own)."""
    found = {}
    for path, _, tree in package_modules():
        for node in ast.walk(tree):
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
    text = invoke("explain", "--format", "json", "fl090").stdout
    payload = json.loads(text)
    assert payload["id"] == "FL090" and payload["fix"]
    # what a user reads, not how flaglint stores it: no loader line numbers, no implementation flags
    assert "__line__" not in text and not {"builtin", "refused_value", "flag_string_only"} & set(payload)
    examples = json.loads(invoke("explain", "--format", "json", "FL101").stdout)["examples"]
    assert examples["bad"] == {"flags": "moe_chunk_pipeline=false moe_roe_packed_routing_gather=true", "pin": "bbd0f6f10"}
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


_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:!r)?\}")
_OPTIONS = {"variant", "allow_unverified", "fail_closed"}


def _built_in_calls():
    for path, _, tree in package_modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "built_in" and node.args:
                yield f"{path.relative_to(PACKAGE.parent)}:{node.lineno}", node


def test_every_built_in_finding_is_worded_by_its_entry_with_the_fields_it_names():
    """A built-in check passes named fields; its entry's message (or the variant it names) says the
    sentence. Each field a message names is given, and no field is given that none names."""
    calls = list(_built_in_calls())
    assert len(calls) > 20
    for where, call in calls:
        rule = REGISTRY[call.args[0].value]
        keywords = {k.arg: k.value for k in call.keywords}
        variant = keywords.get("variant")
        # a literal variant, or a choice of literals (None: the entry's message)
        names = [n.value for n in ast.walk(variant) if isinstance(n, ast.Constant) and (n.value is None or isinstance(n.value, str))] \
            if variant is not None else [None]
        templates = [rule.messages[name] if name else rule.message for name in names]
        given = set(keywords) - _OPTIONS
        named = [set(_FIELD.findall(template)) for template in templates]
        assert all(fields <= given for fields in named), (where, templates, given)
        assert given <= set().union(*named), (where, templates, given)


def test_no_check_in_code_tests_a_rule_id_or_writes_a_severity():
    """Behaviour that depends on what a rule is reads a registry property (refused_value,
    unverified_severity, fixable, flag_string_only), never its id; severities come from the entries."""
    tests_id = re.compile(r"\.rule\s*(?:[!=]=|(?:not\s+)?in)\s*[(\[{]?\s*[\"']FL\d")
    writes_severity = re.compile(r"[\"'](?:error|warning|info)[\"']\s+if\b|Finding\(\s*[\"']FL")
    for path, text, _ in package_modules():
        for pattern in (tests_id, writes_severity):
            assert not pattern.search(text), f"{path.relative_to(PACKAGE.parent)}: {pattern.search(text)[0]!r}"


def test_the_rule_nature_properties_are_registry_data_and_explained():
    assert {r.id for r in REGISTRY.values() if r.refused_value} == {"FL005"}
    assert {r.id: r.unverified_severity for r in REGISTRY.values() if r.unverified_severity} == {"FL011": "warning"}
    assert {r.id: r.fail_closed_severity for r in REGISTRY.values() if r.fail_closed_severity} == {"FL016": "error"}
    assert {r.id: r.tunix_fix for r in REGISTRY.values() if r.tunix_fix} == {
        "FL201": "absl-word", "FL204": "unknown-key", "FL205": "env-conflict", "FL206": "coerce", "FL207": "retype",
        "FL208": "nested-key", "FL210": "builder-key", "FL212": "mesh", "FL218": "optimizer"}
    assert {r.id for r in REGISTRY.values() if r.flag_string_only} == {"FL012"}
    payload = json.loads(invoke("explain", "--format", "json", "FL011").stdout)
    assert payload["severity_with_allow_unverified"] == "warning" and "step_cap" in payload["messages"]


def test_a_message_part_in_brackets_is_said_only_when_its_fields_have_a_value():
    template = REGISTRY["FL004"].message
    assert fill(template, {"key": "k", "pin": "p", "close": "", "pins": ""}) == "k is not a key of MaxText p"
    assert fill(template, {"key": "k", "pin": "p", "close": "kk", "pins": "q"}) == "k is not a key of MaxText p; did you mean kk? (a key at q)"
    assert fill("{value!r} [x {value}]", {"value": "[a]"}) == "'[a]' x [a]"


def test_allow_unverified_downgrades_an_unverified_launch_as_its_entry_says(tmp_path):
    # a function that calls itself with no end: found at once (a loop is followed for 200,000 steps first)
    script = tmp_path / "recursion.sh"
    script.write_text('#!/bin/bash\nf() { f; }\nf\nexport MAXTEXT_EXTRA_FLAGS="log_period=10"\npython3 -m tunix.train\n')
    strict = json.loads(invoke("lint", "--format", "json", str(script)).stdout)
    allowed = json.loads(invoke("lint", "--format", "json", "--allow-unverified", str(script)).stdout)
    assert [f["severity"] for f in strict["findings"] if f["rule"] == "FL011"] == [REGISTRY["FL011"].severity]
    assert [f["severity"] for f in allowed["findings"] if f["rule"] == "FL011"] == [REGISTRY["FL011"].unverified_severity]

"""The data cache: a YAML data file read from the cache is what PyYAML reads, a changed file is
read again, data JSON cannot hold is never cached, and old entries are pruned."""

from __future__ import annotations

import os

import yaml

from flaglint.core import data_cache
from flaglint.rules.ruleset import load_ruleset


def test_a_cached_yaml_file_is_read_again_when_it_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "schema.yml"
    path.write_text("variables:\n  A: {kind: int, ge: 1}\n")
    assert data_cache.yaml_file(path) == {"variables": {"A": {"kind": "int", "ge": 1}}}
    assert list((tmp_path / "cache" / "flaglint").glob("yaml-*.json"))
    path.write_text("variables:\n  A: {kind: bool}\n  B: [1, 2]\n")
    os.utime(path, ns=(1, 1))  # a different size and time: a different entry
    assert data_cache.yaml_file(path) == yaml.safe_load(path.read_text())


def test_data_json_would_change_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "odd.yml"
    path.write_text("1: one\nwhen: 2024-01-01\n")
    assert data_cache.yaml_file(path) == yaml.safe_load(path.read_text())
    assert not list((tmp_path / "cache" / "flaglint").glob("yaml-*.json"))
    assert data_cache.yaml_file(path) == yaml.safe_load(path.read_text())


def test_only_the_newest_entries_of_a_kind_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "cache" / "flaglint"
    root.mkdir(parents=True)
    for number in range(data_cache.KEPT_ENTRIES + 10):
        stale = root / f"rules-{number:04d}.json"
        stale.write_text("{}")
        os.utime(stale, ns=(number, number))
    (root / "pins").mkdir()
    source = tmp_path / "rules.yml"
    source.write_text("rules: []\n")
    assert data_cache.cached("rules", [source], lambda: {"built": True}) == {"built": True}
    kept = sorted(p.name for p in root.glob("rules-*.json"))
    assert len(kept) == data_cache.KEPT_ENTRIES
    assert "rules-0000.json" not in kept and f"rules-{data_cache.KEPT_ENTRIES + 9:04d}.json" in kept
    assert (root / "pins").is_dir()


def test_a_rule_set_read_from_the_cache_is_the_one_parsed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    load_ruleset.cache_clear()
    try:
        parsed = load_ruleset("0.2.5")
        load_ruleset.cache_clear()
        read = load_ruleset("0.2.5")
    finally:
        load_ruleset.cache_clear()
    assert list((tmp_path / "cache" / "flaglint").glob("rules-*.txt"))
    assert read is not parsed and len(read.rules) == len(parsed.rules) > 300
    for ours, theirs in zip(read.rules, parsed.rules):
        assert (ours.when, ours.require, ours.names) == (theirs.when, theirs.require, theirs.names), ours.id
        assert ours == theirs, ours.id  # every field, the trees decoded above
    assert dict(read.derived) == dict(parsed.derived) and read.derived_text == parsed.derived_text

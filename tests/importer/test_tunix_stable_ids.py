"""Tunix's checks keep one id at every Tunix release, as MaxText's validators do (docs/rule-ids.md):
the id is a hash of the function that raises and what it checks, never its position. Judged on the
bundled releases' rules as written (each check read back from its data, independently of the hash),
on a toy tree whose checks move, and on old numbers (TXnnnn), read with a warning as the id they
stood for at the Tunix pin in use."""

from __future__ import annotations

import itertools
import shutil
from collections import defaultdict

import pytest
import yaml
from commandline import REPO, run_flaglint

from flaglint.importer.tunix import import_tunix
from flaglint.settings.settings import Settings, check_rule_ids

RULES = REPO / "rules" / "tunix"
RELEASES = tuple(f"0.1.{n}" for n in range(8))
TOY = REPO / "tests" / "fixtures" / "tunix_tree"
MODEL_SOURCE = "model_config.model_source=hf"
ARGV = ("--", "python", "-m", "tunix.cli.peft_main", "base_config.yaml", MODEL_SOURCE)

# libyaml's safe loader where PyYAML has it: every release's rule files are read as the tests are collected
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _checks(version: str) -> dict[str, str]:
    """id -> the check as the rule files state it: the function that raises (its file and line
    left out), its stage, and its condition or why no rule can state it."""
    checks = {}
    for name in ("rules.yml", "unexpressible.yml"):
        data = yaml.load((RULES / version / name).read_text(), Loader=_LOADER)
        for entry in [*data["rules"], *data.get("unexpressible", [])]:
            function = (entry.get("source") or entry["site"]).split(" ", 1)[1]
            checks[entry["id"]] = "\n".join(str(entry.get(k)) for k in ("stage", "when", "require", "reason")) + "\n" + function
    return checks


CHECKS = {version: _checks(version) for version in RELEASES}


@pytest.mark.parametrize(("old", "new"), list(itertools.pairwise(RELEASES)))
def test_one_check_has_one_id_at_every_pair_of_tunix_releases(old, new):
    ids_of: dict[str, dict[str, str]] = defaultdict(dict)
    for version in (old, new):
        for rule_id, check in CHECKS[version].items():
            ids_of[check][version] = rule_id
    shared = [by_version for by_version in ids_of.values() if len(by_version) == 2]
    assert shared, f"{old} and {new} share no check"
    assert all(by_version[old] == by_version[new] for by_version in shared)
    for rule_id in CHECKS[old].keys() & CHECKS[new].keys():
        assert CHECKS[old][rule_id] == CHECKS[new][rule_id], rule_id


def test_ids_are_tx_and_five_characters_and_one_per_check_of_a_pin():
    for version in RELEASES:
        assert len(set(CHECKS[version].values())) == len(CHECKS[version])
        for rule_id in CHECKS[version]:
            assert len(rule_id) == 7 and rule_id.startswith("TX") and not set(rule_id[2:]) & set("ILOU"), rule_id


def test_a_check_moved_to_another_line_keeps_its_id_and_a_changed_check_gets_a_new_one(tmp_path):
    def ids(tree) -> dict[str, str]:
        imported = import_tunix(tree)
        return {entry.get("source") or entry["site"]: entry["id"] for entry in [*imported.rules, *imported.unexpressible]}

    before = ids(TOY)
    moved = tmp_path / "moved"
    shutil.copytree(TOY, moved)
    config = moved / "tunix" / "cli" / "config.py"
    text = config.read_text()
    config.write_text(text.replace("  def _check_source(self, raw_keys):", "  # moved down three lines\n\n\n  def _check_source(self, raw_keys):"))
    after = ids(moved)
    assert sorted(before.values()) == sorted(after.values()) and before.keys() != after.keys()
    config.write_text(text.replace('raise ValueError("cache needed")', 'raise ValueError("cache needed")  # same check')
                          .replace('if source == "hub" and', 'if source == "disk" and'))
    changed = ids(moved)
    assert len(set(before.values()) - set(changed.values())) == 1  # only the check whose condition changed


@pytest.mark.parametrize("version", RELEASES)
def test_an_old_number_is_read_as_its_id_at_the_tunix_pin_with_a_warning(version):
    renumbered = yaml.load((RULES / "renumbered.yml").read_text(), Loader=_LOADER)[version]
    assert set(renumbered) == {f"TX{n:04d}" for n in range(1, len(renumbered) + 1)}
    # each number stands for one check of the release (a check the importer reads later has none)
    assert len(set(renumbered.values())) == len(renumbered) and set(renumbered.values()) <= set(CHECKS[version])
    old, new = next(iter(renumbered.items()))
    settings = Settings()
    settings.override("tunix-pin", f"tunix-{version}", "--tunix-pin")
    settings.override("ignore", [old], "--ignore")
    settings.override("severity", {old: "warning"}, "pyproject.toml")
    (ignored, graded) = check_rule_ids(settings)
    assert settings["ignore"] == [new] and settings["severity"] == {new: "warning"}
    assert f"{old} is the old number of {new} at tunix-{version} (ids of Tunix's checks" in ignored and f"write {new}" in graded


def test_an_old_number_on_the_command_line_selects_the_check_it_stood_for_at_the_tunix_pin():
    # TX0004 was model_source's choices at both pins; the choices differ (maxtext from 0.1.7), so the ids do
    for pin, new in (("0.1.7", "TX13FFD"), ("0.1.6", "TXJ1RNK")):
        done = run_flaglint("check", "--format", "json", "--tunix-pin", pin, "--select", "TX0004", *ARGV)
        assert done.returncode == 1 and f'"rule": "{new}"' in done.stdout, done.stdout
        # the option names itself once (not `--select: select:`)
        assert done.stderr.startswith(f"flaglint: warning: --select: TX0004 is the old number of {new} at tunix-{pin}")
        assert new not in run_flaglint("check", "--format", "json", "--tunix-pin", pin, "--ignore", new, *ARGV).stdout


def test_explain_reads_an_old_number_at_the_tunix_pin():
    done = run_flaglint("explain", "TX0004")
    assert done.returncode == 0 and done.stdout.startswith("TX13FFD: HyperParameters._validate_model_source")
    assert "TX0004 is the old number of TX13FFD at tunix-0.1.7" in done.stderr


def test_a_suppression_with_an_old_number_in_a_script_suppresses_the_check_and_says_its_id(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\n# flaglint: disable=TX0004 reason=\"an internal source\"\n"
                      f"python -m tunix.cli.peft_main base_config.yaml {MODEL_SOURCE}\n")
    done = run_flaglint("lint", "--select", "TX,FL022", "run.sh", cwd=tmp_path)
    assert "error TX13FFD" not in done.stdout and "error TXS96YR" in done.stdout  # the family's sources: not suppressed
    assert "run.sh:2:1: warning FL022 TX0004 is the old number of TX13FFD at tunix-0.1.7 (ids of Tunix's checks" in done.stdout

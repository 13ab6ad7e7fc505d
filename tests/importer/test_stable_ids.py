"""MaxText's validators keep one id at every release: the id is a hash of what the validator checks
and where MaxText defines it, never its position, so `--ignore`, suppressions and docs name one
check. Judged here on the bundled releases' rules as written, independently of the hash: each
rule's check is read back from its data (the function that raises, its message, its condition
with the derived values written out in full)."""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict

import pytest
import yaml
from commandline import run_flaglint
from maxtext_env import RELEASES, REPO

from flaglint.importer.validators import stable_rule_id
from flaglint.settings.settings import Settings, check_rule_ids

RULES = REPO / "rules" / "maxtext"


class _Inline(ast.NodeTransformer):
    def __init__(self, derived: dict[str, str]):
        self.derived = {name: ast.parse(text, mode="eval").body for name, text in derived.items()}

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.visit(self.derived[node.id]) if node.id in self.derived else node


# libyaml's safe loader where PyYAML has it: every release's rule files are read as the tests are collected
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _checks(version: str) -> dict[str, list[str]]:
    """Rule id -> what each of the release's validators (rules, and checks no rule states) with that id checks."""
    folder = RULES / version
    derived = yaml.load((folder / "derived.yml").read_text(), Loader=_LOADER)["derived"] or {}
    inline = _Inline({str(k): str(v) for k, v in derived.items()})
    checks: dict[str, list[str]] = defaultdict(list)
    for rule in yaml.load((folder / "rules.yml").read_text(), Loader=_LOADER)["rules"]:
        condition = [ast.dump(inline.visit(ast.parse(rule[part], mode="eval"))) for part in ("when", "require") if part in rule]
        checks[rule["id"]].append("\n".join(["rule", rule["source"].split()[-1], rule["message"], *condition]))
    for entry in yaml.load((folder / "unexpressible.yml").read_text(), Loader=_LOADER)["unexpressible"]:
        checks[entry["id"]].append("\n".join(["not stated", entry["site"].split()[-1], entry["message"], entry["reason"]]))
    return checks


CHECKS = {version: _checks(version) for version in RELEASES}
OLD_LAYOUT = ("0.1.0",)  # the MaxText/ package
# the releases flaglint 0.1 numbered (MX0001 …); 0.1.0 came with the ids
NUMBERED = tuple(yaml.load((RULES / "renumbered.yml").read_text(), Loader=_LOADER))


@pytest.mark.parametrize("old, new", list(itertools.combinations(RELEASES, 2)))
def test_one_check_has_one_id_at_every_pair_of_releases(old, new):
    ids_of: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for version in (old, new):
        for rule_id, checks in CHECKS[version].items():
            for check in checks:
                ids_of[check][version].add(rule_id)
    shared = [check for check, by_version in ids_of.items() if len(by_version) == 2]
    # 0.1.0's checks are functions of MaxText/pyconfig.py; 0.2.0 moved every one into the classes
    # of configs/types.py, so no function raises at both sides of that move
    assert shared or old in OLD_LAYOUT, f"{old} and {new} share no validator"
    for check in shared:
        assert ids_of[check][old] == ids_of[check][new], check
    for rule_id in CHECKS[old].keys() & CHECKS[new].keys():
        assert set(CHECKS[old][rule_id]) == set(CHECKS[new][rule_id]), rule_id


def test_an_id_names_one_check_across_every_release():
    checks_of: dict[str, set[str]] = defaultdict(set)
    for version in RELEASES:
        for rule_id, checks in CHECKS[version].items():
            checks_of[rule_id].update(checks)
    # a site both a rule (the ways to it that can be stated) and listed as not stated (the others)
    # is one check under one id: one text of each kind; two of a kind would be two checks
    for rule_id, checks in checks_of.items():
        kinds = [check.split("\n")[0] for check in checks]
        assert len(kinds) == len(set(kinds)), (rule_id, checks)
    assert len(checks_of) > 400


def test_ids_are_mx_and_five_characters_that_cannot_be_misread():
    for version in RELEASES:
        for rule_id in CHECKS[version]:
            assert len(rule_id) == 7 and rule_id.startswith("MX") and not set(rule_id[2:]) & set("ILOU"), rule_id


def test_a_check_repeated_in_one_function_gets_an_id_of_its_own():
    check = "MaxTextConfig.set_derived_and_validate_values\nx is 0: division by zero\nx == 0"
    first = stable_rule_id(check)
    second = stable_rule_id(check, {first})
    assert first != second and second == stable_rule_id(check, {first}) and stable_rule_id(check) == first


@pytest.mark.parametrize("version", NUMBERED)
def test_an_old_number_is_read_as_its_id_at_the_pin_with_a_warning(version):
    renumbered = yaml.load((RULES / "renumbered.yml").read_text(), Loader=_LOADER)[version]
    old, new = next(iter(renumbered.items()))
    settings = Settings()
    settings.override("pin", f"maxtext-{version}", "--pin")
    settings.override("ignore", [old], "--ignore")
    settings.override("severity", {old: "warning"}, "pyproject.toml")
    (ignored, graded) = check_rule_ids(settings)
    assert settings["ignore"] == [new] and settings["severity"] == {new: "warning"}
    assert f"{old} is the old number of {new} at maxtext-{version}" in ignored and f"write {new}" in graded
    assert set(renumbered.values()) <= set(CHECKS[version])


def test_an_old_number_on_the_command_line_ignores_the_check_it_stood_for_at_the_pin():
    done = run_flaglint("check", "--pin", "maxtext-0.2.4", "--ignore", "MX0001", "num_moe_token_chunks=2")
    assert done.returncode == 0, done.stdout
    assert done.stderr.startswith("flaglint: warning: --ignore: MX0001 is the old number of MXCQ1N5 at maxtext-0.2.4")  # named once
    assert run_flaglint("check", "--pin", "maxtext-0.2.4", "--ignore", "MXCQ1N5", "num_moe_token_chunks=2").returncode == 0
    assert run_flaglint("check", "--pin", "maxtext-0.2.4", "num_moe_token_chunks=2").returncode == 1

"""flaglint against the real MaxText 0.2.5 on generated flag strings.

Agreement: flaglint reports an error exactly when `pyconfig.initialize` raises. Every disagreement
must be in tests/disagreements.yml with its explanation; every fix flaglint proposes for a config
MaxText rejects must be accepted by MaxText.
"""

from __future__ import annotations

import re

import pytest
import yaml
from maxtext_env import oracle_python, unavailable

from flaglint.frontends.check.confirm import verdicts
from flaglint.frontends.checker import Checker
from oracle.differential import (
    DISAGREEMENTS,
    PIN,
    Case,
    classify,
    draw_configs,
    flaglint_verdict,
    load_disagreements,
    matches,
)

pytestmark = pytest.mark.oracle

CONFIGS = 350  # bench/agreement_bench.py draws more: MaxText takes ~0.65 CPU-s a config, and CI runs every suite in 30 minutes
TARGET = 0.99
FIXED = 100  # rejected configs whose fixes are checked (finding fixes costs ~0.3 s a config)


@pytest.fixture(scope="module")
def python():
    found = oracle_python()
    if found is None:
        pytest.skip(unavailable("oracle"))
    return found


@pytest.fixture(scope="module")
def cases(python) -> list[Case]:
    configs = draw_configs(CONFIGS)
    checker = Checker(PIN)
    flaglint = [flaglint_verdict(checker, flags, fix=False) for flags in configs]
    maxtext = verdicts(python, [flags.split() for flags in configs])
    return [Case(*row) for row in zip(configs, flaglint, maxtext)]


def test_agreement_with_maxtext_is_at_least_99_percent(cases):
    agreed = sum(case.agrees for case in cases)
    rate = agreed / len(cases)
    print(f"\nagreement with MaxText 0.2.5: {agreed}/{len(cases)} = {rate:.2%} "
          f"(MaxText rejects {sum(not c.maxtext.ok for c in cases)})")  # fmt: skip
    assert len(cases) >= CONFIGS
    assert rate >= TARGET, f"agreement {rate:.2%} is below {TARGET:.0%}"


def test_every_disagreement_is_listed_and_explained(cases):
    listed = load_disagreements()
    unexplained = [name for name, spec in listed.classes.items() if not str(spec.get("explanation", "")).strip()]
    assert not unexplained, f"disagreement classes without an explanation: {unexplained}"
    # The drawn configs follow the rules' keys and the hypothesis version, so a disagreement is
    # judged by class: each must fit a class whose cause is explained.
    new = [case for case in cases if not case.agrees and classify(case, listed.classes) is None]
    assert not new, (
        "disagreements not in tests/disagreements.yml (bench/agreement_bench.py --write-disagreements lists them):\n"
        + yaml.safe_dump([case.as_entry() for case in new], sort_keys=False, width=200)
    )
    misfiled = [
        f"{case.flags!r}: class {listed.entries[case.flags].get('class')!r} does not fit {case.as_entry()}"
        for case in cases
        if case.flags in listed.entries and not matches(case, listed.classes.get(listed.entries[case.flags].get("class"), {"maxtext": "(?!)"}))
    ]  # fmt: skip
    assert not misfiled, "\n".join(misfiled)


def test_listed_disagreements_still_disagree(cases):
    drawn = {case.flags: case for case in cases}
    resolved = [flags for flags in load_disagreements().entries if flags in drawn and drawn[flags].agrees]
    assert not resolved, "these now agree with MaxText; remove them from tests/disagreements.yml:\n" + "\n".join(resolved)


def test_every_fix_for_a_rejected_config_is_accepted_by_maxtext(cases, python):
    import z3

    # The fixer sets no time limit of its own, and a few configs with huge mesh sizes keep Z3 busy
    # for minutes; bound each solver call so that the suite ends (a fix not found is not checked).
    z3.set_param("timeout", 10_000)
    checker = Checker(PIN)
    rejected = [case.flags for case in cases if not case.maxtext.ok and case.flaglint.rejects][:FIXED]
    fixes = [(flags, fix) for flags in rejected for fix in flaglint_verdict(checker, flags).fixes]
    assert fixes, "the sample has no rejected config that flaglint fixes"
    answers = verdicts(python, [fix.split() for _, fix in fixes])
    refused = [(flags, fix, answer) for (flags, fix), answer in zip(fixes, answers) if not answer.ok]
    still_errors = sum(bool(flaglint_verdict(checker, fix, fix=False).rejects) for _, fix, _ in refused)
    print(f"\nfixes of {len(rejected)} rejected configs checked against MaxText: {len(fixes)}, refused: {len(refused)} "
          f"({still_errors} of them still have errors flaglint itself reports)")  # fmt: skip
    explained = yaml.safe_load(DISAGREEMENTS.read_text()).get("refused_fixes") or {}

    def known(flags: str, answer) -> bool:
        return any(re.search(spec["maxtext"], answer.describe()) and re.search(spec.get("flags", ""), flags)
                   for spec in explained.values())

    unexplained = [(flags, fix, answer) for flags, fix, answer in refused if not known(flags, answer)]
    assert not unexplained, "\n".join(f"{flags!r} -> fix {fix!r}: MaxText {answer.describe()}" for flags, fix, answer in unexplained)

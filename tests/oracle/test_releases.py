"""flaglint at each older bundled release against that release's own pyconfig, on configs drawn
from that release's rules (test_differential.py does 0.2.5, with more configs and the fixes).

Per release: agreement >= 99%, recall >= 99% (of the configs MaxText rejects, flaglint rejects),
specificity >= 98% (of those it accepts, flaglint accepts), and every disagreement fits a class of
tests/disagreements.yml whose cause is explained. The sample is small (the oracle suite of all
releases has about ten minutes of CI); bench/agreement_bench.py --version V measures more.
"""

from __future__ import annotations

import pytest
import yaml
from maxtext_env import MAXTEXT_VERSION, RELEASES, oracle_python, unavailable

from flaglint.frontends.check.confirm import verdicts
from flaglint.frontends.checker import Checker
from oracle.differential import (
    Case,
    classify,
    draw_configs,
    flaglint_verdict,
    load_disagreements,
)

pytestmark = pytest.mark.oracle

CONFIGS = 200  # per release: about 35 s of MaxText on two processes (bench/agreement_bench.py --version V draws more)


@pytest.fixture(scope="module", params=[v for v in RELEASES if v != MAXTEXT_VERSION])
def release(request) -> tuple[str, list[Case]]:
    version = request.param
    python = oracle_python(version)
    if python is None:
        pytest.skip(unavailable("oracle", version))
    pin = f"maxtext-{version}"
    configs = draw_configs(CONFIGS, pin=pin)
    checker = Checker(pin)
    flaglint = [flaglint_verdict(checker, flags, fix=False) for flags in configs]
    maxtext = verdicts(python, [flags.split() for flags in configs])
    return pin, [Case(*row) for row in zip(configs, flaglint, maxtext)]


def test_verdicts_agree_with_the_release(release):
    pin, cases = release
    rejected = [c for c in cases if not c.maxtext.ok]
    accepted = [c for c in cases if c.maxtext.ok]
    agreement = sum(c.agrees for c in cases) / len(cases)
    recall = sum(c.flaglint.rejects is True for c in rejected) / len(rejected)
    specificity = sum(c.flaglint.rejects is False for c in accepted) / len(accepted)
    print(f"\n{pin}: agreement {agreement:.2%}, recall {recall:.2%} of {len(rejected)}, "
          f"specificity {specificity:.2%} of {len(accepted)}")  # fmt: skip
    assert len(cases) >= CONFIGS and rejected and accepted
    assert agreement >= 0.99, f"agreement {agreement:.2%} at {pin}"
    assert recall >= 0.99, f"recall {recall:.2%} at {pin}"
    assert specificity >= 0.98, f"specificity {specificity:.2%} at {pin}"


def test_every_disagreement_at_the_release_is_explained(release):
    pin, cases = release
    classes = load_disagreements(pin=pin).classes
    new = [case for case in cases if not case.agrees and classify(case, classes) is None]
    assert not new, (
        f"disagreements at {pin} that no class of tests/disagreements.yml explains "
        f"(bench/agreement_bench.py --version {pin.removeprefix('maxtext-')} --write-disagreements lists them):\n"
        + yaml.safe_dump([case.as_entry() for case in new], sort_keys=False, width=200)
    )


# pyconfig's checks of a model file against argv and M_ variables, which the drawn configs seldom
# reach: a key the model sets, given another value; and M_ variables that name no key.
MODEL_CASES = [
    (["model_name=llama2-7b", "base_emb_dim=1024"], {}),
    (["model_name=llama2-7b", "base_emb_dim=4096"], {}),
    (["model_name=llama2-7b", "base_emb_dim=1024", "override_model_config=true"], {}),
    (["model_name=llama2-7b", "steps=3"], {"M_BASE_EMB_DIM": "1024"}),
    (["model_name=llama2-7b", "steps=3"], {"M_STEPS": "5"}),
    # M_ variables that name no key, or not in upper case: refused before 0.2.0, ignored after
    (["steps=3"], {"M_STEPZ": "5"}),
    (["steps=3"], {"M_log_period": "5"}),
    (["steps=3"], {"M_LOG_PERIOD": "5"}),
]


@pytest.mark.parametrize("version", RELEASES)
def test_model_file_conflicts_and_m_variables_as_each_release_treats_them(version):
    python = oracle_python(version)
    if python is None:
        pytest.skip(unavailable("oracle", version))
    from flaglint.frontends.check.confirm import PyconfigRunner
    from flaglint.read.flags import FlagSource

    checker = Checker(f"maxtext-{version}")
    with PyconfigRunner(str(python)) as runner:
        for argv, env in MODEL_CASES:
            maxtext = runner.check(argv, env=env)
            result = checker.check(FlagSource(" ".join(argv)), env, fix=False)
            rejects = any(f.severity == "error" for f in result.findings)
            assert rejects == (not maxtext.ok), (version, argv, env, maxtext.describe(), [f.message for f in result.findings])


# What 0.1.0 does with None that flaglint does not model: int() of it in max_utils.get_num_slices
# (not read), and JAX's distributed start-up.
EMPTY_NOT_MODELLED = {"compile_topology_num_slices", "skip_jax_distributed_system"}


def test_an_empty_value_for_any_key_at_0_1_0_is_judged_as_its_pyconfig_treats_none():
    python = oracle_python("0.1.0")
    if python is None:
        pytest.skip(unavailable("oracle", "0.1.0"))
    from flaglint.frontends.check.confirm import PyconfigRunner
    from flaglint.pins.pins import load_pin

    pin = load_pin("maxtext-0.1.0")
    checker = Checker(pin.pin)
    keys = sorted(k for k in pin.keys if "." not in k)
    with PyconfigRunner(str(python)) as runner:
        disagree = {k for k in keys if flaglint_verdict(checker, f"{k}=", fix=False).rejects == runner.check([f"{k}="]).ok}
    assert disagree == EMPTY_NOT_MODELLED

"""flaglint at each older release against that release's own pyconfig, on configs drawn from that
release's rules (test_differential.py does 0.2.5, with more configs and the fixes): the bundled
ones, and 0.2.1 and 0.2.2, whose wheels are imported into a scratch pin store as a user imports them.

Per release: agreement >= 99%, recall >= 99% (of the configs MaxText rejects, flaglint rejects),
specificity >= 98% (of those it accepts, flaglint accepts), and every disagreement fits a class of
tests/disagreements.yml whose cause is explained. The sample is small (the oracle suite of all
releases has about ten minutes of CI); bench/agreement_bench.py --version V measures more.
"""

from __future__ import annotations

import pytest
import yaml
from maxtext_env import (
    IMPORTED,
    MAXTEXT_VERSION,
    RELEASES,
    oracle_python,
    run_in_oracle,
    unavailable,
)

from flaglint.frontends.check.confirm import verdicts
from flaglint.frontends.checker import Checker
from flaglint.maxtext.tpu import load_topologies
from flaglint.pins import pins, store
from oracle.differential import (
    Case,
    classify,
    draw_configs,
    figures,
    flaglint_verdict,
    load_disagreements,
    release_pin,
)

pytestmark = pytest.mark.oracle

CONFIGS = 120  # per release: about 21 s of MaxText on two processes (bench/agreement_bench.py --version V draws more)
# per imported release: its wheel's import (about 2 s) and about 7 s of MaxText (0.2.2 starts in 10 s more: tensorflow)
IMPORTED_CONFIGS = 40


@pytest.fixture(scope="module", params=[v for v in RELEASES if v != MAXTEXT_VERSION] + list(IMPORTED))
def release(request, tmp_path_factory) -> tuple[str, list[Case]]:
    version = request.param
    python = oracle_python(version)
    if python is None:
        pytest.skip(unavailable("oracle", version))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))  # a wheel's import goes to a scratch store
        pins.load_pin.cache_clear()
        store.project_store.cache_clear()
        pin = release_pin(version)
        if pin is None:
            pytest.skip(unavailable("wheel", version))
        configs = draw_configs(IMPORTED_CONFIGS if version in IMPORTED else CONFIGS, pin=pin)
        checker = Checker(pin)
        flaglint = [flaglint_verdict(checker, flags, fix=False) for flags in configs]
    pins.load_pin.cache_clear()
    maxtext = verdicts(python, [flags.split() for flags in configs])
    return pin, [Case(*row) for row in zip(configs, flaglint, maxtext)]


def test_verdicts_agree_with_the_release(release):
    pin, cases = release
    measured = figures(cases)
    print(f"\n{pin}: {measured}")
    assert len(cases) >= (IMPORTED_CONFIGS if pin.removeprefix("maxtext-") in IMPORTED else CONFIGS)
    assert measured.rejected and measured.accepted
    assert measured.agreement >= 0.99, f"agreement {measured.agreement:.2%} at {pin}"
    assert measured.recall >= 0.99, f"recall {measured.recall:.2%} at {pin}"
    assert measured.specificity >= 0.98, f"specificity {measured.specificity:.2%} at {pin}"


def test_every_disagreement_at_the_release_is_explained(release):
    pin, cases = release
    classes = load_disagreements(pin=pin).classes
    new = [case for case in cases if not case.agrees and classify(case, classes) is None]
    assert not new, (
        f"disagreements at {pin} that no class of tests/disagreements.yml explains "
        f"(bench/agreement_bench.py --version {pin.removeprefix('maxtext-')} --write-disagreements lists them):\n"
        + yaml.safe_dump([case.as_entry() for case in new], sort_keys=False, width=200)
    )


# The module alone, found without running the package's __init__, as the pyconfig runner does: the
# oracle environments hold what pyconfig imports, not what __init__ does (0.2.2's: tensorflow).
_SPEC_MAP = """
import importlib.util, os
package = importlib.util.find_spec("maxtext").submodule_search_locations[0]
spec = importlib.util.spec_from_file_location("spec_map", os.path.join(package, "utils", "accelerator_to_spec_map.py"))
accelerator_to_spec_map = importlib.util.module_from_spec(spec)
spec.loader.exec_module(accelerator_to_spec_map)
OUTPUT = {name: spec.devices_per_slice for name, spec in accelerator_to_spec_map.UserFacingNameToSystemCharacteristics.items()}
"""


@pytest.mark.parametrize("version", IMPORTED)
def test_an_imported_release_counts_devices_as_its_own_topology_table_does(version, tmp_path, monkeypatch):
    if oracle_python(version) is None:
        pytest.skip(unavailable("oracle", version))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    pins.load_pin.cache_clear()
    pin = release_pin(version)
    if pin is None:
        pytest.skip(unavailable("wheel", version))
    table = load_topologies(pins.load_pin(pin).topologies)
    pins.load_pin.cache_clear()
    assert len(table) > 100 and table == run_in_oracle(_SPEC_MAP, None, version=version)


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

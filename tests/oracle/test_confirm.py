"""`flaglint check --confirm-with PYTHON`: MaxText's own verdict printed beside flaglint's."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner
from maxtext_env import oracle_python, unavailable

from flaglint.cli import main
from flaglint.frontends.check.confirm import (
    PyconfigRunner,
    confirm,
    maxtext_argv,
    pin_mismatch,
)
from flaglint.pins.pins import load_pin


@pytest.fixture(scope="module")
def python() -> str:
    found = oracle_python()
    if found is None:
        pytest.skip(unavailable("oracle"))
    return str(found)


@pytest.mark.oracle
def test_a_rejected_config_gets_maxtexts_exception_and_message(python):
    line = confirm(python, "maxtext-0.2.5", "num_moe_token_chunks=2", {}, None)
    assert line == "MaxText 0.2.5 (python3.12): rejects: ValueError: num_moe_token_chunks > 1 requires use_ring_of_experts=True."


@pytest.mark.oracle
def test_a_valid_config_is_accepted(python):
    line = confirm(python, "0.2.5", "num_moe_token_chunks=2 use_ring_of_experts=true ici_expert_parallelism=2 ragged_buffer_factor=2.75", {}, None)
    assert line == "MaxText 0.2.5 (python3.12): accepts"


@pytest.mark.oracle
def test_field_errors_name_the_field(python):
    line = confirm(python, "maxtext-0.2.5", "log_period=1.5", {}, None)
    assert line.startswith("MaxText 0.2.5 (python3.12): rejects: ValidationError: log_period: ")


@pytest.mark.oracle
def test_the_model_and_tunix_variables_reach_maxtext(python):
    assert "rejects: ValueError: Keys ['base_emb_dim'] are overridden by both model config" in confirm(
        python, "maxtext-0.2.5", "base_emb_dim=1024", {}, "llama2-7b"
    )
    assert confirm(python, "maxtext-0.2.5", "", {"NUM_MOE_TOKEN_CHUNKS": "2"}, None).endswith(
        "rejects: ValueError: num_moe_token_chunks > 1 requires use_ring_of_experts=True."
    )


@pytest.mark.oracle
def test_a_relative_interpreter_path_and_hf_token_reach_the_runner(python, monkeypatch):
    import os

    monkeypatch.chdir(os.path.dirname(os.path.dirname(python)))  # the venv: bin/python is relative from here
    relative = os.path.join("bin", os.path.basename(python))
    flags = "model_name=deepseek-custom attention=dot_product"
    assert "Engram requires both 'hf_access_token'" in confirm(relative, "maxtext-0.2.5", flags, {}, None)
    assert confirm(relative, "maxtext-0.2.5", flags, {"HF_TOKEN": "hf_x"}, None).endswith(": accepts")


@pytest.mark.oracle
def test_a_fork_pin_is_not_confirmed_by_the_released_package(python):
    line = confirm(python, "bbd0f6f10", "num_moe_token_chunks=2", {}, None)
    assert line == "MaxText bbd0f6f10 (python3.12): not run: the pin is fork commit bbd0f6f10, but the interpreter has maxtext 0.2.5 without a git commit"


@pytest.mark.oracle
def test_one_runner_answers_many_configs_in_order(python):
    with PyconfigRunner(python) as runner:
        answers = [runner.check(argv) for argv in (["num_moe_token_chunks=2"], [], ["bogus_key=1"], [])]
    assert [a.ok for a in answers] == [False, True, False, True]
    assert answers[2].error == "ValueError" and answers[2].message.startswith("'bogus_key' not in ")


@pytest.mark.oracle
def test_cli_prints_maxtexts_verdict_beside_flaglints(python):
    result = CliRunner().invoke(main, ["check", "--confirm-with", python, "num_moe_token_chunks=2"])
    assert result.exit_code == 1
    assert "error" in result.stdout and "num_moe_token_chunks" in result.stdout
    assert "MaxText 0.2.5 (python3.12): rejects: ValueError: num_moe_token_chunks > 1" in result.stderr


def test_a_python_without_maxtext_is_one_clear_line():
    line = confirm(sys.executable, "maxtext-0.2.5", "num_moe_token_chunks=2", {}, None)
    assert line.startswith(f"MaxText 0.2.5 ({sys.executable}): not run: {sys.executable} cannot run MaxText's pyconfig (")
    assert "\n" not in line


def test_a_missing_interpreter_is_one_clear_line(tmp_path):
    missing = str(tmp_path / "python")
    assert confirm(missing, "maxtext-0.2.5", "", {}, None) == f"MaxText 0.2.5 ({missing}): not run: cannot run {missing} (No such file or directory)"


def test_an_installed_maxtext_must_be_the_pins():
    released, fork = load_pin("maxtext-0.2.5"), load_pin("bbd0f6f10")
    assert pin_mismatch({"maxtext": "0.2.5", "commit": None}, released) is None
    assert pin_mismatch({"maxtext": "0.2.4", "commit": None}, released) == "the pin is maxtext 0.2.5, but the interpreter has maxtext 0.2.4"
    assert pin_mismatch({"maxtext": "0.2.5", "commit": "bbd0f6f10aa2"}, fork) is None
    assert pin_mismatch({"maxtext": "0.2.5", "commit": "e526ea02ffff"}, fork) == (
        "the pin is fork commit bbd0f6f10, but the interpreter has git commit e526ea02ffff"
    )


def test_maxtext_gets_the_model_then_tunix_keys_then_the_flags():
    pin = load_pin("maxtext-0.2.5")
    argv = maxtext_argv("num_moe_token_chunks=4  context=device", pin, {"NUM_MOE_TOKEN_CHUNKS": "2", "REMAT_CONTEXT": "offload"}, "llama2-7b")
    assert argv == ["model_name=llama2-7b", "num_moe_token_chunks=2", "context=offload", "num_moe_token_chunks=4", "context=device"]

"""`flaglint check` of a Tunix command line (`BASE.yaml k=v …`, or `-- python -m tunix.cli.<entry> …`)
and how the Tunix pin is chosen: --tunix-pin, `tunix-pin` in [tool.flaglint], a requirements file's
google-tunix line, else the newest bundled release."""

from __future__ import annotations

import json
import re

from commandline import run_flaglint


def check(*args: str, cwd=None) -> tuple[int, dict]:
    done = run_flaglint("check", "--format", "json", *args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_a_tunix_argv_is_checked_as_tunix_reads_it_not_as_maxtext_keys():
    code, result = check("tunix/cli/base_config.yaml", "batch_sise=2", "model_config.use_flash_attn=true",
                         "tokenizer_config.tokenizer_path=/t", "tokenizer_config.tokenizer_type=sentencepiece")
    assert code == 1 and result["pin"] == "tunix-0.1.7"
    rules = {f["rule"]: f for f in result["findings"]}
    assert rules["FL204"]["location"]["column"] == 28 and rules["FL204"]["stage"] == "start-up"
    assert rules["FL208"]["severity"] == "warning" and "FL004" not in rules
    assert any("checked as tunix.cli.grpo_main" in note for note in result["notes"])


def test_a_whole_command_line_names_its_entry_point():
    code, result = check("--tunix-pin", "0.1.7", "--", "python", "-m", "tunix.cli.peft_main", "base_config.yaml",
                         "tokenizer_config.tokenizer_path=/t", "tokenizer_config.tokenizer_type=sentencepiece",
                         "training_config.eval_every_n_steps=3")
    assert code == 0 and "notes" not in result
    assert [f["rule"] for f in result["findings"]] == ["FL211"]


def test_the_tunix_pin_comes_from_the_options_the_settings_or_the_requirements(tmp_path):
    (tmp_path / "requirements.txt").write_text("jax\ngoogle-tunix==0.1.5  # the trainer\n")
    argv = ("base_config.yaml", "override_config_file=x.yaml")
    assert check("--requirements", str(tmp_path / "requirements.txt"), *argv)[1]["pin"] == "tunix-0.1.5"
    (tmp_path / "pyproject.toml").write_text('[tool.flaglint]\ntunix-pin = "tunix-0.1.6"\n')
    assert check(*argv, cwd=tmp_path)[1]["pin"] == "tunix-0.1.6"
    assert check("--tunix-pin", "0.1.2", *argv, cwd=tmp_path)[1]["pin"] == "tunix-0.1.2"
    (tmp_path / "pyproject.toml").write_text('[tool.flaglint]\nrequirements = "requirements.txt"\n')
    assert check(*argv, cwd=tmp_path)[1]["pin"] == "tunix-0.1.5"


def test_an_unknown_tunix_pin_is_one_line_and_exit_2(tmp_path):
    done = run_flaglint("check", "--tunix-pin", "0.0.2", "base_config.yaml", "batch_size=1")
    assert done.returncode == 2 and "unknown Tunix pin '0.0.2'" in done.stderr and len(done.stderr.splitlines()) == 1
    (tmp_path / "req.txt").write_text("google-tunix==0.0.2\n")
    done = run_flaglint("check", "--requirements", str(tmp_path / "req.txt"), "base_config.yaml")
    assert done.returncode == 2 and "req.txt:1: google-tunix==0.0.2 is not a bundled Tunix pin" in done.stderr


def test_pins_lists_the_tunix_releases():
    listed = run_flaglint("pins").stdout
    assert "tunix-0.1.0" in listed and re.search(r"^tunix-0\.1\.7 +Tunix +0\.1\.7 +release +bundled \(schemas/tunix-0\.1\.7\.json\)$", listed, re.M)


def test_a_tunix_rule_can_be_selected_and_ignored():
    argv = ("base_config.yaml", "model_config.model_source=hf", "tokenizer_config.tokenizer_path=/t",
            "tokenizer_config.tokenizer_type=sentencepiece")
    assert {f["rule"] for f in check("--select", "TX13FFD", *argv)[1]["findings"]} == {"TX13FFD"}
    assert "TX13FFD" not in {f["rule"] for f in check("--ignore", "TX", *argv)[1]["findings"]}


def test_show_gives_each_tunix_keys_value_and_where_it_was_set(tmp_path):
    (tmp_path / "run.yaml").write_text("model_config:\n  model_source: kaggle\n")
    done = run_flaglint("show", "--format", "json", "--env", "T_NUM_BATCHES=7", "batch_size", "num_batches",
                        "model_config.model_source", "actor_model_config.model_source", "tfds_download",
                        "base_config.yaml", "override_config_file=run.yaml", "batch_size=1.5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)["values"]
    assert values["batch_size"] == {"value": 1, "origin": "word", "where": "argv word 3", "line": 1}
    assert values["num_batches"]["value"] == 7 and values["num_batches"]["where"] == "T_NUM_BATCHES"
    assert values["model_config.model_source"]["where"] == "run.yaml:2"
    assert values["actor_model_config.model_source"]["origin"] == "inherited"  # the role takes model_config's
    assert values["tfds_download"]["origin"] == "base" and values["tfds_download"]["value"] is True


def test_a_dotenv_in_the_working_directory_is_read_under_the_environment(tmp_path):
    (tmp_path / ".env").write_text("export T_BATCH_SIZE=4\nHF_TOKEN='hf_x'\nOTHER=1\n")
    hub = ("base_config.yaml", "tokenizer_config.tokenizer_type=huggingface", "tokenizer_config.tokenizer_path=org/model")
    _, result = check(*hub, "batch_size=2", cwd=tmp_path)
    rules = {f["rule"] for f in result["findings"]}
    assert "FL205" in rules  # T_BATCH_SIZE from .env meets batch_size=2
    assert not any("HF_TOKEN" in f["keys"] for f in result["findings"])  # the token comes from .env
    _, result = check("--env", "T_BATCH_SIZE=", *hub, cwd=tmp_path)  # a variable already set wins over .env
    assert "FL205" not in {f["rule"] for f in result["findings"]}

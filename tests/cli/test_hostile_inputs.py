"""Inputs that once ended in an internal error (tests/fixtures/hostile/ keeps one of each): each now
ends in a finding or in one line naming the input, with exit 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from commandline import run_flaglint

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile"


def _one_line(ran) -> str:
    assert ran.returncode == 2, (ran.returncode, ran.stdout, ran.stderr)
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in lines[0], ran.stderr
    return lines[0]


def _findings(ran) -> list[dict]:
    assert ran.returncode in (0, 1) and "internal error" not in ran.stderr, ran.stderr
    return json.loads(ran.stdout)["findings"]


def test_a_yaml_tag_on_a_value_is_a_finding_on_that_value():
    findings = _findings(run_flaglint("check", "--format", "json", "-f", str(HOSTILE / "tagged-values.flags")))
    typed = {f["keys"][0]: f["message"] for f in findings if f["rule"] == "FL005"}
    assert set(typed) == {"steps", "log_period", "enable_checkpointing", "run_name", "per_device_batch_size"}, typed
    assert "!!int ''" in typed["steps"] and "!!float ''" in typed["log_period"] and "!!timestamp ''" in typed["run_name"]


def test_a_yaml_tag_alone_on_the_command_line_is_a_finding():
    findings = _findings(run_flaglint("check", "--format", "json", "steps=!!int"))
    assert [f["rule"] for f in findings] == ["FL005"] and "!!int" in findings[0]["message"]


def test_a_tagged_flag_string_does_not_end_a_batch():
    ran = run_flaglint("check", "--batch", str(HOSTILE / "tagged-batch.txt"))
    results = [json.loads(line) for line in ran.stdout.splitlines()]
    assert len(results) == 2 and "internal error" not in ran.stderr
    assert [f["rule"] for f in results[0]["findings"]] == ["FL005"] and results[1]["findings"] == []


def test_a_tag_in_a_config_file_names_the_file_and_line():
    line = _one_line(run_flaglint("check", str(HOSTILE / "tagged-config.yml")))
    assert "tagged-config.yml:1" in line and "!!int" in line


def test_an_integer_of_over_4300_digits_in_a_config_names_the_file():
    line = _one_line(run_flaglint("check", str(HOSTILE / "huge-integer.yml")))
    assert "huge-integer.yml:1" in line and "4300 digits" in line and len(line) < 400


def test_arithmetic_bash_refuses_is_an_error_of_its_command():
    ran = run_flaglint("lint", "--format", "json", str(HOSTILE / "arithmetic-errors.sh"))
    assert _findings(ran) == []


def test_an_array_index_past_what_is_held_leaves_the_launch_unverified():
    findings = _findings(run_flaglint("lint", "--format", "json", str(HOSTILE / "far-array-index.sh")))
    assert [f["rule"] for f in findings] == ["FL011"] and "b[999999999]" in findings[0]["message"]


def test_paths_longer_than_the_file_system_allows(tmp_path):
    long_name = "a" * 5000
    config = tmp_path / "long.yml"
    config.write_text(f"base_config: {long_name}.yml\n")
    assert "no such file" in _one_line(run_flaglint("check", str(config)))
    for args in (["--requirements", long_name, "steps=1"], ["-f", long_name], ["--env-file", long_name, "steps=1"],
                 ["--config", long_name, "steps=1"]):
        assert "File name too long" in _one_line(run_flaglint("check", *args))
    assert "cannot read (No such file or directory" in _one_line(run_flaglint("check", f"{long_name}.yml", "steps=1"))


def test_a_misspelt_command_is_one_line():
    assert "chek" in _one_line(run_flaglint("chek"))


@pytest.fixture
def no_hang():
    """A read that blocks (a FIFO with no writer) fails the test after 20 s instead of hanging the suite."""
    def stop(*_):
        raise TimeoutError("a read blocked")
    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, before)


def _entry_points(target: str) -> list[list[str]]:
    return [["check", "-f", target], ["check", "--files", target], ["check", "--batch", target], ["lint", target],
            ["gate", target], ["check", "--env-file", target, "steps=1"], ["check", "--config", target, "steps=1"],
            ["check", "--requirements", target, "steps=1"]] + ([["check", target, "steps=1"]] if target.endswith(".yml") else [])


@pytest.mark.parametrize("kind, shown", [("fifo", "a FIFO"), ("device", "a character device")])
def test_what_is_not_a_regular_file_is_refused_at_every_entry_point(tmp_path, no_hang, kind, shown):
    if kind == "fifo":
        target = tmp_path / "input.yml"
        os.mkfifo(target)
    else:
        target = Path("/dev/zero")
        if not target.exists():
            pytest.skip("needs /dev/zero")
    for args in _entry_points(str(target)):
        line = _one_line(run_flaglint(*args, cwd=tmp_path))
        assert f"{target}: not a regular file ({shown})" in line, (args, line)


def test_a_rule_file_and_a_base_config_that_are_not_regular_files(tmp_path, no_hang):
    os.mkfifo(tmp_path / "rules.yml")
    (tmp_path / "flaglint.toml").write_text('extra-rules = ["rules.yml"]\n')
    assert "not a regular file (a FIFO)" in _one_line(run_flaglint("check", "steps=1", cwd=tmp_path))
    (tmp_path / "flaglint.toml").unlink()
    (tmp_path / "top.yml").write_text("base_config: /dev/zero\n")
    assert "/dev/zero: not a regular file (a character device)" in _one_line(run_flaglint("check", "top.yml", cwd=tmp_path))


def test_stdin_is_read_up_to_the_limit():
    from flaglint.core.reading import MANIFEST, SCRIPT

    line = _one_line(run_flaglint("lint", "-", stdin=b"#" * (SCRIPT.limit + 1)))
    assert line == "flaglint: error: <stdin>: over the 512 KiB flaglint reads of a recipe script"
    assert "over the 64 MiB flaglint reads of a manifest" in _one_line(run_flaglint("gate", "-", stdin=b" " * (MANIFEST.limit + 1)))


def test_a_file_over_its_limit_names_the_file_the_limit_and_the_kind(tmp_path):
    (tmp_path / "big.env").write_bytes(b"# padding\n" * 110_000)
    line = _one_line(run_flaglint("check", "--env-file", "big.env", "steps=1", cwd=tmp_path))
    assert line == "flaglint: error: big.env: 1,100,000 bytes, over the 1 MiB flaglint reads of an env file"


def test_values_that_are_no_real_number_are_judged_on_the_value():
    findings = _findings(run_flaglint("check", "--format", "json", "-f", str(HOSTILE / "infinite-values.flags")))
    assert "steps" in {f["keys"][0] for f in findings if f["rule"] == "FL005"}  # an int field takes no NaN
    assert any("per_device_batch_size=inf" in f["message"] for f in findings)


# --- numbers of any size, as MaxText and Tunix read them ---------------------------------------

HEX_320 = "0x" + "f" * 320
BINARY_5000 = "0b" + "1" * 5000


def _rules_and_messages(ran) -> dict[str, str]:
    return {f["keys"][0]: f"{f['rule']} {f['message']}" for f in _findings(ran)}


def test_a_hex_integer_of_320_digits_in_a_flag_file_is_typed_exactly(tmp_path):
    (tmp_path / "run.flags").write_text(f"steps={HEX_320} learning_rate={HEX_320}\n")
    found = _rules_and_messages(run_flaglint("check", "--format", "json", "-f", "run.flags", cwd=tmp_path))
    assert "steps" not in found  # pydantic takes an int of any size
    assert found["learning_rate"].startswith("FL005") and "(386 digits): value should be a valid number" in found["learning_rate"]


def test_one_and_400_zeros_for_a_float_key_is_no_number_pydantic_takes(tmp_path):
    (tmp_path / "run.flags").write_text("learning_rate=1" + "0" * 400 + "\n")
    found = _rules_and_messages(run_flaglint("check", "--format", "json", "-f", "run.flags", cwd=tmp_path))
    assert found["learning_rate"] == "FL005 learning_rate: 1000000000000000…0000 (401 digits): value should be a valid number"


def test_a_binary_integer_of_5000_digits_in_a_config_is_a_finding_at_its_line(tmp_path):
    (tmp_path / "run.yml").write_text(f"steps: 5\ndropout_rate: {BINARY_5000}\n")
    ran = run_flaglint("check", "--format", "json", "run.yml", cwd=tmp_path)
    (finding,) = [f for f in _findings(ran) if f["keys"] == ["dropout_rate"]]
    assert finding["rule"] == "FL005" and finding["location"]["line"] == 2 and "(1,506 digits)" in finding["message"]


def test_a_binary_integer_of_5000_digits_in_a_container_argument(tmp_path):
    (tmp_path / "jobset.yaml").write_text(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: t}\nspec:\n  replicatedJobs:\n"
        "  - name: w\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n"
        "            - name: c\n              command: [python3, -m, maxtext.trainers.pre_train.train,"
        f" src/maxtext/configs/base.yml, 'dropout_rate={BINARY_5000}', 'steps={HEX_320}']\n")
    found = _rules_and_messages(run_flaglint("gate", "--format", "json", "--allow-unverified", "jobset.yaml", cwd=tmp_path))
    assert "(1,506 digits): value should be a valid number" in found["dropout_rate"] and "steps" not in found


def test_a_slice_of_4300_nines_chips_is_a_device_count_like_any_other(tmp_path):
    (tmp_path / "run.env").write_text("TRAINER_TPU_SLICE=tpu7x:" + "9" * 4300 + "\n")
    ran = run_flaglint("check", "--format", "json", "--env-file", "run.env", "ici_fsdp_parallelism=4", cwd=tmp_path)
    messages = {f["rule"]: f["message"] for f in _findings(ran)}
    assert "1999999999999999…9998 (4,301 digits) devices" in messages["FL141"]
    assert all(len(message) < 1000 for message in messages.values()), messages


@pytest.mark.parametrize("word, shown", [("batch_size=.inf", "infinity"), ("num_batches=1e400", "infinity"), ("num_batches=.nan", "NaN")])
def test_a_tunix_int_key_given_an_infinity_is_what_tunix_refuses(word, shown):
    ran = run_flaglint("check", "--format", "json", "--", "python", "-m", "tunix.cli.peft_main", "tunix/cli/base_config.yaml", word)
    found = _rules_and_messages(ran)
    key = word.split("=")[0]
    assert found[key].startswith("FL206") and f"cannot convert float {shown} to integer" in found[key]


# --- names and outputs past what the system allows ---------------------------------------------

LONG_NAME = "a" * 5000


@pytest.mark.parametrize("args", [["check", "--pin", LONG_NAME, "steps=1"], ["schema", "export", "--pin", LONG_NAME],
                                  ["rules", "--pin", LONG_NAME], ["pins", "diff", LONG_NAME, "maxtext-0.2.5"],
                                  ["pins", "diff", "maxtext-0.2.5", LONG_NAME]])
def test_a_pin_name_longer_than_a_file_name_is_an_unknown_pin(args, tmp_path):
    line = _one_line(run_flaglint(*args, env={"XDG_CACHE_HOME": str(tmp_path)}))
    assert "unknown pin 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…aaaaaaaaaaaaaaaaaaaa (5,000 characters)'" in line and len(line) < 600


@pytest.mark.parametrize("line, shown", [("maxtext==" + "1." * 2500 + "1", "maxtext==1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.…"),
                                         ("maxtext==0.2.5+" + LONG_NAME, "maxtext==0.2.5+aaaaaaaaaaaaaaa"),
                                         ("maxtext==0.2.5\ngoogle-tunix==" + "1." * 2500 + "1", "google-tunix==1.1.1.1.1.1.1")])
def test_a_requirements_version_longer_than_a_file_name_is_one_line(tmp_path, line, shown):
    (tmp_path / "requirements.txt").write_text(line + "\n")
    ran = run_flaglint("check", "--requirements", "requirements.txt", "steps=1", cwd=tmp_path, env={"XDG_CACHE_HOME": str(tmp_path)})
    found = _one_line(ran)
    assert "requirements.txt:" in found and shown in found and len(found) < 600, found


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["check", "steps=abc"], ["check", "--format", "json", "steps=1"], ["rules"]])
def test_a_full_standard_output_is_one_line_and_exit_2(args):
    env = {**os.environ, "PYTHONPATH": str(HOSTILE.parents[2])}
    env.pop("FLAGLINT_DEBUG", None)
    with open("/dev/full", "wb") as full:
        ran = subprocess.run([sys.executable, "-m", "flaglint", *args], stdout=full, stderr=subprocess.PIPE, env=env, timeout=120)
    assert ran.returncode == 2 and ran.stderr.decode() == "flaglint: error: standard output: cannot write (No space left on device)\n"


def test_a_config_s_int_of_thousands_of_digits_is_json(tmp_path):
    """remat_policy given an int of 4,300 hex digits in a config: the fix takes it back, and the JSON
    report writes the value as YAML text (hexadecimal), as json cannot write its decimal digits."""
    (tmp_path / "run.yml").write_text("steps: 5\nremat_policy: -0x" + "ab" * 2150 + "\n")
    ran = run_flaglint("check", "--format", "json", "run.yml", cwd=tmp_path)
    assert [f["rule"] for f in _findings(ran)] == ["FL005"]
    changes = [change for fix in json.loads(ran.stdout)["fixes"] for change in fix["changes"]]
    assert changes[0]["from"] == "-0x" + "ab" * 2150


def test_a_tunix_fix_beside_an_int_past_a_float_s_range():
    """Tunix's int() reads '0_999_999…' (a string to YAML) as an int of 600 digits."""
    ran = run_flaglint("check", "--format", "json", "--", "python", "-m", "tunix.cli.peft_main", "tunix/cli/base_config.yaml",
                       "num_train_epochs=0_999" + "_999" * 200, "bogus_key=1")
    assert {f["rule"] for f in _findings(ran)} >= {"FL204", "FL207"}

"""Inputs that once ended in an internal error (tests/fixtures/hostile/ keeps one of each): each now
ends in a finding or in one line naming the input, with exit 2."""

from __future__ import annotations

import json
import os
import signal
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

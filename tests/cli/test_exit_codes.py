"""Every exit code a gate relies on: 0 clean, 1 findings, 2 bad usage or unreadable input (one line
on stderr), whatever the input, the configuration or the pipe holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from commandline import run_flaglint as invoke
from commandline import run_flaglint_process

REPO = Path(__file__).resolve().parents[2]


def _one_line_error(ran, *parts: str) -> None:
    assert ran.returncode == 2, (ran.stdout, ran.stderr)
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flaglint: error: "), ran.stderr
    for part in parts:
        assert part in lines[0], lines[0]


@pytest.mark.parametrize(
    ("config", "parts"),
    [
        # A string where a list belongs would be matched letter by letter: every F, L, 0, 4 rule gone.
        ('[per-file-ignores]\n"flags/*" = "FL004"\n', ['per-file-ignores."flags/*"', "list", "'FL004'"]),
        ('fail-on = "warn"\n', ["fail-on", "'error', 'warning' or 'info'", "'warn'"]),
        ('[severity]\nFL004 = "warn"\n', ["severity.FL004", "'error', 'warning' or 'info'"]),
        ('colour = "red"\n', ["unknown flaglint setting 'colour'", "per-file-ignores"]),
        ("path-cap = 0\n", ["path-cap", "greater than or equal to 1"]),
        ('select = ["FL4"]\n', ["select", "no rule 'FL4'"]),
        ('ignore = ["FL999"]\n', ["ignore", "no rule 'FL999'"]),
        ('[per-file-ignores]\n"legacy/*" = ["FL105", "FLX"]\n', ['per-file-ignores."legacy/*"', "no rule 'FLX'"]),
        ("path-cap = " + "9" * 5000 + "\n", ["invalid TOML"]),
    ],
)
def test_a_bad_setting_is_exit_2_naming_the_file_the_key_and_what_is_allowed(tmp_path, config, parts):
    (tmp_path / "flaglint.toml").write_text(config, encoding="utf-8")
    _one_line_error(invoke("check", "log_period=1", cwd=tmp_path), str(tmp_path / "flaglint.toml"), *parts)


def test_per_file_ignores_are_relative_to_the_config_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.flaglint.per-file-ignores]\n"flags/legacy/*" = ["FL004"]\n')
    (tmp_path / "flags" / "legacy").mkdir(parents=True)
    (tmp_path / "flags" / "legacy" / "old.flags").write_text("bogus_key=1\n")
    (tmp_path / "flags" / "new.flags").write_text("bogus_key=1\n")
    # Run from a subfolder: the glob is still read against the folder of pyproject.toml.
    ran = invoke("check", "--format", "json", "--files", "legacy/old.flags", "new.flags", cwd=tmp_path / "flags")
    findings = json.loads(ran.stdout)["findings"]
    assert [(f["rule"], f["location"]["file"]) for f in findings] == [("FL004", "new.flags")]
    assert ran.returncode == 1


def test_a_file_name_pattern_matches_in_every_folder(tmp_path):
    (tmp_path / "flaglint.toml").write_text('[per-file-ignores]\n"*.legacy.flags" = ["FL004"]\n')
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.legacy.flags").write_text("bogus_key=1\n")
    assert invoke("check", "-f", "a/x.legacy.flags", cwd=tmp_path).returncode == 0


def test_the_command_line_selects_and_ignores_rules_and_names_unknown_ones(tmp_path):
    flags = "context=offload query_proj=device bogus_key=1"
    only = json.loads(invoke("check", "--isolated", "--format", "json", "--select", "FL1", flags, cwd=tmp_path).stdout)
    assert [f["rule"] for f in only["findings"]] == ["FL105"]
    both = json.loads(invoke("check", "--isolated", "--format", "json", "--select", "FL1", "--extend-select", "FL004", flags, cwd=tmp_path).stdout)
    assert sorted(f["rule"] for f in both["findings"]) == ["FL004", "FL105"]
    ignored = invoke("check", "--isolated", "--ignore", "FL004,FL105", flags, cwd=tmp_path)
    assert ignored.returncode == 0, ignored.stdout
    _one_line_error(invoke("check", "--select", "FL4", flags, cwd=tmp_path), "--select", "no rule 'FL4'")


def test_config_file_option_and_isolated(tmp_path):
    (tmp_path / "flaglint.toml").write_text('ignore = ["FL004"]\n')
    other = tmp_path / "other.toml"
    other.write_text('fail-on = "info"\n')
    assert invoke("check", "bogus_key=1", cwd=tmp_path).returncode == 0
    assert invoke("check", "--isolated", "bogus_key=1", cwd=tmp_path).returncode == 1
    # --config replaces the nearest file: FL004 is reported again, and FL003 (info) now fails.
    assert invoke("check", "--config", str(other), "log_period=1 log_period=2", cwd=tmp_path).returncode == 1
    _one_line_error(invoke("check", "--config", str(tmp_path / "missing.toml"), "log_period=1", cwd=tmp_path), "missing.toml")


def test_an_integer_of_over_4300_digits_is_a_finding_not_an_internal_error():
    ran = invoke("check", "--format", "json", "log_period=" + "9" * 5000)
    (finding,) = json.loads(ran.stdout)["findings"]
    assert ran.returncode == 1 and finding["rule"] == "FL005" and "4300 digits" in finding["message"]


def test_a_lone_surrogate_in_a_manifest_is_exit_2_with_its_line(tmp_path):
    manifest = tmp_path / "jobset.yaml"
    manifest.write_text(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: t}\nspec:\n  replicatedJobs:\n"
        "  - name: w\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n"
        '            - name: c\n              env:\n              - {name: MAXTEXT_EXTRA_FLAGS, value: "log_period=\\ud800"}\n'
    )
    _one_line_error(invoke("gate", str(manifest)), f"{manifest}:14", "not valid YAML")


def test_gate_reads_one_line_of_stdin_as_yaml_never_as_a_path(tmp_path):
    bad = REPO / "examples" / "jobsets" / "trainer-256-bad.yaml"
    assert invoke("gate", "--pin", "bbd0f6f10", str(bad)).returncode == 1
    # One line, as `printf %s "$MANIFEST" | flaglint gate -` gives it: YAML (a plain scalar), not a file name.
    named = invoke("gate", "--pin", "bbd0f6f10", "-", stdin=str(bad))
    assert named.returncode == 1 and "not a kubernetes object" in named.stdout.lower() and "FL011" in named.stdout
    long_line = invoke("gate", "-", stdin="{kind: JobSet, metadata: {name: " + "x" * 300 + "}}")
    assert long_line.returncode == 1 and "a workload of an API flaglint does not read" in long_line.stdout  # no apiVersion


@pytest.mark.parametrize(
    ("args", "parts"),
    [
        (("check", "--bogus"), ["--bogus", "flaglint check --help"]),
        (("check", "--format", "yaml", "log_period=1"), ["--format", "'yaml'"]),
        (("nonsense",), ["nonsense"]),
        (("lint",), ["SCRIPTS"]),
        (("lint", "missing.sh"), ["missing.sh: cannot read (No such file or directory)"]),
        (("gate", "missing.yaml"), ["missing.yaml", "cannot read"]),
        (("check", "--files", "missing.flags"), ["missing.flags", "cannot read"]),
        (("check",), ["nothing to check"]),
    ],
)
def test_every_usage_error_is_one_line_and_exit_2(args, parts, tmp_path):
    _one_line_error(invoke(*args, cwd=tmp_path), *parts)


def test_check_with_only_tunix_variables_checks_them():
    bad = invoke("check", "--format", "json", "--env", "TRAINER_MESH_EXPERT=two")
    assert bad.returncode == 1 and [f["rule"] for f in json.loads(bad.stdout)["findings"] if f["severity"] == "error"] == ["FL008"]
    assert invoke("check", "--env", "TRAINER_MESH_EXPERT=2").returncode == 0


def test_an_argument_that_is_not_utf8_is_exit_2():
    ran = run_flaglint_process(b"check", b"log_period=\xff")
    assert ran.returncode == 2 and ran.stderr.strip() == "flaglint: error: argument 2 is not UTF-8 (b'\\xff' at character 12)"


def test_a_closed_pipe_ends_quietly():
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line is written, as `| head -0` leaves it
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:
        ran = subprocess.run([sys.executable, "-m", "flaglint", "rules"], stdout=write, stderr=subprocess.PIPE, env=env, timeout=120)
    finally:
        os.close(write)
    assert ran.stderr == b"" and ran.returncode == 1


@pytest.mark.parametrize("args", [("nonexist.flags",), ("configs/",), ("steps=10", "recipes/nonexist.env"), ("examples",)])
def test_a_path_that_is_not_there_or_a_directory_is_not_read_as_flags(args, tmp_path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "examples").mkdir()
    done = invoke("check", *args, cwd=tmp_path)
    word = next(arg for arg in args if "=" not in arg)
    reason = "Is a directory" if (tmp_path / word).is_dir() else "No such file or directory"
    assert (done.returncode, done.stderr.strip()) == (2, f"flaglint: error: {word}: cannot read ({reason})"), done.stdout

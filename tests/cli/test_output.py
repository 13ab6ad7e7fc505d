"""The output conventions ruff users expect: where the report goes, how much of it, its exit code,
colour, paths relative to the working directory in every format, SARIF that code scanning reads,
and findings in shared files reported once, where they are."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import jsonschema
import pytest
from commandline import run_flaglint as invoke

from flaglint.cli import main

REPO = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((REPO / "tests" / "report" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TWO_PROBLEMS = "bogus_key=1 log_period=1.5 context=offload"


def test_output_file_quiet_exit_zero_and_statistics(tmp_path):
    report = tmp_path / "report.json"
    ran = invoke("check", "--format", "json", "-o", str(report), TWO_PROBLEMS)
    assert ran.returncode == 1 and ran.stdout == ""
    assert {f["rule"] for f in json.loads(report.read_text())["findings"]} == {"FL004", "FL005"}
    unwritable = invoke("check", "-o", str(tmp_path / "missing" / "report.txt"), TWO_PROBLEMS)
    assert unwritable.returncode == 2 and unwritable.stderr.startswith("flaglint: error: ") and "cannot write" in unwritable.stderr
    quiet = invoke("check", "-q", TWO_PROBLEMS)
    assert "error(s)" not in quiet.stdout and "fix (" not in quiet.stdout and "FL004" in quiet.stdout
    assert invoke("check", "--exit-zero", TWO_PROBLEMS).returncode == 0
    assert invoke("check", "-e", "--output-format", "json", TWO_PROBLEMS).returncode == 0  # ruff's spellings
    assert invoke("check", "--exit-zero", "--pin", "nonexistent", "log_period=1").returncode == 2
    stats = invoke("check", "--statistics", "log_period=1.5 bogus_key=1 other_bogus=2")
    # the one fix also drops the refused log_period (unsafe): --fix makes none of it
    assert re.search(r"^\s+2\s+FL004\s+0 fixable  key not defined at the pinned MaxText$", stats.stdout, re.M), stats.stdout
    assert re.search(r"^\s+3\s+total\s+0 fixable$", stats.stdout, re.M) and stats.returncode == 1


@pytest.mark.parametrize(("env", "coloured"), [({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False), ({}, False)])
def test_colour_honours_no_color_and_force_color(env, coloured):
    ran = invoke("check", "bogus_key=1", env=env)
    assert bool(ANSI.search(ran.stdout)) == coloured
    assert ANSI.sub("", ran.stdout).startswith("<flags>:1:1: error FL004 ")
    assert not ANSI.search(invoke("check", "--format", "json", "bogus_key=1", env=env).stdout)


def test_stdin_filename_names_stdin_for_the_report_and_per_file_ignores(tmp_path):
    (tmp_path / "flaglint.toml").write_text('[per-file-ignores]\n"legacy/*" = ["FL004"]\n')
    named = invoke("check", "--format", "json", "--stdin-filename", "flags/run.flags", "-", stdin=b"bogus_key=1\n", cwd=tmp_path)
    assert json.loads(named.stdout)["findings"][0]["location"]["file"] == "flags/run.flags"
    assert invoke("check", "--stdin-filename", "legacy/run.flags", "-", stdin=b"bogus_key=1\n", cwd=tmp_path).returncode == 0
    manifest = (REPO / "examples" / "jobsets" / "trainer-256-bad.yaml").read_bytes()
    gated = invoke("gate", "--pin", "bbd0f6f10", "--format", "json", "--stdin-filename", "deploy/trainer.yaml", "-", stdin=manifest)
    assert {f["location"]["file"] for f in json.loads(gated.stdout)["findings"]} == {"deploy/trainer.yaml"}


def _paths(output_format: str, text: str) -> set[str]:
    if output_format == "json":
        return {f["location"]["file"] for f in json.loads(text)["findings"]}
    if output_format == "sarif":
        return {loc["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(text)["runs"][0]["results"] for loc in r["locations"]}
    if output_format == "github":
        return set(re.findall(r"file=([^,]+),", text))
    if output_format == "junit":
        return set(re.findall(r'classname="([^"]+)"', text))
    return {line.split(":")[0] for line in text.splitlines() if ": error " in line}


@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "github", "junit"])
def test_paths_are_relative_to_the_working_directory_in_every_format(tmp_path, output_format):
    (tmp_path / "flags").mkdir()
    flags = tmp_path / "flags" / "run.flags"
    flags.write_text("bogus_key=1\n")
    ran = invoke("check", "--format", output_format, "-f", str(flags), cwd=tmp_path)  # given as an absolute path
    assert _paths(output_format, ran.stdout) == {"flags/run.flags"}, ran.stdout


def test_sarif_carries_help_uri_uri_base_and_fingerprints(tmp_path):
    flags = tmp_path / "run.flags"
    flags.write_text("log_period=10\nbogus_key=1\n")
    log = json.loads(invoke("check", "--format", "sarif", "-f", str(flags), cwd=tmp_path).stdout)
    jsonschema.validate(log, SARIF_SCHEMA)
    run = log["runs"][0]
    (rule,) = run["tool"]["driver"]["rules"]
    # By default the link is the docs/rules.md shipped with flaglint, at the rule's own section.
    shipped, anchor = rule["helpUri"].split("#")
    assert shipped == (REPO / "docs" / "rules.md").as_uri() and anchor == "fl004"
    assert f"\n## {anchor.upper()}\n" in (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    (result,) = run["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "run.flags", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    # The fingerprint follows the finding, not its line: a line added above it keeps it.
    flags.write_text("# moved\nlog_period=10\nbogus_key=1\n".replace("# moved\n", "log_period=20\n"))
    moved = json.loads(invoke("check", "--format", "sarif", "-f", str(flags), cwd=tmp_path).stdout)["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in moved if r["ruleId"] == "FL004"] == [result["partialFingerprints"]]


def _recipes(tmp_path: Path, shared_comment: str = "") -> Path:
    """Two recipes that source one shared block, as Tunix recipe families do."""
    folder = tmp_path / "recipes"
    (folder / "common").mkdir(parents=True, exist_ok=True)
    (folder / "common" / "block.sh").write_text(
        "# the block every recipe sources\n"
        f"{shared_comment}"
        'export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} context=offload query_proj=device"\n'
    )
    for name in ("small.sh", "large.sh"):
        (folder / name).write_text(
            "#!/usr/bin/env bash\n"
            'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
            'export MAXTEXT_EXTRA_FLAGS="log_period=10"\n'
            'source "${DIR}/common/block.sh"\n'
        )
    return folder


def test_a_finding_in_a_sourced_file_is_reported_once_with_the_scripts_that_reach_it(tmp_path):
    folder = _recipes(tmp_path)
    ran = invoke("lint", "--format", "json", "recipes/small.sh", "recipes/large.sh", cwd=tmp_path)
    (finding,) = json.loads(ran.stdout)["findings"]
    assert finding["rule"] == "FL105" and finding["location"]["file"] == "recipes/common/block.sh"
    assert finding["reached_from"] == ["recipes/small.sh", "recipes/large.sh"]
    text = invoke("lint", "recipes/small.sh", "recipes/large.sh", cwd=tmp_path).stdout
    assert text.count("FL105") == 1 and "reached from recipes/small.sh, recipes/large.sh" in text
    assert 'query_proj=device"' in text  # the excerpt is the shared file's own line
    assert folder.is_dir()


def test_suppressions_and_per_file_ignores_apply_where_the_finding_is(tmp_path):
    _recipes(tmp_path, '# flaglint: disable=FL105 reason="measured: fits in HBM at this batch"\n')
    ran = invoke("lint", "--format", "json", "recipes/small.sh", cwd=tmp_path)
    assert json.loads(ran.stdout)["findings"] == [] and ran.returncode == 0
    _recipes(tmp_path)
    (tmp_path / "flaglint.toml").write_text('[per-file-ignores]\n"recipes/common/*" = ["FL105"]\n')
    ignored = invoke("lint", "--format", "json", "recipes/small.sh", cwd=tmp_path)
    assert json.loads(ignored.stdout)["findings"] == []


def test_every_option_of_every_command_has_help():
    def options(command, path):
        for param in command.params:
            if isinstance(param, click.Option):
                yield path, param
        for name, sub in getattr(command, "commands", {}).items():
            yield from options(sub, f"{path} {name}")

    missing = [f"{path} {param.opts[0]}" for path, param in options(main, "flaglint") if not param.help]
    assert missing == []
    assert "interpreter" in invoke("check", "--help").stdout


def test_the_caret_is_under_the_column_the_header_names():
    flags = "log_period=10 moe_chunk_pipeline=false moe_roe_packed_routing_gather=true"
    lines = invoke("check", "--pin", "bbd0f6f10", flags).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if " FL101 " in line)
    assert lines[at].startswith("<flags>:1:15:")  # the finding is where the pipeline was turned off
    shown, caret = lines[at + 1][4:], lines[at + 2][4:]
    assert shown == flags and caret.index("^") == 14 and shown[14:caret.rindex("^") + 1] == "moe_chunk_pipeline=false"
    assert lines[at + 3] == "    also at <flags>:1:40"  # the other token the rule reads (the fix turns it off)


def test_an_elided_line_names_the_caret_s_column():
    flags = " ".join(f"log_period={n}" for n in range(20)) + " moe_roe_packed_routing_gather=true moe_chunk_pipeline=false"
    lines = invoke("check", "--pin", "bbd0f6f10", flags).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if " FL101 " in line)
    column = int(lines[at].split(":")[2])
    shown, caret = lines[at + 1][4:], lines[at + 2][4:]
    assert shown.startswith("...") and caret.endswith(f" column {column}")
    assert shown[caret.index("^"):caret.rindex("^") + 1] == flags[column - 1:column - 1 + caret.count("^")]


def test_did_you_mean_reads_other_pins_keys_too():
    ran = invoke("check", "moe_chunk_pipline=true")
    assert "did you mean moe_chunk_pipeline (a key at " in ran.stdout and "bbd0f6f10" in ran.stdout
    assert "did you mean moe_chunk_pipeline?" in invoke("check", "--pin", "bbd0f6f10", "moe_chunk_pipline=true").stdout


def test_a_fix_of_tunix_variables_prints_no_empty_flags_line_and_a_long_fix_is_not_printed_whole():
    ran = invoke("check", "--env", "ROLLOUT_FP8=false", "--env", "TRAINER_FP8=true")
    assert "fix (unsafe)" in ran.stdout and "fixed flags" not in ran.stdout
    long_flags = " ".join(f"log_period={n}" for n in range(40)) + " bogus_key=1"
    shown = invoke("check", long_flags).stdout
    assert "fixed flags" not in shown and "--fix applies it" in shown


def test_lint_reads_a_script_from_stdin_as_it_reads_the_file(tmp_path):
    script = (
        b'#!/bin/bash\nMODE=${MODE:-train}\nFLAGS="per_device_batch_size=4"\n'
        b'if [[ "$MODE" == eval ]]; then FLAGS="$FLAGS moe_chunk_pipline=true"; fi\n'
        b'export MAXTEXT_EXTRA_FLAGS="$FLAGS"\n'
    )
    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / "run.sh").write_bytes(script)
    from_file = invoke("lint", "--format", "json", "recipes/run.sh", cwd=tmp_path)
    from_stdin = invoke("lint", "--format", "json", "--stdin-filename", "recipes/run.sh", "-", stdin=script, cwd=tmp_path)
    assert from_stdin.returncode == from_file.returncode == 1
    assert json.loads(from_stdin.stdout)["findings"] == json.loads(from_file.stdout)["findings"]
    (tmp_path / "flaglint.toml").write_text('[per-file-ignores]\n"legacy/*" = ["FL004"]\n')
    assert invoke("lint", "--stdin-filename", "legacy/run.sh", "-", stdin=script, cwd=tmp_path).returncode == 0
    fixed = invoke("lint", "--fix", "-", stdin=script, cwd=tmp_path)
    assert fixed.returncode == 0 and "moe_chunk_pipline" not in fixed.stdout and fixed.stdout.startswith("#!/bin/bash\n")
    assert (tmp_path / "recipes" / "run.sh").read_bytes() == script


def test_docs_url_setting_is_where_sarif_rule_links_point(tmp_path):
    flags = tmp_path / "run.flags"
    flags.write_text("bogus_key=1\n")
    published = "https://github.example/infra/flaglint/blob/main/docs/rules.md"
    (tmp_path / "flaglint.toml").write_text(f'docs-url = "{published}"\n')
    log = json.loads(invoke("check", "--format", "sarif", "-f", str(flags), cwd=tmp_path).stdout)
    assert log["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] == published + "#fl004"
    (tmp_path / "flaglint.toml").write_text('docs-url = "docs/rules.md"\n')  # relative: SARIF wants an absolute URI
    ran = invoke("check", "-f", str(flags), cwd=tmp_path)
    assert ran.returncode == 2 and len(ran.stderr.strip().splitlines()) == 1 and "docs-url" in ran.stderr


def test_findings_are_in_file_line_and_column_order_each_with_its_place():
    ran = invoke("check", "--pin", "bbd0f6f10", "--env-file", "examples/flags/tuned-256-64x1x8.env",
                 "examples/flags/tuned-256-64x1x8-before.flags")
    places = [line.split(": ", 1)[0] for line in ran.stdout.splitlines() if line.startswith("examples/")]
    assert places == [f"examples/flags/tuned-256-64x1x8-before.flags:1:{column}" for column in (1, 167, 863)]
    # an empty flag string is at its first column; MaxText's argv words are no flag string
    assert invoke("check", "").stdout.startswith("<flags>:1:1: info FL012 ")
    assert invoke("check", "steps=10", "bogus=1").stdout.startswith("<argv>:1:10: error FL004 bogus ")


def test_show_fixes_names_the_config_file_a_fix_edited(tmp_path):
    config = tmp_path / "run.yml"
    config.write_text("base_config: base.yml\ncontext: Offload\n")
    ran = invoke("check", str(config), "--fix", "--show-fixes")
    assert ran.returncode == 0 and ran.stdout == "" and config.read_text() == "base_config: base.yml\ncontext: offload\n"
    assert ran.stderr == f"fixed {config}: fix (safe): context: Offload -> offload\n"

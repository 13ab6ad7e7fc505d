"""The rest of the command line: --fix/--write, rules/explain, project configuration, malformed rule files."""

import json

import pytest
from commandline import run_flaglint

from flaglint.core.findings import InputError
from flaglint.frontends.checker import Checker


def test_fix_prints_the_fixed_string():
    proc = run_flaglint("check", "--fix", "--unsafe-fixes", "log_period=100 num_moe_token_chunks=4")
    assert proc.returncode == 0 and proc.stdout.strip() == "log_period=100"


def test_fix_write_rewrites_only_the_token_and_is_idempotent(tmp_path):
    flags = tmp_path / "run.flags"
    flags.write_text("stray moe_roe_packed_routing_gather=true  moe_chunk_pipeline=false\n")
    # Tunix refuses the token without '=' (FL001): the fix drops it with the broken rule's token.
    proc = run_flaglint("check", "--pin", "bbd0f6f10", "--fix", "-f", str(flags))
    assert proc.returncode == 0 and flags.read_text() == "moe_chunk_pipeline=false\n"
    flags.write_text("log_period=100\tmoe_roe_packed_routing_gather=true  moe_chunk_pipeline=false\n")
    proc = run_flaglint("check", "--pin", "bbd0f6f10", "--fix", "-f", str(flags))
    assert proc.returncode == 0, proc.stderr
    assert flags.read_text() == "log_period=100  moe_chunk_pipeline=false\n"
    again = run_flaglint("check", "--pin", "bbd0f6f10", "--fix", "-f", str(flags))
    assert again.returncode == 0 and flags.read_text() == "log_period=100  moe_chunk_pipeline=false\n"


def test_rules_and_explain():
    listing = run_flaglint("rules", "--pin", "bbd0f6f10").stdout
    assert "FL101" in listing and "MXCQ1N5" in listing
    assert "FL101" not in run_flaglint("rules", "--pin", "maxtext-0.2.5").stdout
    explained = run_flaglint("explain", "fl101")
    assert explained.returncode == 0
    for part in ("packed routing gather needs the chunk pipeline", "Bad:", "Good:", "Fix:", "Source:"):
        assert part in explained.stdout
    assert run_flaglint("explain", "FL999").returncode == 2


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("rules:\n- id: X1\n  title: t\n  severity: error\n  require: a ==\n  message: m\n  rationale: r\n  source: s\n", "syntax error"),
        ("rules:\n- id: X1\n  title: t\n  severity: error\n  require: eval('1')\n  message: m\n  rationale: r\n  source: s\n", "unknown function"),
        ("rules:\n- id: X1\n  title: t\n  severity: fatal\n  require: a\n  message: m\n  rationale: r\n  source: s\n", "severity"),
        ("rules:\n- id: X1\n  title: t\n  severity: error\n  require: a\n  message: m\n  source: s\n", "lacks rationale"),
        ("rules:\n- id: X1\n  title: t\n  severity: error\n  require: a\n  message: m\n  rationale: r\n  source: s\n  colour: red\n", "unknown field"),
        ("rules: [\n", "invalid YAML"),
    ],
)
def test_malformed_rule_file_names_file_line_and_reason(tmp_path, body, reason):
    path = tmp_path / "extra.yml"
    path.write_text(body)
    with pytest.raises(InputError) as err:
        Checker("maxtext-0.2.5", extra_rules=(str(path),))
    assert str(path) in str(err.value) and reason in str(err.value)
    assert f"{path}:2" in str(err.value) or "invalid YAML" in str(err.value)


def test_model_config_conflict_and_override():
    conflict = json.loads(run_flaglint("check", "--format", "json", "--model", "llama2-7b", "base_emb_dim=1024").stdout)
    assert [f["rule"] for f in conflict["findings"]] == ["FL006"]
    allowed = run_flaglint("check", "--model", "llama2-7b", "override_model_config=true base_emb_dim=1024")
    assert allowed.returncode == 0
    same = run_flaglint("check", "--model", "llama2-7b", "base_emb_dim=4096")
    assert same.returncode == 0
    assert run_flaglint("check", "--model", "llama2-7", "log_period=1").returncode == 2

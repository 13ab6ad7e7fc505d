"""The project's settings: [tool.flaglint] or flaglint.toml, typed, with per-file-ignores and select."""

import json

from commandline import run_flaglint


def test_project_configuration(tmp_path):
    (tmp_path / "flaglint.toml").write_text(
        'pin = "bbd0f6f10"\nignore = ["FL003"]\nfail-on = "warning"\n'
        '[severity]\nFL105 = "error"\n'
    )
    proc = run_flaglint("check", "--format", "json", "context=offload query_proj=device log_period=1 log_period=2", cwd=tmp_path)
    payload = json.loads(proc.stdout)
    assert payload["pin"] == "bbd0f6f10"
    assert [(f["rule"], f["severity"]) for f in payload["findings"]] == [("FL105", "error")]
    assert proc.returncode == 1
    shown = run_flaglint("config", cwd=tmp_path).stdout
    assert f'ignore = ["FL003"]    # {tmp_path / "flaglint.toml"}' in shown and "path-cap = 64    # default" in shown
    override = run_flaglint("check", "--pin", "maxtext-0.2.5", "--format", "json", "log_period=1", cwd=tmp_path)
    assert json.loads(override.stdout)["pin"] == "maxtext-0.2.5"


def test_per_file_ignores_and_select(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.flaglint]\nselect = ["FL1"]\n[tool.flaglint.per-file-ignores]\n"legacy/*" = ["FL105"]\n')
    (tmp_path / "legacy").mkdir()
    for folder in ("legacy", "."):
        (tmp_path / folder / "x.flags").write_text("context=offload qkv_proj=device bogus_key=1")
    legacy = json.loads(run_flaglint("check", "--format", "json", "-f", "legacy/x.flags", cwd=tmp_path).stdout)
    current = json.loads(run_flaglint("check", "--format", "json", "-f", "x.flags", cwd=tmp_path).stdout)
    assert legacy["findings"] == []  # FL004 not selected, FL105 ignored here
    assert [f["rule"] for f in current["findings"]] == ["FL105"]


def test_bad_config_file_is_one_line(tmp_path):
    (tmp_path / "flaglint.toml").write_text("pin = [\n")
    proc = run_flaglint("check", "log_period=1", cwd=tmp_path)
    assert proc.returncode == 2 and "flaglint.toml" in proc.stderr and "Traceback" not in proc.stderr

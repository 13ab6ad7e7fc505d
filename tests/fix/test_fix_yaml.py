"""`check CONFIG.yml --fix`: the fix is written where each value was set, the config file keeping
its comments and layout; argv keeps the rest; a second run has nothing to fix."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.fix.config_files import REMOVE, edit_yaml

CONFIG = """\
# My pre-training run: keep this comment
base_config: "base.yml"
run_name: demo   # the name
log_period: 1.5
steps: 10
ici_fsdp_parallelism: 8   # fsdp over the slice
"""


def test_the_fix_edits_the_file_that_set_each_value_and_keeps_its_comments(tmp_path, flaglint_cli):
    config = tmp_path / "run.yml"
    config.write_text(CONFIG)
    proc = flaglint_cli("check", str(config), "--topology", "v5p-8", "scan_layers=true", "--fix", "--unsafe-fixes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = config.read_text()
    # log_period: 1.5 is refused, so it goes (base.yml's value comes back); the mesh fits 4 devices.
    assert text == CONFIG.replace("log_period: 1.5\n", "").replace("ici_fsdp_parallelism: 8 ", "ici_fsdp_parallelism: 4 ")
    assert proc.stdout.strip() == "scan_layers=true"
    again = flaglint_cli("check", str(config), "--topology", "v5p-8", "scan_layers=true", "--fix", "--unsafe-fixes")
    assert again.returncode == 0 and config.read_text() == text


def test_with_diff_the_fix_is_a_diff_of_the_file(tmp_path, flaglint_cli):
    config = tmp_path / "run.yml"
    config.write_text(CONFIG)
    proc = flaglint_cli("check", str(config), "--topology", "v5p-8", "--diff", "--unsafe-fixes")
    assert "-log_period: 1.5" in proc.stdout and "+ici_fsdp_parallelism: 4   # fsdp over the slice" in proc.stdout
    assert config.read_text() == CONFIG


def test_a_config_file_fix_is_applied_and_reported_as_byte_edits_like_every_other_fix(tmp_path, flaglint_cli):
    config = tmp_path / "run.yml"
    config.write_bytes(b"\xef\xbb\xbf" + CONFIG.encode("utf-8"))
    diff = flaglint_cli("check", str(config), "--topology", "v5p-8", "--diff", "--unsafe-fixes")
    assert diff.returncode == 1 and "+ici_fsdp_parallelism: 4   # fsdp over the slice" in diff.stdout
    proc = flaglint_cli("check", str(config), "--topology", "v5p-8", "--fix", "--unsafe-fixes", "--format", "json")
    (applied,) = json.loads(proc.stdout)["applied"]
    assert not applied["safe"] and [c["key"] for c in applied["changes"]] == ["ici_fsdp_parallelism", "log_period"]
    assert [(e["line"], e["old"], e["new"]) for e in applied["edits"]] == [(4, "log_period: 1.5", ""), (6, "8", "4")]
    text = CONFIG.replace("log_period: 1.5\n", "").replace("ici_fsdp_parallelism: 8 ", "ici_fsdp_parallelism: 4 ")
    assert config.read_bytes() == b"\xef\xbb\xbf" + text.encode("utf-8")  # the BOM is kept


_KEY = st.sampled_from(["steps", "log_period", "run_name", "eval_interval"])


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(_KEY, st.integers(0, 999), min_size=1, max_size=4), st.dictionaries(_KEY, st.integers(0, 999) | st.just(REMOVE)))
def test_an_edit_changes_only_its_keys_and_keeps_every_comment(written, changes):
    import yaml

    text = "# head\n" + "".join(f"{k}: {v}  # about {k}\n" for k, v in written.items())
    edited = edit_yaml(text, changes, "t.yml")
    expected = {k: v for k, v in {**written, **changes}.items() if v is not REMOVE and (k in written or k in changes)}
    assert (yaml.safe_load(edited) or {}) == expected
    for key in written:
        if changes.get(key, written[key]) is not REMOVE:
            assert f"# about {key}" in edited
    assert edited.startswith("# head\n") or not expected

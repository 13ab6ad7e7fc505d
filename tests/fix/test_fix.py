"""`--fix`, `--diff`, `--unsafe-fixes`, `--show-fixes` for flag files, strings, scripts and manifests:
one fix model, one way of writing, and safety labels that mean what the README says."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from commandline import run_flaglint as invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.maxtext.values import ValueError_, type_value
from flaglint.read.flags import FlagSource
from flaglint.resolve.resolver import close_keys

REPO = Path(__file__).resolve().parents[2]
PIN = "bbd0f6f10"
# Two fixes of one conflict: turning the packed gather off (safe) or the chunk pipeline on (unsafe).
TIED = "moe_roe_packed_routing_gather=true moe_chunk_pipeline=false num_moe_token_chunks=2 use_ring_of_experts=true ici_expert_parallelism=2"


def test_dropping_a_token_that_turns_a_feature_on_or_changes_a_choice_is_unsafe():
    result = Checker(PIN).check(FlagSource(TIED))
    labels = {fix.changes[0].key: fix.safe for fix in result.fixes}
    assert labels == {"moe_roe_packed_routing_gather": True, "moe_chunk_pipeline": False}
    assert result.fixes[0].safe  # the safe one is offered first
    # A mistyped mesh rule is refused; dropping it falls back to the default mesh: a choice changes.
    (fix,) = Checker().check(FlagSource("log_period=10 custom_mesh_and_rule=cp-as-epp")).fixes
    assert fix.flags == "log_period=10" and not fix.safe
    # Keys the pin does not define and tokens without '=' change nothing when they go.
    (fix,) = Checker().check(FlagSource("stray bogus_key=1 log_period=10")).fixes
    assert fix.flags == "log_period=10" and fix.safe
    # A value refused only for its case is corrected: safe.
    (fix,) = Checker().check(FlagSource("context=Offload")).fixes
    assert fix.flags == "context=offload" and fix.safe


def test_check_fix_applies_the_safe_fix_when_there_is_one():
    ran = invoke("check", "--pin", PIN, "--fix", TIED)
    assert ran.returncode == 0, ran.stderr
    assert "moe_chunk_pipeline=false" in ran.stdout and "moe_roe_packed_routing_gather" not in ran.stdout


def test_check_fix_leaves_unsafe_fixes_unless_asked():
    flags = "log_period=10 custom_mesh_and_rule=cp-as-epp"
    held = invoke("check", "--fix", flags)
    assert held.returncode == 1 and held.stdout.strip() == flags and "--unsafe-fixes" in held.stderr
    applied = invoke("check", "--fix", "--unsafe-fixes", flags)
    assert applied.returncode == 0 and applied.stdout.strip() == "log_period=10"


def test_fix_writes_every_flag_file_and_the_exit_code_covers_them_all(tmp_path):
    first, second, left = tmp_path / "a.flags", tmp_path / "b.flags", tmp_path / "c.flags"
    first.write_text("stray log_period=10\n")
    second.write_text("bogus_key=1 context=Offload\n")
    left.write_text("log_period=1.5\n")  # dropping it gives the default period: unsafe, so it stays
    ran = invoke("check", "--fix", "--show-fixes", "--files", str(first), str(second), str(left))
    assert first.read_text() == "log_period=10\n" and second.read_text() == "context=offload\n"
    assert left.read_text() == "log_period=1.5\n"
    assert ran.returncode == 1 and "FL005" in ran.stdout and "FL004" not in ran.stdout
    assert f"fixed {first}" in ran.stderr and f"fixed {second}" in ran.stderr
    assert invoke("check", "--fix", "--unsafe-fixes", "--files", str(first), str(second), str(left)).returncode == 0
    assert left.read_text() == "\n"


def test_fix_with_json_prints_the_json_contract_and_what_was_applied(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_text("stray log_period=10 log_period=20\n")
    payload = json.loads(invoke("check", "--fix", "--format", "json", "-f", str(flags)).stdout)
    assert payload["version"] == 2 and [f["rule"] for f in payload["findings"]] == ["FL003"]  # info: not fixed
    (applied,) = payload["applied"]
    assert applied["input"] == str(flags) and applied["safe"] and applied["changes"] == [{"key": "stray", "from": None, "to": None}]
    string = json.loads(invoke("check", "--fix", "--format", "json", "stray log_period=10").stdout)
    assert string["findings"] == [] and string["applied"][0]["flags"] == "log_period=10"


def test_every_edit_names_the_span_it_replaces_in_the_text_the_user_wrote():
    # One edit type for a flag string and a file: line, column and end column of what it replaces.
    flags = "log_period=10\n  stray  context=Offload"
    (fix,) = json.loads(invoke("check", "--format", "json", flags).stdout)["fixes"]
    lines = flags.split("\n")
    assert [e["old"] for e in fix["edits"]] == ["stray", "context=Offload"]
    for edit in fix["edits"]:
        assert lines[edit["line"] - 1][edit["column"] - 1:edit["end_column"] - 1] == edit["old"]
    assert [e["new"] for e in fix["edits"]] == ["", "context=offload"]


def test_diff_prints_only_the_diff_and_writes_nothing(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_text("stray log_period=10\n")
    ran = invoke("check", "--diff", "-f", str(flags))
    assert ran.returncode == 1 and flags.read_text() == "stray log_period=10\n"
    assert ran.stdout.splitlines()[-2:] == ["-stray log_period=10", "+log_period=10"]
    assert "error" not in ran.stdout
    assert invoke("check", "--diff", "log_period=10").returncode == 0


def test_a_write_keeps_bom_line_ends_mode_symlink_and_hard_links(tmp_path):
    real = tmp_path / "real.flags"
    real.write_bytes(b"\xef\xbb\xbfstray\tlog_period=10 bogus_key=1\r\n# a note, not a flag\r\n")
    os.chmod(real, 0o640)
    link = tmp_path / "link.flags"
    link.symlink_to(real)
    hard = tmp_path / "hard.flags"
    os.link(real, hard)
    ran = invoke("check", "--fix", "-f", str(link))
    assert ran.returncode == 0, ran.stdout
    # Every token Tunix or MaxText refuses goes ('#', 'a', ... have no '='); the BOM and CRLFs stay.
    assert real.read_bytes() == b"\xef\xbb\xbflog_period=10\r\n\r\n"
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert hard.read_bytes() == real.read_bytes() and os.stat(hard).st_ino == os.stat(real).st_ino
    assert os.stat(real).st_mode & 0o777 == 0o640
    again = invoke("check", "--fix", "-f", str(link))
    assert again.returncode == 0 and real.read_bytes() == b"\xef\xbb\xbflog_period=10\r\n\r\n"  # idempotent


def test_a_write_keeps_the_owner(tmp_path):
    if os.getuid() != 0:
        pytest.skip("changing a file's owner needs root")
    flags = tmp_path / "a.flags"
    flags.write_text("stray log_period=10\n")
    os.chown(flags, 4321, 4321)
    invoke("check", "--fix", "-f", str(flags))
    assert flags.read_text() == "log_period=10\n" and (os.stat(flags).st_uid, os.stat(flags).st_gid) == (4321, 4321)


def test_a_bom_is_not_part_of_the_first_key(tmp_path):
    flags = tmp_path / "a.flags"
    flags.write_bytes(b"\xef\xbb\xbflog_period=10\n")
    assert invoke("check", "-f", str(flags)).returncode == 0


def test_gate_fix_edits_the_manifest_and_stdin_is_printed_fixed(tmp_path):
    manifest = tmp_path / "jobset.yaml"
    shutil.copy(REPO / "examples" / "jobsets" / "trainer-256-bad.yaml", manifest)
    before = manifest.read_text()
    assert invoke("gate", "--pin", PIN, manifest.as_posix()).returncode == 1
    ran = invoke("gate", "--pin", PIN, "--fix", str(manifest))
    after = manifest.read_text()
    assert ran.returncode == 0, ran.stdout
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert len(changed) == 1 and "moe_roe_packed_routing_gather=true" in changed[0][0]
    assert invoke("gate", "--pin", PIN, "--fix", str(manifest)).returncode == 0 and manifest.read_text() == after
    piped = invoke("gate", "--pin", PIN, "--fix", "-", stdin=before)
    assert piped.returncode == 0 and piped.stdout.strip() == after.strip()


# ---- the safety label against the README's definition, on random flag strings ----

_TOKENS = [
    "moe_roe_packed_routing_gather=true", "moe_roe_packed_routing_gather=false", "moe_chunk_pipeline=true",
    "moe_chunk_pipeline=false", "num_moe_token_chunks=1", "num_moe_token_chunks=2", "num_moe_token_chunks=4",
    "use_ring_of_experts=true", "use_ring_of_experts=false", "ici_expert_parallelism=2",
    "custom_mesh_and_rule=cp-as-ep", "custom_mesh_and_rule=cp-as-epp", "context=offload", "context=Offload",
    "context=remat", "log_period=1.5", "log_period=10", "log_perod=100", "bogus_key=1", "stray", "sa_use_base2_exp=true",
]
_CHECKER = Checker(PIN)
_REFUSED = object()


def _in_effect(flags: str) -> dict:
    """Each key's value in effect by the definition's terms: a key whose last token MaxText refuses is refused."""
    config, _ = _CHECKER.config(FlagSource(flags))
    last = {token.key: token.value for token in config.tokens if token.key in config.pin.keys}
    values = {}
    for key in set(last) | set(config.explicit):
        try:
            values[key] = type_value(config.pin.keys[key], last[key]) if key in last else config.lookup(key)
        except ValueError_:
            values[key] = (_REFUSED, last[key])
    return values, config


def _safe_by_definition(before: str, after: str) -> bool:
    old_values, _ = _in_effect(before)
    new_values, after_config = _in_effect(after)
    for key in set(old_values) | set(new_values):
        old = old_values.get(key, after_config.pin.default(key))
        new = new_values.get(key, after_config.pin.default(key))
        if isinstance(new, tuple):
            return False  # a fix never leaves a refused value
        refused = isinstance(old, tuple)
        if not refused and old == new and type(old) is type(new):
            continue  # unchanged
        if new is False and (old is True or refused):
            continue  # a feature turned off (or left off in place of a refused value)
        if refused and isinstance(new, str) and new.lower() == old[1].lower():
            continue  # the case corrected
        return False
    return True


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=6))
def test_every_fix_is_labelled_safe_exactly_when_the_definition_says_so(tokens):
    flags = " ".join(tokens)
    for fix in _CHECKER.check(FlagSource(flags)).fixes:
        if _is_rename(fix):
            assert not fix.safe
            continue
        assert fix.safe == _safe_by_definition(flags, fix.flags), (flags, fix.flags, fix.changes)


def _is_rename(fix) -> bool:
    dropped = [c.key for c in fix.changes if c.to is None and c.key not in _CHECKER.pin.keys]
    return any(c.from_ is None and c.key in close_keys(key, PIN) for c in fix.changes for key in dropped)


def test_a_rename_that_did_you_mean_suggests_is_offered_and_unsafe():
    result = Checker().check(FlagSource("log_perod=10 context=offload"))
    assert [(fix.flags, fix.safe) for fix in result.fixes] == [("context=offload", True), ("log_period=10 context=offload", False)]
    # The rename is unsafe even when the value it sets is the default: the suggestion is a guess.
    (_, rename) = Checker().check(FlagSource("log_perod=100")).fixes
    assert rename.flags == "log_period=100" and not rename.safe

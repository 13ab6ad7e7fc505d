"""Every shipped schema file is valid under the pydantic models that define its format, and pins layer as the seed says."""

import json
from pathlib import Path

import pytest
import yaml

from flaglint.frontends.checker import Checker
from flaglint.pins.pins import (
    canonical_pin,
    known_pins,
    load_pin,
    pin_from_requirements,
)
from flaglint.read.flags import FlagSource
from flaglint.schema.model import MaxTextSchemaFile, PinOverlayFile, TunixSchemaFile

SCHEMAS = Path(__file__).resolve().parent.parent.parent / "schemas"
NINE = [
    "moe_routing_maps", "moe_gmm_v2_dlhs_transpose_rhs", "moe_routing_index_math", "moe_unsplit_prefused_wi",
    "moe_roe_packed_routing_gather", "moe_router_grad_from_wo_input", "moe_wi_gmm_fused_swiglu",
    "gdn_conv1d_input_in_qkv_dtype", "gdn_conv1d_dense_token_stack",
]


def test_files_validate_against_the_models():
    releases = sorted(SCHEMAS.glob("maxtext-*.json"))
    assert [p.stem for p in releases] == ["maxtext-0.1.0", "maxtext-0.2.0", "maxtext-0.2.3", "maxtext-0.2.4", "maxtext-0.2.5"]
    for path in releases:
        MaxTextSchemaFile.model_validate(json.loads(path.read_text()))
    TunixSchemaFile.model_validate(yaml.safe_load((SCHEMAS / "tunix.yml").read_text()))
    overlays = sorted((SCHEMAS / "pins").glob("*.yml"))
    assert {p.stem for p in overlays} == {"e526ea02", "e93800779", "d66a82096", "22fa0c559", "bbd0f6f10"}
    for path in overlays:
        overlay = PinOverlayFile.model_validate(yaml.safe_load(path.read_text()))
        assert overlay.source.startswith("seed"), path
        assert all(k.source for k in overlay.keys_added)


def test_the_nine_keys_undefined_at_e526ea02():
    tuned = (Path(__file__).resolve().parent.parent.parent / "examples" / "flags" / "tuned-128.flags").read_text()
    result = Checker("e526ea02").check(FlagSource(tuned), fix=False)
    undefined = sorted(f.keys[0] for f in result.findings if f.rule == "FL004")
    assert undefined == sorted(NINE)
    assert not [f for f in Checker("bbd0f6f10").check(FlagSource(tuned), fix=False).findings if f.rule == "FL004"]


@pytest.mark.parametrize("rule", ["cp-as-ep-dense-no-cp", "cp-as-ep-dense-fsdp"])
def test_mesh_rules_added_at_d66a82096(rule):
    assert rule not in load_pin("e93800779").keys["custom_mesh_and_rule"].choices
    assert rule in load_pin("22fa0c559").keys["custom_mesh_and_rule"].choices
    bad = Checker("e93800779").check(FlagSource(f"custom_mesh_and_rule={rule}"), fix=False)
    assert [f.rule for f in bad.findings] == ["FL005"]


def test_d66a82096_does_not_start_the_trainer():
    assert not load_pin("d66a82096").starts_trainer and load_pin("22fa0c559").starts_trainer
    result = Checker("d66a82096").check(FlagSource("log_period=10"))
    assert [f.rule for f in result.findings] == ["FL007"]


def test_pin_names():
    assert canonical_pin("0.2.5") == "maxtext-0.2.5"
    assert canonical_pin("bbd0f6f10b17bb8038e926b0461405f2e829fc41") == "bbd0f6f10"
    assert "maxtext-0.2.5" in known_pins()


def test_pin_from_requirements(tmp_path):
    git = tmp_path / "maxtext_requirements.txt"
    git.write_text("# pinned\nmaxtext @ git+https://github.com/AI-Hypercomputer/maxtext.git@bbd0f6f10b17bb8038e926b0461405f2e829fc41\n")
    assert canonical_pin(pin_from_requirements(str(git))) == "bbd0f6f10"
    released = tmp_path / "r.txt"
    released.write_text("numpy\nmaxtext==0.2.5\n")
    assert pin_from_requirements(str(released)) == "maxtext-0.2.5"


def test_pin_from_pyproject(tmp_path, flaglint_cli):
    (tmp_path / "pyproject.toml").write_text('[tool.flaglint]\npin = "bbd0f6f10"\n')
    proc = flaglint_cli("check", "--format", "json", "moe_chunk_pipeline=false", cwd=tmp_path)
    assert proc.returncode == 0 and json.loads(proc.stdout)["pin"] == "bbd0f6f10"
    config = flaglint_cli("config", cwd=tmp_path)
    assert 'pin = "bbd0f6f10"' in config.stdout and str(tmp_path / "pyproject.toml") in config.stdout

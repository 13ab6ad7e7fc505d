"""The public Python API: flaglint.check_flags and flaglint.check_manifest return typed findings and fixes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import flaglint
from flaglint import Change, Finding, Fix, Location, Result

ROOT = Path(__file__).parents[3]
PIN = "bbd0f6f10"
ENV_256 = {"TRAINER_TPU_SLICE": "tpu7x:4x8x8", "TRAINER_MESH_FSDP": "64", "TRAINER_MESH_EXPERT": "1",
           "TRAINER_MESH_CONTEXT": "8", "TRAIN_MICRO_BATCH_SIZE": "64"}


def _errors(result: Result) -> list[Finding]:
    return [f for f in result.findings if f.severity == "error"]


def test_check_flags_returns_typed_findings_and_a_fix_that_checks_clean():
    flags = (ROOT / "examples/flags/tuned-256-64x1x8-before.flags").read_text(encoding="utf-8")
    result = flaglint.check_flags(flags, pin=PIN, env=ENV_256)
    assert isinstance(result, Result) and result.pin == PIN
    (error,) = _errors(result)
    assert isinstance(error, Finding) and error.rule == "FL101"
    assert isinstance(error.location, Location) and flags[error.location.column - 1:].startswith("moe_chunk_pipeline=false")
    fix = result.fixes[0]
    assert isinstance(fix, Fix) and fix.safe
    assert fix.changes == [Change("moe_roe_packed_routing_gather", True, False)]
    assert not _errors(flaglint.check_flags(fix.flags, pin=PIN, env=ENV_256))
    assert result.to_json()["findings"][-1]["rule"] == "FL101"


def test_check_manifest_takes_a_path_or_the_yaml_text():
    path = ROOT / "examples/jobsets/trainer-256-bad.yaml"
    by_path = flaglint.check_manifest(path, pin=PIN)
    by_text = flaglint.check_manifest(path.read_text(encoding="utf-8"), pin=PIN, label="rendered.yaml")
    for checked, label in ((by_path, str(path)), (by_text, "rendered.yaml")):
        (launch,) = checked
        assert launch.label == label
        (error,) = _errors(launch.result)
        assert error.rule == "FL101" and error.location.file == label
        assert [c.key for c in launch.result.fixes[0].changes] == ["moe_roe_packed_routing_gather"]


def test_a_good_manifest_has_no_errors():
    checked = flaglint.check_manifest(ROOT / "examples/jobsets/trainer-128.yaml", pin=PIN)
    assert checked and not any(_errors(item.result) for item in checked)


def test_importing_flaglint_stays_light():
    code = "import sys, flaglint; flaglint.check_flags; flaglint.check_manifest; print(sorted(m for m in ('z3', 'jax') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

"""The GitHub Actions example: valid YAML, and the gate runs (and can stop the job) before kubectl apply."""

from __future__ import annotations

from pathlib import Path

import yaml

WORKFLOW = Path(__file__).parents[3] / "examples" / "ci" / "gate.yml"


def _steps():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    return job["steps"]


def _index(steps, needle: str) -> int:
    return next(i for i, step in enumerate(steps) if needle in step.get("run", ""))


def test_the_gate_runs_before_kubectl_apply():
    steps = _steps()
    gate, apply = _index(steps, "rendered.yaml --format github"), _index(steps, "kubectl apply")
    assert gate < apply
    # The blocking gate step must not swallow its exit status, and apply must not run regardless of it.
    assert "|| true" not in steps[gate]["run"] and "continue-on-error" not in steps[gate]
    assert "always()" not in steps[apply].get("if", "")


def test_sarif_is_uploaded():
    steps = _steps()
    produced = _index(steps, "--format sarif > flaglint.sarif")
    upload = next(i for i, step in enumerate(steps) if step.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert produced < upload and steps[upload]["with"]["sarif_file"] == "flaglint.sarif"

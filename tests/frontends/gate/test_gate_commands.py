"""gate on containers that run MaxText's own entry point: command/args checked as MaxText's argv,
with M_ variables from the container env and the device count from the TPU topology selector."""

from __future__ import annotations

from pathlib import Path

from flaglint.frontends.gate.manifests import check_manifest

MANIFEST = Path(__file__).with_name("manifests") / "maxtext-args.yaml"


def test_a_containers_maxtext_args_are_checked_where_the_manifest_writes_them():
    (checked,) = check_manifest(MANIFEST)
    found = {(f.rule, f.location.line) for f in checked.result.findings}
    line = MANIFEST.read_text().splitlines()[21]
    # log_period=1.5 is refused; steps is in args and in M_STEPS; ici_fsdp_parallelism=8 is not the
    # 4 devices of a v5p 2x2x1 slice.
    assert found == {("FL005", 22), ("FL040", 22), ("FL141", 22)}
    columns = {f.rule: f.location.column for f in checked.result.findings}
    assert line[columns["FL005"] - 1:].startswith("log_period=1.5")
    assert line[columns["FL141"] - 1:].startswith("ici_fsdp_parallelism=8")


def test_a_clean_maxtext_container_passes(tmp_path):
    text = MANIFEST.read_text().replace('"log_period=1.5", ', "").replace(', "ici_fsdp_parallelism=8"', "")
    text = text.replace("- name: M_STEPS", "- name: M_LOG_PERIOD")
    clean = tmp_path / "clean.yaml"
    clean.write_text(text)
    (checked,) = check_manifest(clean)
    assert not [f for f in checked.result.findings if f.severity == "error"], [f.message for f in checked.result.findings]

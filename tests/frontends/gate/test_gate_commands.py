"""gate on containers that run MaxText's own entry point: command/args checked as MaxText's argv,
with M_ variables from the container env and the device count from the TPU topology selector."""

from __future__ import annotations

from pathlib import Path

from commandline import run_flaglint

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


def test_a_container_of_the_maxtext_dir_layout_is_judged_at_its_pin_and_told_which(tmp_path):
    # `python3 MaxText/train.py MaxText/configs/base.yml …`: MaxText 0.1.0 and before
    text = (MANIFEST.read_text().replace('["python3", "-m", "maxtext.trainers.pre_train.train"]', '["python3", "MaxText/train.py"]')
            .replace('"src/maxtext/configs/base.yml"', '"MaxText/configs/base.yml"').replace('"log_period=1.5"', '"kv_quant_axis=heads"'))
    manifest = tmp_path / "jobset.yaml"
    manifest.write_text(text)
    pinned = run_flaglint("gate", "--isolated", "--pin", "maxtext-0.1.0", str(manifest))
    assert "error MXF2YSW" in pinned.stdout and "error FL005" not in pinned.stdout, pinned.stdout
    assert "MaxText/ layout of MaxText 0.1.0 and before; judged by maxtext-0.1.0 (--pin)" in pinned.stdout
    default = run_flaglint("gate", "--isolated", str(manifest))
    assert "error FL005" in default.stdout and "judged by maxtext-0.2.5, the default pin" in default.stdout
    assert "give --pin maxtext-0.1.0" in default.stdout

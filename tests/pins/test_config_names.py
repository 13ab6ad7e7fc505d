"""What each pin knows of how its MaxText starts: the config file pyconfig takes from argv[1] (0.2.0
whatever its name, later releases a name ending in .yml) and the keys the device-count lookup reads
(0.2.0 has no custom_mesh_and_rule)."""

from __future__ import annotations

import pytest
from commandline import run_flaglint
from hypothesis import given
from hypothesis import strategies as st
from maxtext_env import RELEASES

from flaglint.maxtext.launch import recognise
from flaglint.pins.pins import load_pin
from flaglint.schema.config_index import load_index

TOPOLOGIES = ["v5p-8", "v6e-64", "tpu7x:4x4x8", "v4-8"]


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_a_device_count_at_every_release_reads_only_keys_it_defines(version, topology):
    done = run_flaglint("check", "--pin", f"maxtext-{version}", "--topology", topology, "steps=1", "ici_fsdp_parallelism=-1")
    assert done.returncode in (0, 1) and "internal error" not in done.stderr, done.stderr


@pytest.mark.parametrize("version, suffix", [("0.2.0", None), ("0.2.3", ".yml"), ("0.2.4", ".yml"), ("0.2.5", ".yml")])
def test_each_release_says_how_its_pyconfig_finds_the_config_file(version, suffix):
    assert load_index(load_pin(version).configs).config_suffix == suffix


def test_0_2_0_reads_a_yaml_config_and_later_releases_refuse_it(tmp_path):
    (tmp_path / "gpu.yaml").write_text('base_config: "base.yml"\nsteps: 5\nnot_a_key: 1\n')
    old = run_flaglint("check", "--pin", "maxtext-0.2.0", "gpu.yaml", "log_period=10", cwd=tmp_path)
    assert old.returncode == 1 and "gpu.yaml:3:1: error FL004 not_a_key is not a key of MaxText 0.2.0" in old.stdout, old.stdout + old.stderr
    new = run_flaglint("check", "--pin", "maxtext-0.2.5", "gpu.yaml", "log_period=10", cwd=tmp_path)
    assert new.returncode == 2 and "only when the name ends in .yml" in new.stderr and len(new.stderr.strip().splitlines()) == 1


@given(name=st.from_regex(r"[a-z][a-z0-9_]{0,8}\.(yml|yaml|cfg)", fullmatch=True), key=st.sampled_from(["steps=3", "log_period=1"]))
def test_the_launch_recogniser_takes_argv1_as_each_pin_does(name, key):
    words = ["python3", "MaxText/train.py", name, key]
    for version, takes in (("0.2.0", True), ("0.2.5", name.endswith(".yml"))):
        command = recognise(words, load_index(load_pin(version).configs))
        assert command is not None and (command.config == name) == takes, (version, name)
        assert command.args == ((3,) if takes else (2, 3))

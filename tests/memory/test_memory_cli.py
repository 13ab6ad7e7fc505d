"""`flaglint memory` without a compile: a verdict kept from an earlier compile answers a launch
asked about again, a config MaxText would refuse is not compiled, and what it cannot compile for
is refused in one line. The compiles themselves are in test_compile_oracle.py (-m oracle)."""

import json

import pytest
from commandline import run_flaglint
from test_verdict import recorded

from flaglint.frontends.check.inputs import check_sources
from flaglint.frontends.checker import Checker
from flaglint.memory.compile import keep_verdict, verdict_key
from flaglint.memory.environment import environment_dir
from flaglint.memory.request import compile_request
from flaglint.memory.verdict import read_answer
from flaglint.pins.pins import DEFAULT_PIN

VERSIONS = {"maxtext": "0.2.5", "jax": "0.12.0.1", "jaxlib": "0.12.0.1", "libtpu": "0.0.52"}
ARGV = ("per_device_batch_size=1", "steps=5")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A user cache holding flaglint's compile environment for 0.2.5 (its record: no interpreter is
    run when every verdict is kept)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    environment = environment_dir("0.2.5")
    environment.mkdir(parents=True)
    (environment / "flaglint-environment.json").write_text(json.dumps(VERSIONS))
    return tmp_path


def kept(argv, answer: str, topology="v5e-8", env=None, slices=1):
    checker = Checker(DEFAULT_PIN)
    (source,) = check_sources(argv, checker.pin.configs)
    request = compile_request(checker.config(source, env or {})[0], checker.pin.version, topology, slices, env or {})
    keep_verdict(verdict_key(request, checker.pin.pin, VERSIONS), read_answer(recorded(answer)))


def test_a_launch_asked_about_again_is_answered_by_the_kept_verdict(cache):
    kept(ARGV, "default-batch1-v5e-8.json")
    ran = run_flaglint("memory", "--topology", "v5e-8", *ARGV)
    assert ran.returncode == 0, ran.stderr
    assert "the train step fits: its peak is 2.67 GiB a chip of the 15.75 GiB of HBM a chip has, 13.08 GiB to spare" in ran.stdout
    assert "jax 0.12.0.1, jaxlib 0.12.0.1, libtpu 0.0.52, maxtext 0.2.5 (the verdict kept from an earlier compile)" in ran.stdout


def test_an_out_of_memory_verdict_is_an_error_at_the_launch(cache):
    argv = ("per_device_batch_size=64", "steps=5")
    kept(argv, "default-batch64-v5e-8.json")
    ran = run_flaglint("memory", "--topology", "v5e-8", "--format", "json", *argv)
    (finding,) = json.loads(ran.stdout)["findings"]
    assert ran.returncode == 1 and finding["rule"] == "FL018"
    assert finding["message"].startswith("the train step does not fit on v5e-8: the compiler needs ")
    assert finding["message"].endswith(" of HBM a chip, which has 15.75 GiB")


def test_another_topology_or_another_value_is_not_answered_by_the_kept_verdict(cache):
    kept(ARGV, "default-batch1-v5e-8.json")
    for other in (("--topology", "v5e-16", *ARGV), ("--topology", "v5e-8", "per_device_batch_size=2", "steps=5")):
        ran = run_flaglint("memory", *other)  # a compile: the environment's record is here, its interpreter is not
        assert ran.returncode == 1 and "error FL019 the train step does not compile for v5e-" in ran.stdout, ran.stdout
        assert "cannot start " in ran.stdout and "peak" not in ran.stdout


def test_a_config_maxtext_refuses_is_reported_and_not_compiled(cache):
    ran = run_flaglint("memory", "--topology", "v5e-8", "per_device_batch_size=1", "steps=five")
    assert ran.returncode == 1
    assert "FL004" in ran.stdout or "FL005" in ran.stdout
    assert "not compiled: MaxText would refuse this config before compiling" in ran.stdout


def test_without_a_topology_the_check_stops_in_one_line(cache):
    ran = run_flaglint("memory", *ARGV)
    assert ran.returncode == 2
    assert ran.stderr.strip() == ("flaglint: error: the compile needs a TPU topology: give --topology (and --slices), "
                                  "or set compile_topology and compile_topology_num_slices (MaxText's train_compile needs both)")


def test_a_config_that_sets_its_compile_topology_is_compiled_for_it(cache):
    # a compile (the environment's interpreter is not there: FL019 names the target)
    ran = run_flaglint("memory", *ARGV, "compile_topology=v5e-16", "compile_topology_num_slices=2")
    assert "error FL019 the train step does not compile for v5e-16 x 2 slices: cannot start " in ran.stdout, ran.stdout


def test_the_gate_blocks_a_jobset_whose_train_step_does_not_fit_its_slice(cache):
    from flaglint.cli.memory import manifest_launches
    from flaglint.core.reading import MANIFEST, read_text

    manifest = "examples/jobsets/pretrain-v5e-8.yaml"
    checker = Checker(DEFAULT_PIN)
    (launch,) = manifest_launches(manifest, read_text(manifest, MANIFEST), checker, {}, False)
    (request,) = launch.requests
    assert (request.topology, request.slices) == ("v5e-8", 1)  # tpu-v5-lite-podslice at 2x4, one replica
    keep_verdict(verdict_key(request, checker.pin.pin, VERSIONS), read_answer(recorded("default-batch64-v5e-8.json")))
    assert run_flaglint("gate", manifest).returncode == 0
    ran = run_flaglint("gate", "--memory", manifest)
    assert ran.returncode == 1
    assert ran.stdout.startswith(f"{manifest}:30:17: error FL018 the train step does not fit on v5e-8: the compiler needs "
                                 "21.99 GiB of HBM a chip, which has 15.75 GiB"), ran.stdout


def test_a_recipe_launch_is_compiled_with_the_libtpu_flags_the_script_exports(cache):
    libtpu = "--xla_tpu_enable_async_collective_fusion=true"
    (cache / "train.sh").write_text(f'#!/bin/bash\nexport LIBTPU_INIT_ARGS="{libtpu}"\nBATCH=${{BATCH:-64}}\n'
                                    "python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml per_device_batch_size=$BATCH steps=5\n")
    kept(("per_device_batch_size=64", "steps=5"), "default-batch64-v5e-8.json", env={"LIBTPU_INIT_ARGS": libtpu})
    ran = run_flaglint("memory", "train.sh", "--topology", "v5e-8", cwd=cache)
    assert ran.returncode == 1
    assert ran.stdout.startswith("train.sh:4:1: error FL018 the train step does not fit on v5e-8"), ran.stdout


def test_fixing_is_refused_in_one_line(cache):
    ran = run_flaglint("memory", "--fix", "--topology", "v5e-8", *ARGV)
    assert ran.returncode == 2 and ran.stderr.startswith("flaglint: error: --fix: `flaglint memory` reports what the compiler says")


def test_the_gate_names_a_tunix_launch_it_cannot_compile_and_compiles_nothing(cache):
    ran = run_flaglint("gate", "--memory", "examples/jobsets/trainer-128.yaml")
    assert "grpo-trainer-128/proc/main: not compiled: it is not one of MaxText's own entry points" in ran.stdout
    assert "FL019" not in ran.stdout and "FL018" not in ran.stdout


XPK_RECIPE = """#!/bin/bash
TRAIN="python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml per_device_batch_size=64 steps=5"
xpk workload create --cluster c --workload one --tpu-type=v5litepod-8 --command "$TRAIN"
xpk workload create --cluster c --workload two --tpu-type v5litepod-2x4 --num-slices 2 --command "$TRAIN"
"""


def test_an_xpk_launch_is_compiled_for_its_tpu_type_and_slices(cache):
    # XPK's v5litepod-8 is MaxText's v5e-8 (its kept verdict answers); v5litepod-2x4 twice is two
    # v5e-8 slices, a compile of its own (the environment's interpreter is not there: FL019 names the target)
    (cache / "xpk.sh").write_text(XPK_RECIPE)
    kept(("per_device_batch_size=64", "steps=5"), "default-batch64-v5e-8.json")
    ran = run_flaglint("memory", "xpk.sh", cwd=cache)
    assert ran.returncode == 1, ran.stderr
    errors = [line for line in ran.stdout.splitlines() if " error FL01" in line]
    assert errors[0].startswith("xpk.sh:3:1: error FL018 the train step does not fit on v5e-8: the compiler needs 21.99 GiB"), errors
    assert errors[1].startswith("xpk.sh:4:1: error FL019 the train step does not compile for v5e-8 x 2 slices: "), errors
    assert len(errors) == 2


def test_the_topology_given_wins_over_the_xpk_workloads(cache):
    (cache / "xpk.sh").write_text(XPK_RECIPE)
    kept(("per_device_batch_size=64", "steps=5"), "default-batch64-v5e-8.json", topology="v5e-16")
    ran = run_flaglint("memory", "xpk.sh", "--topology", "v5e-16", cwd=cache)
    assert [line.split(" error ")[1][:45] for line in ran.stdout.splitlines() if " error FL01" in line] == [
        "FL018 the train step does not fit on v5e-16: "] * 2, ran.stdout


def test_a_jobsets_node_selector_and_replicas_are_the_slices_compiled_for(cache):
    from flaglint.cli.memory import manifest_launches

    manifest = cache / "two-slices.yaml"
    manifest.write_text("""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: two-slices
spec:
  replicatedJobs:
  - name: slice
    replicas: 2
    template:
      spec:
        template:
          spec:
            nodeSelector:
              cloud.google.com/gke-tpu-accelerator: tpu-v5-lite-podslice
              cloud.google.com/gke-tpu-topology: 4x4
            containers:
            - name: train
              image: example/maxtext
              command: [python3, -m, maxtext.trainers.pre_train.train, src/maxtext/configs/base.yml, per_device_batch_size=1, steps=5]
""")
    (launch,) = manifest_launches(str(manifest), manifest.read_text(), Checker(DEFAULT_PIN), {}, False)
    assert [(request.topology, request.slices) for request in launch.requests] == [("v5e-16", 2)]
    ran = run_flaglint("gate", "--memory", "two-slices.yaml", cwd=cache)
    assert "two-slices.yaml:19:72: error FL019 the train step does not compile for v5e-16 x 2 slices: " in ran.stdout, ran.stdout

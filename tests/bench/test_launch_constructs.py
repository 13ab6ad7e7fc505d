"""The constructs public recipes launch MaxText and Tunix with, written here: each launch must be
reported (bench/launches.py, the command lines lint makes concrete) with the argv a user reads, and
none left unverified (FL011) or unseen by the grep-level cross-check (bench/judging.unseen), so that
a change that turns one of them FL011 or unseen fails here before a sweep finds it."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from judging import unseen  # noqa: E402
from launches import launches  # noqa: E402

CONSTRUCTS = {
    "xpk_command_in_a_variable": ("""\
export MAXTEXT_COMMAND="JAX_PLATFORMS=tpu,cpu \\
  python3 src/MaxText/train.py src/MaxText/configs/base.yml \\
      dataset_type=synthetic \\
      steps=30"
xpk workload create --cluster c --workload w --tpu-type=v5p-8 --num-slices=1 \\
    --command "${MAXTEXT_COMMAND}"
""", ["dataset_type=synthetic", "steps=30"]),
    "options_loop_then_launch": ("""\
STEPS=10
while [[ $# -gt 0 ]]; do
  case "$1" in
    --steps) STEPS="$2"; shift 2 ;;
    *) shift ;;
  esac
done
python3 -m maxtext.train src/maxtext/configs/base.yml run_name=r steps=${STEPS}
""", ["run_name=r", "steps=10"]),
    "config_written_first": ("""\
cat > /tmp/run.yml <<EOF
base_config: base.yml
steps: 5
EOF
python3 -m maxtext.train /tmp/run.yml run_name=r
""", ["run_name=r"]),
    "tpu_vm_ssh_command": ("""\
gcloud compute tpus tpu-vm ssh my-tpu --zone=z --worker=all \\
  --command="python3 -m MaxText.train MaxText/configs/base.yml run_name=r steps=3"
""", ["run_name=r", "steps=3"]),
    "tunix_cli": ("""\
python -m tunix.cli.peft_main tunix/cli/base_config.yaml \\
  batch_size=4 training_config.max_steps=10
""", ["tunix/cli/base_config.yaml", "batch_size=4", "training_config.max_steps=10"]),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_each_launch_is_reported_concrete_and_seen(name, tmp_path):
    text, argv = CONSTRUCTS[name]
    (tmp_path / "run.sh").write_text(text)
    here = Path.cwd()
    os.chdir(tmp_path)  # launches() reads the script from the tree's root, as the sweep runs it
    try:
        found = launches("run.sh", "maxtext-0.2.5", None)
    finally:
        os.chdir(here)
    assert found["error"] is None and found["unverified"] == []
    # the script's defaults are one of its paths (an options loop has one per value of `$2`)
    assert argv in [launch["argv"] for launch in found["launches"]]
    reported = {launch["line"] for launch in found["launches"]} | {line for launch in found["launches"]
                                                                    for _, line in launch["written_at"]}
    assert unseen(text, reported) == []

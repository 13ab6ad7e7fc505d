"""`flaglint gate` of a JobSet whose containers run `python -m tunix.cli.<entry>` (as the command
and args, or in a `bash -c` script): each checked at the Tunix pin with the container's T_
variables, each finding at the manifest characters that wrote the word."""

from __future__ import annotations

import json
from pathlib import Path

from commandline import run_flaglint

MANIFEST = Path(__file__).with_name("tunix-jobset.yaml")


def test_each_container_that_runs_tunix_is_checked_with_its_environment():
    done = run_flaglint("gate", "--format", "json", str(MANIFEST))
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    placed = {(f["rule"], f["location"]["line"], f["location"]["column"]) for f in findings if Path(f["location"]["file"]).name == MANIFEST.name}
    assert ("FL205", 20, 43) in placed  # batch_size=4 in args meets T_BATCH_SIZE in env
    assert ("TX13FFD", 20, 59) in placed  # model_source=hf
    assert ("FL205", 27, 64) in placed  # the bash -c script exports T_NUM_BATCHES and passes num_batches=5
    assert ("FL208", 27, 78) in placed
    assert all(f["stage"] for f in findings) and all("(tunix.cli." in f["message"] for f in findings)


def test_a_container_whose_model_maxtext_builds_gets_the_maxtext_pins_verdict():
    maxtext = Path(__file__).with_name("tunix-maxtext-jobset.yaml")
    assert run_flaglint("gate", str(maxtext)).returncode == 0  # qwen2.5-7b is a MaxText model at 0.2.5
    done = run_flaglint("gate", "--format", "json", "--pin", "maxtext-0.2.0", str(maxtext))  # and not at 0.2.0
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)["findings"]
    assert (finding["rule"], finding["stage"], finding["location"]["line"], finding["location"]["column"]) == ("FL005", "after downloads", 20, 17)  # model_id=Qwen/Qwen2.5-7B
    assert "the MaxText argv Tunix 0.1.7 builds for model_config" in finding["message"] and "maxtext-0.2.0" in finding["message"]

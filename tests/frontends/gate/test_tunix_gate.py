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

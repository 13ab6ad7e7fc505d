"""flaglint's verdicts on launches of public recipe material, against the real program's verdict the
judged sweep recorded (bench/results/judged_sample.json: the argv flaglint extracted, its config
and environment; bench/judged_record.py writes it). No oracle is run: a launch MaxText or Tunix
accepted must draw no error, one it refused must draw one. A launch flaglint got wrong when the
sample was taken is a strict expected failure, so that a fix updates the record."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from launches import UNVERIFIED_RULES, stored_errors  # noqa: E402

SAMPLE = json.loads((Path(__file__).resolve().parents[2] / "bench" / "results" / "judged_sample.json").read_text())
WRONG = ("false error", "missed")


def _param(launch):
    marks = [pytest.mark.xfail(strict=True, reason=f"{launch['class']} when the sample was taken")] if launch["class"] in WRONG else []
    return pytest.param(launch, marks=marks, id=f"{launch['tree']}:{launch['file']}:{launch['line']}")


def test_the_sample_spans_the_trees():
    assert len(SAMPLE["launches"]) >= 60
    assert len({launch["tree"] for launch in SAMPLE["launches"]}) >= 6
    assert any(launch["oracle"] is not None for launch in SAMPLE["launches"])


@pytest.mark.parametrize("launch", [_param(launch) for launch in SAMPLE["launches"]])
def test_flaglint_refuses_what_the_program_refuses(launch):
    errors = [f for f in stored_errors(launch, SAMPLE["pin"], SAMPLE["tunix"]) if f["rule"] not in UNVERIFIED_RULES]
    if launch["oracle"] is None:
        assert errors == [], f"a false error: {launch['kind']} accepts it"
    else:
        assert errors, f"a miss: {launch['oracle']}"

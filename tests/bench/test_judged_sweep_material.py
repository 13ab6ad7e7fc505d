"""The whole judged sweep (bench/judged_sweep.py) over public recipe material, where the material is
at hand: FLAGLINT_SWEEP names the trees, separated by blanks, as judged_sweep.py takes them (a
fetched repository GIT_DIR[@REV][:UNDER], or a directory). Every launch flaglint reports is judged
by the real MaxText 0.2.5 or Tunix 0.1.7 in their oracle environments. The sweep must then show:
- no false error and no miss;
- no file that does not end, and no internal error;
- at most 2% of the launches not verified.

No material is fetched at test time, so where FLAGLINT_SWEEP is not set the test skips and says why.
The record of the last sweep is bench/results/judged_sweep.md; tests/bench/test_judged_sample.py
re-checks a fixed sample of it without the oracle."""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from judging import FALSE_ERROR, MISSED, NOT_VERIFIED  # noqa: E402

TREES = os.environ.get("FLAGLINT_SWEEP", "").split()

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not TREES, reason="no public recipe material here: FLAGLINT_SWEEP names the trees to sweep")
def test_public_material_draws_no_false_error_and_no_miss(tmp_path):
    record = tmp_path / "sweep.json"
    done = subprocess.run([sys.executable, str(BENCH / "judged_sweep.py"), *TREES, "--timeout", "60", "--json", str(record)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    trees = json.loads(record.read_text())
    assert len(trees) == len(TREES)
    launches = [r for tree in trees for r in tree["records"] if r["kind"] != "construct"]
    classes = Counter(r["class"] for r in launches)
    wrong = [f"{r['class']}: {r['file']}:{r['line']}" for r in launches if r["class"] in (FALSE_ERROR, MISSED)]
    assert wrong == [], done.stdout[-4000:]
    runs = [run for tree in trees for run in tree["runs"] + tree["gated"] + tree["checked"]]
    assert [run["file"] for run in runs if run["rc"] is None] == []  # a file that did not end within the timeout
    assert [run["file"] for run in runs if run["internal"]] == []
    assert classes[NOT_VERIFIED] <= 0.02 * len(launches), done.stdout[-4000:]

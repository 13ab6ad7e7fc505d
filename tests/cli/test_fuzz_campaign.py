"""bench/fuzz_campaign.py itself, in the slow suite: every input kind (numbers of any size and the
language server's conversations included), 20 seeds each, ends with no internal error, no hang and
no run that fails open."""

from __future__ import annotations

import subprocess
import sys

import pytest
from commandline import REPO

pytestmark = pytest.mark.slow


def test_the_fuzz_campaign_finds_nothing():
    done = subprocess.run([sys.executable, str(REPO / "bench" / "fuzz_campaign.py"), "--runs", "20", "--first-seed", "1000"],
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]

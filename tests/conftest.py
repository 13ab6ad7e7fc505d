import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


def run_flaglint(*args: str, stdin: bytes | None = None, env: dict | None = None, cwd: Path | None = None):
    """The real command in a fresh process, as a user or CI runs it."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("FLAGLINT_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "flaglint", *args], input=stdin, capture_output=True, env=full_env, cwd=cwd or REPO, timeout=120
    )
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


@pytest.fixture
def flaglint_cli():
    return run_flaglint

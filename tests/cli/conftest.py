"""Running `flaglint` in this process (click's runner), as the tests of the command line need it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from flaglint.cli import main


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def invoke(*args: str, stdin: str | bytes | None = None, cwd: Path | None = None, env: dict | None = None) -> Ran:
    """The command with these arguments; exceptions escape (the command must never let one out)."""
    before = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, list(args), input=stdin, env=env, catch_exceptions=False)
    finally:
        os.chdir(before)
    return Ran(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def flaglint():
    return invoke

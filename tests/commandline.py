"""Running `flaglint` for the tests: in this process (run_flaglint), or as a separate process
(run_flaglint_process, for the tests marked `process`). Test modules import it by name
(`from commandline import run_flaglint`); a conftest cannot be, as there are several."""

import os
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


@dataclass
class Completed:
    """What a test reads of a finished `flaglint` command, in-process or not."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


@contextmanager
def _working_directory(path: Path):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_flaglint(*args: str, stdin: bytes | None = None, env: dict | None = None, cwd: Path | None = None) -> Completed:
    """`flaglint ARGS` through click's CliRunner in this process: the same exit code, stdout and
    stderr as the console script gives (tests marked `process` check that), without a new
    interpreter for each command. A Python exception that escapes the command is raised here, as
    the traceback a real run would print."""
    from click.testing import CliRunner

    from flaglint.cli import main

    runner = CliRunner()
    with _working_directory(cwd or REPO):
        result = runner.invoke(main, list(args), input=stdin or b"", env={**(env or {}), "FLAGLINT_DEBUG": None},
                               prog_name="flaglint", catch_exceptions=False)
    # The bytes as written: click's Result.stdout turns each "\r\n" into "\n", which a value may hold.
    return Completed(tuple(args), result.exit_code, result.stdout_bytes.decode("utf-8", "replace"),
                     result.stderr_bytes.decode("utf-8", "replace"))


def run_flaglint_process(*args: str, stdin: bytes | None = None, env: dict | None = None,
                         cwd: Path | None = None) -> Completed:
    """`python -m flaglint ARGS` in a fresh process, as a user or CI runs it (flaglint importable
    from this checkout wherever `cwd` is)."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("FLAGLINT_DEBUG", None)
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), full_env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "-m", "flaglint", *args], input=stdin, capture_output=True,
                          env=full_env, cwd=cwd or REPO, timeout=120)
    return Completed(tuple(args), proc.returncode, proc.stdout.decode("utf-8", "replace"),
                     proc.stderr.decode("utf-8", "replace"))

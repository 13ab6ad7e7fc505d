"""The progress line: on standard error while long work runs, only when stderr is a terminal (a
pseudo-terminal here, from the `pty` module), erased before the report; absent from a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from commandline import REPO

from flaglint.core.progress import Progress

ERASE = "\r\x1b[K"


def _run(args: list[str], cwd, stderr_on_terminal: bool) -> tuple[str, str]:
    """flaglint ARGS as a process: its stdout (a pipe) and its stderr (a terminal or a pipe)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    if not stderr_on_terminal:
        done = subprocess.run([sys.executable, "-m", "flaglint", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "flaglint", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=follower, text=True) as proc:
        os.close(follower)
        stdout, _ = proc.communicate(timeout=120)
    return stdout, _drained(leader)


def _drained(leader: int) -> str:
    """Everything written to the terminal whose other end is closed (a read may return only part of it)."""
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal is closed: everything written has been read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return b"".join(chunks).decode()


def _scripts(tmp_path) -> list[str]:
    for name in ("a.sh", "b.sh"):
        (tmp_path / name).write_text('#!/bin/bash\nexport MAXTEXT_EXTRA_FLAGS="log_period=10"\npython3 -m tunix.train\n')
    return ["a.sh", "b.sh"]


def test_a_lint_on_a_terminal_shows_each_script_and_erases_the_line(tmp_path):
    stdout, stderr = _run(["lint", *_scripts(tmp_path)], tmp_path, stderr_on_terminal=True)
    assert stderr == f"{ERASE}flaglint: linting a.sh (1 of 2){ERASE}flaglint: linting b.sh (2 of 2){ERASE}"
    assert stdout == "no findings\n"


def test_a_lint_into_a_pipe_or_a_log_has_no_progress_line(tmp_path):
    stdout, stderr = _run(["lint", *_scripts(tmp_path)], tmp_path, stderr_on_terminal=False)
    assert stderr == "" and stdout == "no findings\n"


def test_a_progress_line_is_written_only_to_a_terminal():
    leader, follower = pty.openpty()
    with os.fdopen(follower, "w") as terminal:
        with Progress(terminal) as progress:
            progress.step("importing MaxText's validators from maxtext.whl")
    assert _drained(leader) == f"{ERASE}flaglint: importing MaxText's validators from maxtext.whl{ERASE}"
    read, write = os.pipe()
    with os.fdopen(write, "w") as pipe:
        with Progress(pipe) as progress:
            progress.step("not shown")
    with os.fdopen(read) as pipe:
        assert pipe.read() == ""

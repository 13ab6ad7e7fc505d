"""A tree's `.git` is read with a bound: HEAD, a ref or `gitdir:` that is a FIFO, a device or too
large gives no commit (the import names the tree by its version and hash), never a read that blocks."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from flaglint.core.gitrefs import checkout_commit
from flaglint.core.reading import GIT_FILE

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def package(tmp_path):
    def stop(*_):
        raise TimeoutError("a read of .git blocked")
    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(20)
    folder = tmp_path / "src" / "maxtext"
    folder.mkdir(parents=True)
    yield folder
    signal.alarm(0)
    signal.signal(signal.SIGALRM, before)


def test_a_head_that_names_a_commit(package):
    (package.parent.parent / ".git").mkdir()
    (package.parent.parent / ".git" / "HEAD").write_text(COMMIT + "\n")
    assert checkout_commit(package) == COMMIT


def test_a_head_that_is_a_fifo(package):
    (package.parent.parent / ".git").mkdir()
    os.mkfifo(package.parent.parent / ".git" / "HEAD")
    assert checkout_commit(package) is None


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_git_file_linked_to_a_device(package):
    (package.parent.parent / ".git").symlink_to("/dev/zero")
    assert checkout_commit(package) is None


def test_packed_refs_over_the_limit(package):
    git = package.parent.parent / ".git"
    git.mkdir()
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    with (git / "packed-refs").open("wb") as out:
        out.truncate(GIT_FILE.limit + 1)  # sparse: no disk is used
    assert checkout_commit(package) is None
    Path(git / "packed-refs").write_text(f"{COMMIT} refs/heads/main\n")
    assert checkout_commit(package) == COMMIT

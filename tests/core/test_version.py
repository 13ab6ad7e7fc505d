"""`flaglint --version` names the commit (hooks pin flaglint by commit), read from files: the
record the wheel build writes, else the checkout's .git; never a `git` process."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest
from commandline import REPO, run_flaglint

from flaglint.core.gitrefs import head_commit
from flaglint.core.version import __version__

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_version_names_the_commit_of_the_checkout():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    done = run_flaglint("--version")
    assert done.returncode == 0 and done.stdout == f"flaglint, version {__version__}+g{head[:9]}\n"


def test_the_commit_is_read_from_loose_and_packed_refs_and_a_worktree(tmp_path):
    checkout = tmp_path / "clone"
    git = checkout / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    assert head_commit(checkout) is None  # a branch with no commit yet
    (git / "packed-refs").write_text(f"# pack-refs with: peeled fully-peeled sorted\n{SHA} refs/heads/main\n")
    assert head_commit(checkout) == SHA
    (git / "refs" / "heads" / "main").write_text(SHA.replace("0", "f") + "\n")
    assert head_commit(checkout) == SHA.replace("0", "f")
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    own = git / "worktrees" / "worktree"
    own.mkdir(parents=True)
    (worktree / ".git").write_text(f"gitdir: {own}\n")
    (own / "HEAD").write_text("ref: refs/heads/main\n")
    (own / "commondir").write_text("../..\n")
    assert head_commit(worktree) == SHA.replace("0", "f")
    (own / "HEAD").write_text(SHA + "\n")  # a detached HEAD
    assert head_commit(worktree) == SHA
    assert head_commit(tmp_path) is None  # no checkout


@pytest.mark.slow
def test_the_wheel_records_the_commit_it_was_built_from(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(tmp_path)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("flaglint-*.whl")
    recorded = zipfile.ZipFile(wheel).read("flaglint/_data/commit").decode().strip()
    assert recorded == head_commit(REPO)

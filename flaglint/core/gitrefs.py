"""The commit a git checkout is at, read from its `.git` files (HEAD, refs, packed-refs); git is
never run."""

from __future__ import annotations

import re
from pathlib import Path

from flaglint.core.reading import GIT_FILE, Unreadable, read_text

_SHA = re.compile(r"[0-9a-f]{40}")


def checkout_commit(package_dir: Path) -> str | None:
    """The commit of the checkout holding PACKAGE_DIR (`src/maxtext` or `maxtext`), or None when it
    is not in one. Only the two folders above the package are looked at: a wheel unpacked inside
    some other repository is not that repository's commit."""
    for root in (package_dir.parent, package_dir.parent.parent):
        git = root / ".git"
        if git.exists():
            return _head(git)
    return None


def head_commit(root: Path) -> str | None:
    """The commit of the checkout at ROOT (its `.git` folder or file), or None when it is none."""
    git = root / ".git"
    return _head(git) if git.exists() else None


def _head(git: Path) -> str | None:
    git_dir = _git_dir(git)
    if git_dir is None:
        return None
    head = _read(git_dir / "HEAD")
    if head is None:
        return None
    if _SHA.fullmatch(head):
        return head
    if not head.startswith("ref:"):
        return None
    ref = head[4:].strip()
    common = git_dir
    if (pointer := _read(git_dir / "commondir")) is not None:  # a linked worktree keeps refs there
        common = (git_dir / pointer).resolve()
    for folder in dict.fromkeys((git_dir, common)):
        loose = _read(folder / ref)
        if loose is not None and _SHA.fullmatch(loose):
            return loose
        packed = _read(folder / "packed-refs", whole=True) or ""
        for line in packed.splitlines():
            sha, _, name = line.partition(" ")
            if name.strip() == ref and _SHA.fullmatch(sha):
                return sha
    return None


def _git_dir(git: Path) -> Path | None:
    """`.git` is a folder, or (worktrees, submodules) a file `gitdir: <path>`."""
    if git.is_dir():
        return git
    text = _read(git)
    if text and text.startswith("gitdir:"):
        target = Path(text[7:].strip())
        return target if target.is_absolute() else (git.parent / target).resolve()
    return None


def _read(path: Path, whole: bool = False) -> str | None:
    try:
        text = read_text(path, GIT_FILE)
    except Unreadable:
        return None
    return text if whole else text.strip()

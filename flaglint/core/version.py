"""flaglint's version, for `--version`, SARIF's tool record and the data cache's keys; and the
commit it was built from, for `--version` (hooks pin flaglint by commit).

The commit is read from files, never from a `git` process: the record the wheel build wrote
(hatch_build.py), else the HEAD of the checkout flaglint runs from (`.git`, a worktree's `.git`
file, loose refs, packed-refs).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

__version__ = "0.1.0"
COMMIT_RECORD = "_data/commit"  # under the package: written into the wheel when it is built
_PACKAGE = Path(__file__).resolve().parents[1]
_SHA = re.compile(r"[0-9a-f]{40}")


def described_version() -> str:
    """`0.1.0+g1a2b3c4d5`: the version and the commit, as `--version` says it (the version alone
    where the commit cannot be read)."""
    commit = built_commit()
    return f"{__version__}+g{commit[:9]}" if commit else __version__


@lru_cache(maxsize=1)
def built_commit() -> str | None:
    try:
        recorded = (_PACKAGE / COMMIT_RECORD).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return head_commit(_PACKAGE.parent)
    return recorded if _SHA.fullmatch(recorded) else None


def head_commit(root: Path) -> str | None:
    """The commit HEAD names in the git checkout at ROOT, or None."""
    try:
        git = root / ".git"
        gitdir = git if git.is_dir() else root / git.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
        head = (gitdir / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref:"):
            return head if _SHA.fullmatch(head) else None
        ref = head.removeprefix("ref:").strip()
        common = gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip() if (gitdir / "commondir").is_file() else gitdir
        for base in (gitdir, common):
            if (base / ref).is_file():
                sha = (base / ref).read_text(encoding="utf-8").strip()
                return sha if _SHA.fullmatch(sha) else None
        packed = (common / "packed-refs").read_text(encoding="utf-8") if (common / "packed-refs").is_file() else ""
    except (OSError, UnicodeDecodeError):
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _SHA.fullmatch(sha):
            return sha
    return None

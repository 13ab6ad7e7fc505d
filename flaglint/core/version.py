"""flaglint's version, for `--version`, SARIF's tool record and the data cache's keys; and the
commit it was built from, for `--version` (hooks pin flaglint by commit).

The commit is read from files, never from a `git` process: the record the wheel build wrote
(hatch_build.py), else the HEAD of the checkout flaglint runs from (core/gitrefs.py).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from flaglint.core.gitrefs import head_commit
from flaglint.core.reading import GIT_FILE, Unreadable, read_text

__version__ = "0.1.0"
COMMIT_RECORD = "_data/commit"  # under the package: written into the wheel when it is built
_PACKAGE = Path(__file__).resolve().parents[1]
_SHA = r"[0-9a-f]{40}"  # compiled by re when first used: a check compiles only the patterns it uses


def described_version() -> str:
    """`0.1.0+g1a2b3c4d5`: the version and the commit, as `--version` says it (the version alone
    where the commit cannot be read)."""
    commit = built_commit()
    return f"{__version__}+g{commit[:9]}" if commit else __version__


@lru_cache(maxsize=1)
def built_commit() -> str | None:
    try:
        recorded = read_text(_PACKAGE / COMMIT_RECORD, GIT_FILE).strip()
    except Unreadable:
        return head_commit(_PACKAGE.parent)
    return recorded if re.fullmatch(_SHA, recorded) else None

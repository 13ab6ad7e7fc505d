"""The wheel's record of the commit it is built from (flaglint/_data/commit), which `flaglint
--version` names: an installed flaglint has no checkout to read it from."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CommitRecord(BuildHookInterface):
    def initialize(self, version, build_data):
        if version == "editable":
            return  # an editable install runs from the checkout, whose .git --version reads
        # flaglint's core reads the checkout's .git (standard library only: nothing else is installed at build time)
        sys.path.insert(0, self.root)
        try:
            from flaglint.core.gitrefs import head_commit  # noqa: PLC0415 flaglint is importable only once its root is on the path
            from flaglint.core.version import COMMIT_RECORD  # noqa: PLC0415 as above
        finally:
            sys.path.remove(self.root)
        commit = head_commit(Path(self.root))
        if commit is None:
            return
        self._folder = tempfile.TemporaryDirectory()
        record = Path(self._folder.name) / "commit"
        record.write_text(commit + "\n", encoding="ascii")
        build_data["force_include"][str(record)] = f"flaglint/{COMMIT_RECORD}"

    def finalize(self, version, build_data, artifact_path):
        if getattr(self, "_folder", None) is not None:
            self._folder.cleanup()

"""The wheel's record of the commit it is built from (flaglint/_data/commit), which `flaglint
--version` names: an installed flaglint has no checkout to read it from."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CommitRecord(BuildHookInterface):
    def initialize(self, version, build_data):
        # flaglint/core/version.py alone (the package's imports are not installed at build time)
        spec = importlib.util.spec_from_file_location("flaglint_version", Path(self.root) / "flaglint" / "core" / "version.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        commit = module.head_commit(Path(self.root))
        if commit is None:
            return
        self._folder = tempfile.TemporaryDirectory()
        record = Path(self._folder.name) / "commit"
        record.write_text(commit + "\n", encoding="ascii")
        build_data["force_include"][str(record)] = f"flaglint/{module.COMMIT_RECORD}"

    def finalize(self, version, build_data, artifact_path):
        if getattr(self, "_folder", None) is not None:
            self._folder.cleanup()

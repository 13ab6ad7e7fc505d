"""Regenerate the bundled Tunix pins from a clone of google/tunix (a bare one will do):

    python -m flaglint.importer.tunix_releases /path/to/tunix.git [--out REPO]

Each release tag (`v0.1.0` … `v0.1.7`) whose tree has tunix/cli/config.py is written out with
`git archive` (its tunix/ package and pyproject.toml only), imported (flaglint.importer.tunix) and
written to schemas/tunix-<version>.json and rules/tunix/<version>/. Releases without tunix.cli
(0.0.x) and the pre-release tags are left out.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from flaglint.importer.tunix import CONFIG, import_tunix, tunix_summary, write_tunix

RELEASE_TAG = re.compile(r"v(\d+)\.(\d+)\.(\d+)")


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True).stdout


def release_tags(repo: Path) -> list[str]:
    """The release tags whose tree has tunix/cli/config.py, oldest first."""
    tags = [t for t in _git(repo, "tag").decode().split() if RELEASE_TAG.fullmatch(t)]
    tags.sort(key=lambda t: tuple(int(p) for p in RELEASE_TAG.fullmatch(t).groups()))
    return [t for t in tags if _git(repo, "ls-tree", "--name-only", t, CONFIG).strip()]


def regenerate(repo: Path, out: Path, dependencies: tuple[Path, ...] = ()) -> list[str]:
    lines = []
    for tag in release_tags(repo):
        commit = _git(repo, "rev-parse", f"{tag}^{{commit}}").decode().strip()
        archive = _git(repo, "archive", "--format=tar", tag, "tunix", "pyproject.toml")
        with tempfile.TemporaryDirectory() as tree:
            with tarfile.open(fileobj=BytesIO(archive)) as tar:
                tar.extractall(tree, filter="data")
            imported = import_tunix(tree, commit=commit, dependencies=dependencies)
        version = imported.version
        write_tunix(imported, out / "schemas" / f"tunix-{version}.json", out / "rules" / "tunix" / version)
        lines.append(f"{tag}: {tunix_summary(imported)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a clone of google/tunix (its .git folder, or a bare clone)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the flaglint checkout to write schemas/ and rules/ into")
    parser.add_argument("--dependencies", type=Path, action="append", default=[],
                        help="a folder (site-packages) holding the packages Tunix hands sections to, such as "
                             "orbax-checkpoint: their classes' fields are read from it")
    args = parser.parse_args(argv)
    repo = args.repo / ".git" if (args.repo / ".git").is_dir() else args.repo
    for line in regenerate(repo, args.out, tuple(args.dependencies)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the sweeps of public trees share: a tree written out at a commit, its files of a kind, and
flaglint run on one file as a user runs it (a fresh process, from the tree's root, so that a
script's relative `source` paths resolve as they would there), bounded by a time limit of the
bench's own (a hang detector, not a limit on flaglint's work: a file that does not end is counted
and named, never dropped).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests")]
# the child runs this checkout's flaglint, whatever an installed one (an editable install of another
# checkout) would give it
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}

from maxtext_env import export_tree  # noqa: E402

INTERNAL = ("Traceback", "internal error", "RecursionError")
SCRIPTS = (".sh", ".bash")
YAML = (".yaml", ".yml")


@dataclass
class Run:
    """One flaglint command on one file: its exit code (None: it did not end within the limit),
    wall and CPU seconds, findings (exit 0 or 1), and the last line of an error."""

    file: str
    rc: int | None
    wall: float
    cpu: float | None = None
    findings: list[dict] = field(default_factory=list)
    error: str | None = None
    internal: bool = False

    @property
    def hang(self) -> bool:
        return self.rc is None


def run_flaglint(root: Path, command: str, file: Path, options: list[str], timeout: float) -> Run:
    """`flaglint COMMAND OPTIONS --format json FILE` in a fresh process from ROOT."""
    name = str(file.relative_to(root))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "flaglint", command, *options, "--format", "json", name],
                              cwd=root, capture_output=True, text=True, timeout=timeout, env=ENV)
    except subprocess.TimeoutExpired:
        return Run(name, None, timeout, error=f"did not end within {timeout:.0f} s")
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    internal = proc.returncode not in (0, 1, 2) or any(word in proc.stderr for word in INTERNAL) or (
        proc.returncode == 2 and len(proc.stderr.strip().splitlines()) > 1)
    findings = json.loads(proc.stdout)["findings"] if proc.returncode in (0, 1) else []
    lines = proc.stderr.strip().splitlines()
    error = lines[-1] if (internal or proc.returncode == 2) and lines else None
    return Run(name, proc.returncode, wall, cpu, findings, error, internal)


@contextmanager
def written_out(git_dir: str, rev: str) -> Iterator[Path]:
    """The files of GIT_DIR at REV in a temporary checkout (nothing is checked out or run)."""
    with tempfile.TemporaryDirectory(prefix="sweep-") as tmp:
        export_tree(git_dir, rev, Path(tmp))
        yield _as_checkout(Path(tmp))


@contextmanager
def copied_out(directory: str) -> Iterator[Path]:
    """The files below DIRECTORY, its repository's root, in a temporary checkout."""
    with tempfile.TemporaryDirectory(prefix="sweep-") as tmp:
        shutil.copytree(directory, tmp, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
        yield _as_checkout(Path(tmp))


def _as_checkout(root: Path) -> Path:
    # A user lints in a checkout: the repository's root bounds the files its scripts test for
    # (`[ -f "${DIR}/../x.sh" ]`), and a written-out tree without it would stop at each script's folder.
    (root / ".git").mkdir(exist_ok=True)
    return root


def files_of(root: Path, suffixes: tuple[str, ...], under: str | None = None) -> list[Path]:
    """The regular files below ROOT (or its folder UNDER) whose names end in one of SUFFIXES, in order."""
    return sorted(path for path in (root / under if under else root).rglob("*")
                  if path.suffix in suffixes and path.is_file() and not path.is_symlink())


FENCE = re.compile(r"^[ \t]*```[ \t]*(bash|sh|shell|console|zsh)[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)


def command_blocks(root: Path, keep: re.Pattern, under: str | None = None) -> list[Path]:
    """The shell blocks of the Markdown files below ROOT whose text KEEP matches (a README's
    command lines), each written beside its file as `NAME.md.N.sh` (a console block without its
    `$ ` prompts), to lint as a script; ROOT must be a written-out copy."""
    written = []
    for page in files_of(root, (".md",), under):
        for number, block in enumerate(FENCE.finditer(page.read_text(errors="replace")), 1):
            text = textwrap.dedent(block.group(2))
            if block.group(1) == "console":
                text = "".join(line[2:] + "\n" for line in text.splitlines() if line.startswith("$ "))
            if keep.search(text):
                target = page.with_name(f"{page.name}.{number}.sh")
                target.write_text(text)
                written.append(target)
    return written


def commit_of(git_dir: str, rev: str) -> str:
    """The full commit REV names in GIT_DIR."""
    return subprocess.run(["git", "-C", git_dir, "rev-parse", f"{rev}^{{commit}}"], capture_output=True, text=True,
                          check=True).stdout.strip()

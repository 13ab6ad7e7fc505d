"""The Python 3.12 environment the compile runs in: one per MaxText release, `maxtext[tpu]==V` and
the jax and libtpu pip resolves for it, built on first use under the user's cache directory and
reused; or an interpreter the user names (`--compile-with`, the job's container's Python).

A verdict holds for one libtpu, so the versions of each environment are read and kept with it.
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from flaglint.core.data_cache import cache_root
from flaglint.core.findings import InputError
from flaglint.core.reading import DATA_FILE, read_text

_MARKER = "flaglint-environment.json"  # written last: an environment without it is rebuilt
_PIP_STEPS = ("Collecting ", "Downloading ", "Installing collected packages")  # the lines of pip's progress shown
_VERSIONS = ("import json; from importlib import metadata as m\n"
             "def v(n):\n try: return m.version(n)\n except m.PackageNotFoundError: return None\n"
             "print(json.dumps({n: v(n) for n in ('maxtext', 'jax', 'jaxlib', 'libtpu')}))")


def environment_dir(release: str) -> Path:
    return cache_root() / "compile" / f"maxtext-{release}"


def find_python312() -> Path | None:
    """`python3.12` on PATH, else a pyenv 3.12 (a pyenv shim on PATH may fail: each is tried)."""
    roots = [os.environ.get("PYENV_ROOT"), os.path.expanduser("~/.pyenv")]
    candidates = [shutil.which("python3.12")]
    candidates += [found for root in roots if root for found in sorted(glob.glob(f"{root}/versions/3.12*/bin/python3.12"), reverse=True)]
    for candidate in candidates:
        if candidate and subprocess.run([candidate, "-c", ""], capture_output=True).returncode == 0:
            return Path(candidate)
    return None


def versions(python: str | Path) -> dict[str, str]:
    """The maxtext, jax, jaxlib and libtpu releases PYTHON imports (a package it lacks is left out)."""
    done = subprocess.run([str(python), "-c", _VERSIONS], capture_output=True, text=True)
    if done.returncode != 0:
        raise InputError(f"--compile-with {python}: cannot run it ({_last_line(done.stderr) or f'exit status {done.returncode}'})")
    found = {name: version for name, version in json.loads(done.stdout).items() if version}
    if "libtpu" not in found or "jax" not in found:
        raise InputError(f"--compile-with {python}: it has no {'libtpu' if 'jax' in found else 'jax'}; "
                         "the compile needs MaxText with jax and libtpu (pip install 'maxtext[tpu]')")
    return found


def managed_python(release: str, say: Callable[[str], None], progress: Callable[[str], None] = lambda step: None
                   ) -> tuple[Path, dict[str, str]]:
    """The interpreter of RELEASE's environment and its versions; built first if it is not there
    (minutes, about 3 GiB), SAY told what is being done and what was built, PROGRESS each step of
    pip's install (the package it collects, downloads or installs)."""
    target = environment_dir(release)
    python = target / "bin" / "python"
    marker = target / _MARKER
    if not marker.is_file():
        with _locked(target):
            if not marker.is_file():
                _build(release, target, say, progress)
                built = versions(python)
                marker.write_text(json.dumps(built))
                say(f"built the compile environment for MaxText {release}: "
                    + ", ".join(f"{name} {version}" for name, version in sorted(built.items())))
    return python, json.loads(read_text(marker, DATA_FILE))


def _build(release: str, target: Path, say: Callable[[str], None], progress: Callable[[str], None]) -> None:
    base = find_python312()
    if base is None:
        raise InputError(f"the compile needs Python 3.12 for maxtext[tpu]=={release} and none was found (python3.12 on PATH or "
                         "pyenv); install one, or give --compile-with PYTHON with MaxText, jax and libtpu installed")
    shutil.rmtree(target, ignore_errors=True)
    say(f"building the compile environment for MaxText {release} in {target} (once: pip install 'maxtext[tpu]=={release}', about 3 GiB)")
    steps = [[str(base), "-m", "venv", str(target)],
             # --no-compile: a compile imports a small part of its 22,583 modules, and Python writes
             # their bytecode on first use; compiling all of them up front takes some 110 CPU-s
             [str(target / "bin" / "python"), "-m", "pip", "install", "--progress-bar", "off", "--disable-pip-version-check",
              "--no-compile", f"maxtext[tpu]=={release}"]]
    for step in steps:
        status, said = _run_showing(step, progress)
        if status != 0:
            shutil.rmtree(target, ignore_errors=True)
            raise InputError(f"cannot build the compile environment for MaxText {release} ({' '.join(step[-3:])}: "
                             f"{_last_line(said) or f'exit status {status}'})")


def _run_showing(command: list[str], progress: Callable[[str], None]) -> tuple[int, str]:
    """COMMAND's exit status and its last lines of output, each line pip starts a package with
    shown as a step of PROGRESS."""
    tail: list[str] = []
    with subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", env=dict(os.environ, PYTHONUNBUFFERED="1")) as process:  # each line as pip writes it
        assert process.stdout is not None
        for line in process.stdout:
            tail = [*tail[-19:], line]
            if line.startswith(_PIP_STEPS):
                progress(f"building the compile environment: {line.strip()[:120]}")
    return process.returncode, "".join(tail)


@contextmanager
def _locked(target: Path) -> Iterator[None]:
    """One build of an environment at a time, across processes (a gate's parallel checks wait)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


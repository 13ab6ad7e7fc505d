"""The real MaxText 0.2.5 for tests that compare against it: its wheel from the package registry,
and a Python 3.12 environment ("the oracle") where its config code runs.

Both are built once under <repo>/.cache/ and reused. Each helper returns None when it cannot
be had here (no network, no Python 3.12); callers skip with the reason `unavailable()` gives.
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

MAXTEXT_VERSION = "0.2.5"
REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache"
WHEEL_DIR = CACHE / "maxtext"
ORACLE_DIR = CACHE / f"oracle-{MAXTEXT_VERSION}"
ORACLE_DEPS = ["jax", "flax", "jinja2", "omegaconf", "pydantic", "pyyaml", "packaging", "pathwaysutils"]

_reasons: dict[str, str] = {}

# Runs the script as a module of its own (so it may start with `from __future__`), INPUT given.
_DRIVER = """
import json, runpy, sys
with open(sys.argv[2]) as f:
    given = json.load(f)
namespace = runpy.run_path(sys.argv[1], init_globals={"INPUT": given}, run_name="__oracle__")
with open(sys.argv[3], "w") as f:
    json.dump(namespace["OUTPUT"], f)
"""


def unavailable(what: str) -> str:
    """Why `maxtext_wheel` or `oracle_python` returned None, for a skip message."""
    return _reasons.get(what, f"{what} unavailable")


def maxtext_wheel() -> Path | None:
    """The maxtext 0.2.5 wheel, downloaded once from the package registry."""
    wheel = WHEEL_DIR / f"maxtext-{MAXTEXT_VERSION}-py3-none-any.whl"
    if wheel.is_file():
        return wheel
    with _locked("maxtext"):
        if wheel.is_file():
            return wheel
        with tempfile.TemporaryDirectory(dir=_cache_dir()) as tmp:
            command = [
                sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                "--python-version", "3.12", f"maxtext=={MAXTEXT_VERSION}", "-d", tmp,
            ]  # fmt: skip
            done = _run(command, timeout=600)
            downloaded = Path(tmp) / wheel.name
            if done is None or done.returncode != 0 or not downloaded.is_file():
                _reasons["wheel"] = f"cannot download maxtext=={MAXTEXT_VERSION}: {_tail(done)}"
                return None
            WHEEL_DIR.mkdir(parents=True, exist_ok=True)
            downloaded.replace(wheel)
    return wheel


def oracle_python() -> Path | None:
    """The interpreter of a Python 3.12 venv with maxtext 0.2.5 and its config dependencies."""
    python = ORACLE_DIR / "bin" / "python"
    marker = ORACLE_DIR / ".complete"
    if marker.is_file():
        return python
    wheel = maxtext_wheel()
    if wheel is None:
        _reasons["oracle"] = unavailable("wheel")
        return None
    base = find_python312()
    if base is None:
        _reasons["oracle"] = "no Python 3.12 interpreter found (python3.12, pyenv versions)"
        return None
    with _locked("oracle"):
        if marker.is_file():
            return python
        shutil.rmtree(ORACLE_DIR, ignore_errors=True)
        steps = [
            [str(base), "-m", "venv", str(ORACLE_DIR)],
            [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
            [str(python), "-m", "pip", "install", "-q", *ORACLE_DEPS],
        ]
        for step in steps:
            done = _run(step, timeout=1800)
            if done is None or done.returncode != 0:
                _reasons["oracle"] = f"building {ORACLE_DIR} failed at {' '.join(step[1:4])}: {_tail(done)}"
                return None
        marker.write_text(f"maxtext=={MAXTEXT_VERSION} {' '.join(ORACLE_DEPS)}\n")
    return python


def find_python312() -> Path | None:
    """A working Python 3.12: `python3.12` on PATH (often a pyenv shim that fails), then pyenv's versions."""
    candidates = [shutil.which("python3.12")]
    pyenv_roots = {Path.home() / ".pyenv", Path("/root/.pyenv")}
    if os.environ.get("PYENV_ROOT"):
        pyenv_roots.add(Path(os.environ["PYENV_ROOT"]))
    done = _run(["pyenv", "root"], timeout=30)
    if done is not None and done.returncode == 0:
        pyenv_roots.add(Path(done.stdout.strip()))
    for root in sorted(pyenv_roots):
        candidates += sorted(glob.glob(str(root / "versions" / "3.12*" / "bin" / "python3.12")), reverse=True)
    for candidate in candidates:
        if candidate is None:
            continue
        version = _run([candidate, "--version"], timeout=30)
        if version is not None and version.returncode == 0 and version.stdout.startswith("Python 3.12"):
            return Path(candidate)
    return None


def run_in_oracle(code: str, input_json: Any, timeout: float = 600) -> Any:
    """Run CODE in the oracle interpreter. It reads the JSON value `INPUT` and must set `OUTPUT`
    to a JSON-serialisable value, which is returned. Raises RuntimeError if the script fails."""
    python = oracle_python()
    if python is None:
        raise RuntimeError(unavailable("oracle"))
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    env.pop("XLA_FLAGS", None)
    with tempfile.TemporaryDirectory() as tmp:
        script, source, result = Path(tmp, "script.py"), Path(tmp, "input.json"), Path(tmp, "output.json")
        script.write_text(code)
        source.write_text(json.dumps(input_json))
        done = subprocess.run(
            [str(python), "-c", _DRIVER, str(script), str(source), str(result)],
            capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"oracle script failed (exit {done.returncode}): {done.stderr[-3000:]}")
        return json.loads(result.read_text())


def _cache_dir() -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    return CACHE


@contextmanager
def _locked(name: str) -> Iterator[None]:
    """Serialise building one cache entry across concurrent test processes."""
    with open(_cache_dir() / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(command: list[str], timeout: float) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None


def _tail(done: subprocess.CompletedProcess[str] | None) -> str:
    if done is None:
        return "the command could not run or timed out"
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}"

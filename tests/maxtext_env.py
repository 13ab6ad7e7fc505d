"""The real MaxText releases for tests that compare against them: each wheel from the package
registry, and per release a Python 3.12 environment ("the oracle") where its config code runs.

Everything is built once under <repo>/.cache/ and reused: one base venv with the config
dependencies, and per release a venv that sees the base's site-packages (a .pth file) plus the
release's wheel installed without dependencies. Each helper returns None when it cannot be had
here (no network, no Python 3.12); callers skip with the reason `unavailable()` gives.

Measured per release: 0.2.3 and later find base.yml themselves; 0.2.0 takes it as argv[1] (the
runner, flaglint/pyconfig_runner.py, passes it), and 0.1.0 (`MaxText.pyconfig`) its configs/base.yml.
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

MAXTEXT_VERSION = "0.2.5"  # the default pin's release
RELEASES = ("0.1.0", "0.2.0", "0.2.3", "0.2.4", "0.2.5")  # the bundled ones
IMPORTED = ("0.2.1", "0.2.2")  # releases not bundled: the tests import their wheels into a scratch pin store
REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache"
WHEEL_DIR = CACHE / "maxtext"
BASE_DIR = CACHE / "oracle-base"
# The config dependencies (jax, flax, jinja2, omegaconf, pydantic, pyyaml, packaging, pathwaysutils)
# with all they pull in, pinned as measured to import every release: jax 0.12.1 dropped
# jax.experimental.pallas.ops.gpu.attention, which 0.1.0, 0.2.2 and 0.2.3 import.
ORACLE_DEPS = [
    "absl-py==2.5.1", "aiofiles==25.1.0", "annotated-doc==0.0.7", "annotated-types==0.8.0", "anyio==4.16.0",
    "certifi==2026.10.19.post1", "charset-normalizer==3.5.3", "click==8.5.1", "etils==1.15.0", "fastapi==0.165.0",
    "flax==0.12.12", "fsspec==2026.9.0", "h11==0.16.0", "humanize==4.17.0", "idna==3.21", "jax==0.12.0.1",
    "jaxlib==0.12.0.1", "Jinja2==3.1.6", "markdown-it-py==4.3.0", "MarkupSafe==3.0.4", "mdurl==0.1.2",
    "ml_dtypes==0.7.0", "msgpack==1.2.4", "numpy==2.5.5", "omegaconf==2.4.0", "opentelemetry-api==1.45.3",
    "opt_einsum==3.4.0", "optax==0.2.8", "orbax-checkpoint==0.12.8", "packaging==26.4", "pathwaysutils==0.1.13",
    "prometheus_client==0.26.0", "protobuf==7.36.2", "psutil==7.2.2", "pydantic==2.14.4", "pydantic_core==2.50.5",
    "Pygments==2.21.0", "PyYAML==6.0.4", "requests==2.34.2", "rich==15.0.0", "scipy==1.18.1", "simplejson==4.3.0",
    "starlette==1.10.0", "tensorstore==0.1.86", "treescope==0.1.10", "typing-inspection==0.4.5",
    "typing_extensions==4.16.0", "urllib3==2.8.0", "uvicorn==0.55.0", "uvloop==0.23.0", "zipp==4.1.2",
]  # fmt: skip
# What a release's pyconfig imports beyond those, found by trying; installed without dependencies,
# at the versions measured to import. The runner (flaglint/frontends/check/pyconfig_runner.py)
# does not run the package's __init__, which loads every model (and with them quantisation,
# profiling, grain and transformers; in 0.2.2 tensorflow too), and 0.1.0's pyconfig imports
# quantisation (aqtp, qwix), tensorboardX and Cloud Storage's client.
EXTRA_DEPS = {
    "0.1.0": [
        "aqtp==0.9.0", "jaxtyping==0.3.11", "qwix==0.1.8", "tensorboardX==2.6.5", "google-cloud-storage==3.17.1",
        "google-api-core==2.44.0", "google-auth==2.63.0", "google-cloud-core==2.8.0", "google-crc32c==1.9.0",
        "google-resumable-media==2.11.0", "googleapis-common-protos==1.76.0", "proto-plus==1.29.0", "pyasn1==0.6.5",
        "pyasn1-modules==0.4.2", "cryptography==50.0.2", "cffi==2.1.1", "pycparser==3.12",
    ],
    "0.2.2": ["cloudpickle==3.1.3", "filelock==4.3.1", "flatbuffers==25.12.19"],
    "0.2.3": ["cloudpickle==3.1.3", "filelock==4.3.1"],
}  # fmt: skip

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


def unavailable(what: str, version: str = MAXTEXT_VERSION) -> str:
    """Why `maxtext_wheel` or `oracle_python` returned None, for a skip message."""
    return _reasons.get(f"{what} {version}", f"{what} for maxtext {version} unavailable")


def oracle_dir(version: str = MAXTEXT_VERSION) -> Path:
    return CACHE / f"oracle-{version}"


def maxtext_wheel(version: str = MAXTEXT_VERSION) -> Path | None:
    """The maxtext wheel of VERSION, downloaded once from the package registry."""
    wheel = WHEEL_DIR / f"maxtext-{version}-py3-none-any.whl"
    if wheel.is_file():
        return wheel
    with locked("maxtext"):
        if wheel.is_file():
            return wheel
        with tempfile.TemporaryDirectory(dir=_cache_dir()) as tmp:
            command = [
                sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                "--python-version", "3.12", f"maxtext=={version}", "-d", tmp,
            ]  # fmt: skip
            done = run_command(command, timeout=600)
            downloaded = Path(tmp) / wheel.name
            if done is None or done.returncode != 0 or not downloaded.is_file():
                _reasons[f"wheel {version}"] = f"cannot download maxtext=={version}: {last_line(done)}"
                return None
            WHEEL_DIR.mkdir(parents=True, exist_ok=True)
            downloaded.replace(wheel)
    return wheel


def oracle_python(version: str = MAXTEXT_VERSION) -> Path | None:
    """The interpreter of a Python 3.12 venv where maxtext VERSION and its config dependencies import."""
    wheel = maxtext_wheel(version)
    if wheel is None:
        _reasons[f"oracle {version}"] = unavailable("wheel", version)
        return None
    return _oracle_venv(oracle_dir(version), str(wheel), EXTRA_DEPS.get(version, []), f"oracle {version}",
                        f"maxtext=={version}")


def maxtext_tree(git_dir: str | Path, commit: str) -> Path | None:
    """The MaxText tree of GIT_DIR at COMMIT (a full sha), written out once under .cache/."""
    tree = CACHE / f"maxtext-{commit[:12]}"
    if (tree / ".complete").is_file():
        return tree
    with locked(tree.name):
        if not (tree / ".complete").is_file():
            shutil.rmtree(tree, ignore_errors=True)
            try:
                export_tree(git_dir, commit, tree)
            except (OSError, subprocess.CalledProcessError) as err:
                _reasons[f"tree {commit}"] = f"cannot write out {git_dir} at {commit}: {err}"
                return None
            (tree / ".complete").write_text(f"{git_dir} at {commit}\n")
    return tree


def tree_oracle_python(git_dir: str | Path, commit: str) -> Path | None:
    """The interpreter of a Python 3.12 venv where the MaxText tree of GIT_DIR at COMMIT is
    installed (`pip install --no-deps` of its files) over the base's config dependencies: an oracle
    for a commit, built as the releases' are."""
    tree = maxtext_tree(git_dir, commit)
    if tree is None:
        _reasons[f"oracle {commit}"] = unavailable("tree", commit)
        return None
    # main's pyconfig (measured at e591f30) imports nothing beyond the base's packages
    return _oracle_venv(oracle_dir(commit[:12]), str(tree), [], f"oracle {commit}", f"maxtext at {commit}")


def export_tree(git_dir: str | Path, rev: str, into: Path) -> None:
    """The files of GIT_DIR at REV written under INTO (git is asked, nothing is checked out); a blob
    a partial mirror does not hold (its largest files) is left out. A package build wants the
    README its pyproject names: a missing one is written empty."""
    listing = subprocess.run(["git", "-C", str(git_dir), "ls-tree", "-r", "-z", rev], capture_output=True, check=True).stdout
    blobs = []
    for entry in listing.split(b"\0"):
        if entry:
            meta, name = entry.split(b"\t", 1)
            mode, kind, sha = meta.split()
            if kind == b"blob" and mode != b"120000":
                blobs.append((sha, name.decode("utf-8", "replace")))
    batch = subprocess.run(["git", "-C", str(git_dir), "cat-file", "--batch"], input=b"".join(sha + b"\n" for sha, _ in blobs),
                           capture_output=True, check=True).stdout
    at = 0
    for _, name in blobs:
        header_end = batch.index(b"\n", at)
        header = batch[at:header_end].split()
        at = header_end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(batch[at:at + size])
        at += size + 1
    if (into / "pyproject.toml").is_file() and not (into / "README.md").exists():
        (into / "README.md").write_text("")


def _oracle_venv(target: Path, package: str, extra: list[str], what: str, marked: str) -> Path | None:
    """TARGET: a Python 3.12 venv seeing the base's site-packages, with PACKAGE (a wheel or a tree)
    and EXTRA installed without dependencies; built once, under a lock."""
    python, marker = target / "bin" / "python", target / ".complete"
    if marker.is_file():
        return python
    base = base_site_packages(BASE_DIR, ORACLE_DEPS, _reasons)
    if base is None:
        _reasons[what] = _reasons["base"]
        return None
    with locked(target.name):
        if marker.is_file():
            return python
        shutil.rmtree(target, ignore_errors=True)
        if not build_steps([[str(find_python312()), "-m", "venv", str(target)]], what, target, _reasons):
            return None
        own = next(target.glob("lib/python3.12/site-packages"))
        (own / "oracle-base.pth").write_text(f"{base.resolve()}\n")  # the base's packages, after the venv's own
        install = [[str(python), "-m", "pip", "install", "-q", "--no-compile", "--no-deps", package, *extra]]
        if not build_steps(install, what, target, _reasons):
            return None
        marker.write_text(f"{marked} over {BASE_DIR.name}\n")
    return python


def base_site_packages(base_dir: Path, pip_install: list[str], reasons: dict[str, str]) -> Path | None:
    """site-packages of the venv BASE_DIR with `pip install PIP_INSTALL` (built once, under a lock
    named for it); a failure's reason goes to reasons["base"]."""
    site = base_dir / "lib" / "python3.12" / "site-packages"
    if (base_dir / ".complete").is_file():
        return site
    interpreter = find_python312()
    if interpreter is None:
        reasons["base"] = "no Python 3.12 interpreter found (python3.12, pyenv versions)"
        return None
    with locked(base_dir.name):
        if (base_dir / ".complete").is_file():
            return site
        shutil.rmtree(base_dir, ignore_errors=True)
        steps = [[str(interpreter), "-m", "venv", str(base_dir)],
                 [str(base_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", *pip_install]]
        if not build_steps(steps, "base", base_dir, reasons):
            return None
        (base_dir / ".complete").write_text(" ".join(pip_install) + "\n")
    return site


def build_steps(steps: list[list[str]], what: str, target: Path, reasons: dict[str, str]) -> bool:
    for step in steps:
        done = run_command(step, timeout=1800)
        if done is None or done.returncode != 0:
            reasons[what] = f"building {target} failed at {' '.join(step[1:5])}: {last_line(done)}"
            return False
    return True


def find_python312() -> Path | None:
    """A working Python 3.12: `python3.12` on PATH (often a pyenv shim that fails), then pyenv's versions."""
    candidates = [shutil.which("python3.12")]
    pyenv_roots = {Path.home() / ".pyenv", Path("/root/.pyenv")}
    if os.environ.get("PYENV_ROOT"):
        pyenv_roots.add(Path(os.environ["PYENV_ROOT"]))
    done = run_command(["pyenv", "root"], timeout=30)
    if done is not None and done.returncode == 0:
        pyenv_roots.add(Path(done.stdout.strip()))
    for root in sorted(pyenv_roots):
        candidates += sorted(glob.glob(str(root / "versions" / "3.12*" / "bin" / "python3.12")), reverse=True)
    for candidate in candidates:
        if candidate is None:
            continue
        version = run_command([candidate, "--version"], timeout=30)
        if version is not None and version.returncode == 0 and version.stdout.startswith("Python 3.12"):
            return Path(candidate)
    return None


def run_in_oracle(code: str, input_json: Any, timeout: float = 600, version: str = MAXTEXT_VERSION) -> Any:
    """Run CODE in the oracle interpreter of VERSION. It reads the JSON value `INPUT` and must set
    `OUTPUT` to a JSON-serialisable value, which is returned. Raises RuntimeError if the script fails."""
    python = oracle_python(version)
    if python is None:
        raise RuntimeError(unavailable("oracle", version))
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
def locked(name: str) -> Iterator[None]:
    """Serialise building one cache entry across concurrent test processes."""
    with open(_cache_dir() / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def run_command(command: list[str], timeout: float) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None


def last_line(done: subprocess.CompletedProcess[str] | None) -> str:
    if done is None:
        return "the command could not run or timed out"
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}"

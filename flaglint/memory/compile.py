"""Compile requests in the compile environment, one process each, and their verdicts kept.

A verdict is kept under the user's cache directory by its key (the pin, the request, the
environment's versions: flaglint/memory/request.py), as JSON, so a launch checked again is
answered without compiling. jax's own compilation cache cannot help here: compile-only devices
never read it back.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Sequence

from flaglint.core.data_cache import cache_root
from flaglint.core.findings import InputError
from flaglint.core.reading import DATA_FILE, read_text
from flaglint.memory.head import HeadRequest
from flaglint.memory.request import COMPILER_VARIABLES, CompileRequest
from flaglint.memory.verdict import FAILED, Verdict, read_answer

KEPT_VERDICTS = 4096  # the newest are kept; each is under a kilobyte
Request = CompileRequest | HeadRequest


def verdict_dir() -> Path:
    return cache_root() / "memory"


def compile_all(requests: Sequence[Request], pin: str, python: Path, environment: dict[str, str], jobs: int,
                started: Callable[[Request], None] = lambda request: None) -> list[tuple[Verdict, bool]]:
    """Each request's verdict, and whether it came from the cache; up to JOBS compiles at once.
    STARTED is told of each compile as it starts."""
    keys = [verdict_key(request, pin, environment) for request in requests]
    answers: list[tuple[Verdict, bool] | None] = [None] * len(requests)
    to_compile = []
    for at, key in enumerate(keys):
        kept = kept_verdict(key)
        if kept is not None:
            answers[at] = (kept, True)
        elif key not in {keys[other] for other in to_compile}:
            to_compile.append(at)

    def compiled(at: int) -> Verdict:
        started(requests[at])
        verdict = run_compile(requests[at], python)
        if verdict.outcome != FAILED:  # a failure may be the machine's (memory, a killed process): compiled again next time
            keep_verdict(keys[at], verdict)
        return verdict

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for at, verdict in zip(to_compile, pool.map(compiled, to_compile)):
            answers[at] = (verdict, False)
    by_key = {keys[at]: answer for at, answer in enumerate(answers) if answer is not None}
    return [by_key[key] for key in keys]


def verdict_key(request: Request, pin: str, environment: dict[str, str]) -> str:
    """Where REQUEST's verdict is kept: its key at PIN in ENVIRONMENT (versions) by its runner's text."""
    return request.key(pin, environment, read_text(_runner(request.runner), DATA_FILE) + read_text(_runner("compile_runner.py"), DATA_FILE))


def run_compile(request: Request, python: Path) -> Verdict:
    """One compile, in a process of its own: libtpu is loaded once per process, and several may run
    (ALLOW_MULTIPLE_LIBTPU_LOAD)."""
    # What the job sets comes with the request; this shell's own MaxText and compiler variables
    # would change the program without changing the verdict's key.
    env = {name: value for name, value in os.environ.items() if not _from_the_job(name)}
    env.update(ALLOW_MULTIPLE_LIBTPU_LOAD="1", TF_CPP_MIN_LOG_LEVEL="3")
    with tempfile.TemporaryDirectory(prefix="flaglint-compile-") as scratch:
        given, answer = Path(scratch, "request.json"), Path(scratch, "answer.json")
        given.write_text(json.dumps(request.runner_input()))
        try:
            done = subprocess.run([str(python), str(_runner(request.runner)), str(given), str(answer)], env=env, cwd=scratch,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace")
        except OSError as err:
            return Verdict(FAILED, message=f"cannot start {python} ({err.strerror})")
        if not answer.is_file():
            tail = [line for line in done.stderr.splitlines() if line.strip()][-3:]
            return Verdict(FAILED, message=f"the compile process ended with status {done.returncode} before it answered: "
                                           f"{' / '.join(tail) or 'no message'}")
        return read_answer(json.loads(read_text(answer, DATA_FILE)))


def _from_the_job(name: str) -> bool:
    return name.startswith("M_") or name in (*COMPILER_VARIABLES, "JAX_PLATFORMS")


def _runner(name: str) -> Path:
    """A script the compile environment runs (it imports nothing of flaglint's but the head)."""
    return Path(__file__).with_name(name)


def kept_verdict(key: str) -> Verdict | None:
    try:
        return Verdict.from_json(json.loads(read_text(verdict_dir() / f"{key}.json", DATA_FILE)))
    except (InputError, ValueError, KeyError, TypeError):  # none kept, or not one this flaglint wrote
        return None


def keep_verdict(key: str, verdict: Verdict) -> None:
    directory = verdict_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=directory, suffix=".part", delete=False) as f:
            json.dump(verdict.to_json(), f)
        os.replace(f.name, directory / f"{key}.json")
        kept = sorted(directory.glob("*.json"), key=lambda path: path.stat().st_mtime_ns)
        for old in kept[:-KEPT_VERDICTS]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be written costs a compile next time, nothing else

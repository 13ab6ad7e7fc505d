"""Time and peak memory of flaglint on inputs of megabytes, each kind in a fresh process.

Prints one line per input: its size, the exit code, the wall time and the peak resident memory of
the `flaglint` process. Inputs: a 10 MB flag file (FL009: too long to reach the trainer), a 10 MB
recipe script with 158k exports (refused: over the 512 KiB limit), a script at the limit, a 9 MB
manifest (one JobSet and a large ConfigMap), a 40 MB config (refused: over the 4 MiB limit) and a
config at the limit; then a FIFO nobody writes to and /dev/zero given to every entry point that
reads a file (each refused before it is opened: flaglint/core/reading.py). Target: each in seconds,
none over 500 MiB, none past the HANG seconds that mark a read that blocks.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HANG = 60


def _exports(count: int) -> str:
    return "".join(f'export GENERATED_{i:06d}="value-{i:06d}-padding-padding-padding"\n' for i in range(count))


def _inputs(folder: Path) -> list[tuple[str, list[str]]]:
    flags = folder / "big.flags"
    flags.write_text("log_period=10 " * 750_000)
    script = folder / "big.sh"
    script.write_text(_exports(158_000))
    limit = folder / "limit.sh"
    limit.write_text(_exports(8_000) + 'export MAXTEXT_EXTRA_FLAGS="log_period=10"\n')
    manifest = folder / "big.yaml"
    manifest.write_text((REPO / "examples" / "jobsets" / "trainer-256.yaml").read_text()
                        + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n"
                        + "".join(f'  key{i:07d}: "value-{i:07d}-padding-padding-padding-padding"\n' for i in range(150_000)))
    big_config = folder / "big.yml"
    big_config.write_text("".join(f"key_{i:07d}: value-{i:07d}-padding-padding-padding-padding-pad\n" for i in range(640_000)))
    config = folder / "limit.yml"
    config.write_text("".join(f"key_{i:05d}: {'v' * 4080}\n" for i in range(1020)))
    fifo = folder / "fifo.yml"
    os.mkfifo(fifo)
    unreadable = [(f"{name} {'a FIFO' if target == fifo else target}", [*before, str(target), *after]) for target in (fifo, Path("/dev/zero"))
                  for name, before, after in (("check -f", ["check", "-f"], []), ("check --batch", ["check", "--batch"], []),
                                              ("lint", ["lint"], []), ("gate", ["gate"], []),
                                              ("--env-file", ["check", "--env-file"], ["steps=1"]),
                                              ("--config", ["check", "--config"], ["steps=1"]),
                                              ("--requirements", ["check", "--requirements"], ["steps=1"]))]
    return [("flag file", ["check", "-f", str(flags)]), ("recipe script, 158k exports", ["lint", str(script)]),
            ("recipe script at the limit", ["lint", str(limit)]), ("manifest", ["gate", "--pin", "bbd0f6f10", str(manifest)]),
            ("config, 40 MB", ["check", str(big_config), "steps=1"]), ("config at the limit", ["check", str(config), "steps=1"]),
            *unreadable]


def _run(args: list[str]) -> tuple[int, float, float]:
    """Exit code, wall seconds and peak RSS (MiB) of one `python -m flaglint` process."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    try:
        code = subprocess.run([sys.executable, "-m", "flaglint", *args], env=env, capture_output=True, timeout=HANG).returncode
    except subprocess.TimeoutExpired:
        code = -1  # a read that blocks
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child so far
    return code, wall, peak


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        for name, args in _inputs(Path(folder)):
            target = Path(next(a for a in args if a.startswith("/")))
            size = target.stat().st_size / 2**20 if target.is_file() else 0
            code, wall, peak = _run(args)
            print(f"{name:30} {size:6.1f} MiB  exit {code}  {wall:6.2f} s  peak RSS so far {peak:6.0f} MiB")


if __name__ == "__main__":
    main()

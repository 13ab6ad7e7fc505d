"""`flaglint server` as an editor meets it: the cold start (spawn to the initialize response), the
first check of a recipe (the pin, rules and solver loaded), and the warm re-check after an edit (the
edit sent to the diagnostics of that version published, and the server's CPU time meanwhile), over
recipes of a few sizes.

    python bench/server_bench.py [--edits 10] [--switches 0,8,32] [--pin bbd0f6f10] [--no-wrapper]

The recipe is examples/recipes/mlperf_397b_256_v7x_before.sh with the files it sources (the size of
the google/tunix#2884 recipes), then that recipe with SWITCHES more inputs, each an `if` that
appends a flag; each edit changes a default the flags depend on (the micro batch size). Then the
submission wrapper, examples/recipes/mlperf_gbs1024_submission.sh, which sources the 256- or the
128-chip recipe by the slice: each edit changes the default of a Tunix variable every launch reads
(the log-prob chunk size). Edits are unsaved, and each gives the default a value no edit before
gave it, so no check of an earlier text is read again.

The CPU time is the server process's (Linux: /proc), in steps of the clock tick (10 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO)]

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path


@dataclass(frozen=True)
class Case:
    label: str
    recipe: str  # the file opened, in examples/recipes
    default: str  # the edited default: a text with `{}` where the value goes
    value: int  # the value the file has
    step: int  # each edit adds this to the value of the one before
    read: tuple[str, ...]  # the files the recipe reads, for the line count
    switches: int = 0  # `if`s appended to the recipe, each appending a flag


RECIPE = Case("", "mlperf_397b_256_v7x_before.sh", 'TRAIN_MICRO_BATCH_SIZE="${{TRAIN_MICRO_BATCH_SIZE:-{}}}"', 64, 8,
              ("mlperf_397b_256_v7x_before.sh", "base.sh", "tuned_block.sh"))
WRAPPER = Case("submission wrapper", "mlperf_gbs1024_submission.sh", 'COMPUTE_LOGPS_CHUNK_SIZE="${{COMPUTE_LOGPS_CHUNK_SIZE:-{}}}"', 4096, 128,
               ("mlperf_gbs1024_submission.sh", "mlperf_397b_256_v7x_before.sh", "mlperf_397b_256_v7x_after.sh",
                "mlperf_397b_128_v7x.sh", "base.sh", "tuned_block.sh"))


def recipe(folder: Path, case: Case) -> Path:
    shutil.copytree(REPO / "examples" / "recipes", folder, dirs_exist_ok=True)
    path = folder / case.recipe
    text = path.read_text(encoding="utf-8")
    assert case.default.format(case.value) in text, case.default
    text += "".join(f'if [[ "${{OPTION_{number}:-off}}" == "on" ]]; then\n'
                    f'  export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} log_period={100 + number}"\nfi\n'
                    for number in range(case.switches))
    path.write_text(text, encoding="utf-8")
    return path


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pid() -> int:
    """The one process this one has started: the server."""
    (child,) = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()
    return int(child)


async def measure(path: Path, case: Case, edits: int) -> dict:
    client = LanguageClient("server_bench", "1")
    published: dict[int, float] = {}
    arrived = asyncio.Event()
    uri = from_fs_path(str(path))

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri and params.version is not None:
            published[params.version] = time.perf_counter()
            arrived.set()

    async def version_published(version: int) -> float:
        while version not in published:
            arrived.clear()
            await arrived.wait()
        return published[version]

    start = time.perf_counter()
    await client.start_io(sys.executable, "-m", "flaglint", "server", "--stdio", cwd=str(path.parent))
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(path.parent))))
    cold = time.perf_counter() - start
    pid = server_pid()
    client.initialized(types.InitializedParams())
    text = path.read_text(encoding="utf-8")
    opened = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "shellscript", 1, text)))
    first = await version_published(1) - opened
    warm, cpu = [], []
    for version in range(2, edits + 2):
        edited = text.replace(case.default.format(case.value), case.default.format(case.value + case.step * (version - 1)))
        used = cpu_seconds(pid)
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri), [types.TextDocumentContentChangeWholeDocument(edited)]))
        warm.append(await version_published(version) - sent)
        cpu.append(cpu_seconds(pid) - used)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"cold": cold, "first": first, "warm": warm, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--switches", default="0,8,32", help="inputs added to the recipe, one size each")
    parser.add_argument("--pin", default="bbd0f6f10")
    parser.add_argument("--no-wrapper", action="store_true", help="leave out the submission wrapper")
    args = parser.parse_args()
    cases = [replace(RECIPE, label=f"+{count} switches", switches=count) for count in (int(part) for part in args.switches.split(",") if part)]
    cases += [] if args.no_wrapper else [WRAPPER]
    print(f"{'recipe':>26} {'lines':>6} {'cold start':>11} {'first check':>12} {'warm median':>12} {'warm max':>9} "
          f"{'CPU median':>11} {'CPU max':>8}")
    for case in cases:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            (root / "pyproject.toml").write_text(f'[tool.flaglint]\npin = "{args.pin}"\n', encoding="utf-8")
            path = recipe(root / "recipes", case)
            lines = sum(len((path.parent / name).read_text(encoding="utf-8").splitlines()) for name in case.read)
            got = asyncio.run(measure(path, case, args.edits))
            print(f"{case.label:>26} {lines:>6} {got['cold'] * 1000:>9.0f}ms {got['first'] * 1000:>10.0f}ms "
                  f"{statistics.median(got['warm']) * 1000:>10.0f}ms {max(got['warm']) * 1000:>7.0f}ms "
                  f"{statistics.median(got['cpu']) * 1000:>9.0f}ms {max(got['cpu']) * 1000:>6.0f}ms")


if __name__ == "__main__":
    main()

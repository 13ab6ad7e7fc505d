"""`flaglint server` as an editor meets it: the cold start (spawn to the initialize response), the
first check of a recipe (the pin, rules and solver loaded), and the warm re-check after an edit (the
edit sent to the diagnostics of that version published), over recipes of a few sizes.

    python bench/server_bench.py [--edits 10] [--switches 0,8,32] [--pin bbd0f6f10]

The recipe is examples/recipes/mlperf_397b_256_v7x_before.sh with the files it sources (the size of
the google/tunix#2884 recipes), then that recipe with SWITCHES more inputs, each an `if` that
appends a flag. Each edit changes a default the flags depend on (the micro batch size), unsaved.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO)]

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

RECIPE = "mlperf_397b_256_v7x_before.sh"
EDITED = 'TRAIN_MICRO_BATCH_SIZE="${TRAIN_MICRO_BATCH_SIZE:-64}"'


def recipe(folder: Path, switches: int) -> Path:
    shutil.copytree(REPO / "examples" / "recipes", folder, dirs_exist_ok=True)
    path = folder / RECIPE
    text = path.read_text(encoding="utf-8")
    text += "".join(f'if [[ "${{OPTION_{number}:-off}}" == "on" ]]; then\n'
                    f'  export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} log_period={100 + number}"\nfi\n'
                    for number in range(switches))
    path.write_text(text, encoding="utf-8")
    return path


async def measure(path: Path, edits: int) -> dict:
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
    client.initialized(types.InitializedParams())
    text = path.read_text(encoding="utf-8")
    opened = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "shellscript", 1, text)))
    first = await version_published(1) - opened
    warm = []
    for version in range(2, edits + 2):
        edited = text.replace(EDITED, EDITED.replace("64", "32" if version % 2 else "64"))
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri), [types.TextDocumentContentChangeWholeDocument(edited)]))
        warm.append(await version_published(version) - sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"cold": cold, "first": first, "warm": warm}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--switches", default="0,8,32", help="inputs added to the recipe, one size each")
    parser.add_argument("--pin", default="bbd0f6f10")
    args = parser.parse_args()
    print(f"{'recipe':>26} {'lines':>6} {'cold start':>11} {'first check':>12} {'warm median':>12} {'warm max':>9}")
    for switches in (int(part) for part in args.switches.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            (root / "pyproject.toml").write_text(f'[tool.flaglint]\npin = "{args.pin}"\n', encoding="utf-8")
            path = recipe(root / "recipes", switches)
            lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in path.parent.glob("*.sh") if p.name in (RECIPE, "base.sh", "tuned_block.sh"))
            got = asyncio.run(measure(path, args.edits))
            print(f"{f'+{switches} switches':>26} {lines:>6} {got['cold'] * 1000:>9.0f}ms {got['first'] * 1000:>10.0f}ms "
                  f"{statistics.median(got['warm']) * 1000:>10.0f}ms {max(got['warm']) * 1000:>7.0f}ms")


if __name__ == "__main__":
    main()

"""`flaglint server`: a language server for recipe scripts, MaxText and Tunix configs, flag files and
JobSet manifests, on the pipeline the command line runs. pygls is imported only here, when the
server starts: no other command pays for it."""

from __future__ import annotations

import gc

from flaglint.core.findings import InputError

# The server's cycle collector runs after this many allocations (Python's default: 700). A check of
# a large recipe makes hundreds of thousands of objects that live until it ends (launches, solver
# terms) beside what the checker keeps between checks, and collecting every 700 of them came to
# as much as the check (examples/recipes/mlperf_gbs1024_submission.sh: re-checks growing from 0.23
# to 0.5 s CPU as the kept configs grew; about 0.25 s each with this).
COLLECT_AFTER = 10_000


def serve(settings_file: str | None = None) -> None:
    """Serve one editor over stdin and stdout until it disconnects."""
    try:
        from flaglint.server.protocol import build  # noqa: PLC0415 pygls and lsprotocol: only when the server runs, and they are optional
    except ModuleNotFoundError as err:
        if err.name not in ("pygls", "lsprotocol") and not (err.name or "").startswith(("pygls.", "lsprotocol.")):
            raise
        raise InputError(f"flaglint server needs the server extra (pip install '.[server]' in a clone of flaglint): "
                         f"no module named {err.name.split('.')[0]}") from None
    gc.set_threshold(COLLECT_AFTER, *gc.get_threshold()[1:])
    build(settings_file).start_io()

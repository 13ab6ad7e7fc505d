"""`flaglint server`: a language server for recipe scripts, MaxText and Tunix configs, flag files and
JobSet manifests, on the pipeline the command line runs. pygls is imported only here, when the
server starts: no other command pays for it."""

from __future__ import annotations

from flaglint.core.findings import InputError


def serve(settings_file: str | None = None) -> None:
    """Serve one editor over stdin and stdout until it disconnects."""
    try:
        from flaglint.server.protocol import build  # noqa: PLC0415 pygls and lsprotocol: only when the server runs, and they are optional
    except ModuleNotFoundError as err:
        if err.name not in ("pygls", "lsprotocol") and not (err.name or "").startswith(("pygls.", "lsprotocol.")):
            raise
        raise InputError(f"flaglint server needs the server extra (pip install '.[server]' in a clone of flaglint): "
                         f"no module named {err.name.split('.')[0]}") from None
    build(settings_file).start_io()

"""The paths a command is given, read one way by every command: `-` is stdin, a directory is the
files in it of the command's kind, any other path is a file (one that cannot be read is refused
in one wording: `PATH: cannot read (REASON)`)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from flaglint.core.findings import InputError

STDIN = "-"


def input_paths(args: tuple[str, ...], suffixes: tuple[str, ...], kind: str) -> tuple[str, ...]:
    """Each argument as the files it names, in order, each once: a directory gives its files whose
    names end in `suffixes` (below it, sorted), and one without any is refused."""
    paths: list[str] = []
    for arg in args:
        if arg == STDIN:
            if STDIN in paths:
                raise InputError("-: stdin can be read once")
            paths.append(arg)
        elif os.path.isdir(arg):
            found = sorted(str(path) for path in Path(arg).rglob("*") if path.name.endswith(suffixes) and path.is_file())
            if not found:
                raise InputError(f"{arg}: a directory with no {kind} in it ({', '.join('*' + s for s in suffixes)})")
            paths.extend(found)
        elif not os.path.exists(arg):
            raise InputError(f"{arg}: cannot read ({os.strerror(errno.ENOENT)})")
        else:
            paths.append(arg)
    unique: dict[str, str] = {}
    for path in paths:
        unique.setdefault(path if path == STDIN else os.path.realpath(path), path)
    return tuple(unique.values())


def refuse_unread_stdin_filename(stdin_filename: str | None, inputs: tuple[str, ...]) -> None:
    """--stdin-filename names what `-` reads: without `-` among the inputs it would name nothing."""
    if stdin_filename and STDIN not in inputs:
        raise InputError(f"--stdin-filename {stdin_filename} names what `-` reads from stdin; no input is `-`")

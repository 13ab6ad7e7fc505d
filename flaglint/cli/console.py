"""Writing to the console, and the one way a run ends on bad input: one line on stderr, exit 2.
Without click: `check` and `--version` run before click is loaded (cli/fast.py)."""

from __future__ import annotations

import codecs
import errno
import os
import re
import sys

from flaglint.core.findings import InputError

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import NoReturn

# What click.echo strips from text for a stream that is not a terminal.
_ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")


def echo(text: str, err: bool = False, color: bool | None = None, nl: bool = True) -> None:
    """TEXT on stdout (stderr with ERR), as click.echo writes it: colour and other terminal codes
    stripped unless COLOR (by default: unless the stream is a terminal), then flushed."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    out = text + "\n" if nl else text
    if out and (not color if color is not None else not _isatty(stream)):
        out = _ANSI.sub("", out)
    binary = getattr(stream, "buffer", None)
    if out and binary is not None and _ascii(stream):
        stream.flush()  # a stream set to ASCII (PYTHONIOENCODING=ascii) gets UTF-8, as click writes it
        binary.write(out.encode("utf-8", "replace"))
        binary.flush()
        return
    if out:
        stream.write(out)
    stream.flush()


def _ascii(stream) -> bool:
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except Exception:  # noqa: BLE001 - a stream that cannot say is no terminal, as click takes it
        return False


def fail(message: str) -> NoReturn:
    one_line = re.sub(r"\s*\n\s*", "; ", message.strip())  # a parser's message may run over lines
    echo(f"flaglint: error: {one_line}", err=True)
    sys.exit(2)


def undecodable_argument(args: list[str]) -> str | None:
    """Arguments that were not UTF-8 reach Python with lone surrogates in them."""
    for number, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as err:
            if "\udc80" <= arg[err.start] <= "\udcff":
                raw = arg[err.start].encode("utf-8", "surrogateescape")
                return f"argument {number} is not UTF-8 ({raw!r} at character {err.start + 1})"
            return f"argument {number} is not valid Unicode (a lone surrogate at character {err.start + 1})"
    return None


def end_on(err: Exception) -> NoReturn:
    """The end of a run a command's error stopped: one line and exit 2 (a closed pipe: quietly)."""
    if isinstance(err, InputError):
        fail(str(err))
    if isinstance(err, BrokenPipeError):
        _drop_stdout()  # the reader went away (`flaglint rules | head`): stop quietly, with the status Python gives EPIPE
        sys.exit(1)
    if isinstance(err, OSError) and err.errno in _FULL:
        _drop_stdout()
        fail(f"standard output: cannot write ({err.strerror})")
    if isinstance(err, RecursionError):
        fail("input too deeply nested")
    if os.environ.get("FLAGLINT_DEBUG"):
        raise err
    fail(f"internal error ({type(err).__name__}: {err}); rerun with FLAGLINT_DEBUG=1 and report it")


# What writing the report to standard output (a file, a full disk, /dev/full) can meet: the
# reports flaglint writes to files it names say which file instead.
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _drop_stdout() -> None:
    """Standard output can take no more: what is left in its buffer goes nowhere, so the
    interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass

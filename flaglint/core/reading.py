"""Every input flaglint reads, read with a bound, and its kind's limit named here.

A file is looked at before it is opened: what is not a regular file (a FIFO, a device, a socket, a
folder) is refused, since reading it may block forever or never end; a regular file over its kind's
limit is refused by its size. It is then opened without blocking and read up to the limit and one
byte more, so a file that grows between the look and the read is refused too. Stdin (`-`) is read
the same way. Each refusal is one line naming the input, the limit and the kind.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from flaglint.core.findings import InputError
from flaglint.core.records import FrozenRecord

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import BinaryIO

KiB = 2**10
MiB = 2**20


class InputKind(FrozenRecord):
    __slots__ = field_names = ("name", "limit")

    def __init__(self, name: str, limit: int):
        self.name = name  # as a refusal names it
        self.limit = limit  # bytes

    @property
    def one(self) -> str:
        """The kind with its article: "an env file", "a manifest"."""
        return f"{'an' if self.name[0] in 'aeiou' else 'a'} {self.name}"

    @property
    def shown_limit(self) -> str:
        if self.limit < KiB:
            return f"{self.limit:,} bytes"
        return f"{self.limit // MiB} MiB" if self.limit >= MiB else f"{self.limit // KiB} KiB"


# What a user hands flaglint: each far above what a real one of its kind holds.
FLAG_FILE = InputKind("flag file", 16 * MiB)  # FL009 judges a string past 128 KiB; reading one is cheap
BATCH_FILE = InputKind("batch file", 64 * MiB)  # many flag strings, one a line
ENV_FILE = InputKind("env file", 1 * MiB)
# Evaluating a script statically costs about 11 s a MiB (every character carries its origin): a
# script, and every file it sources or runs, is read up to this size, so a run stays in seconds.
SCRIPT = InputKind("recipe script", 512 * KiB)
MANIFEST = InputKind("manifest", 64 * MiB)
CONFIG_FILE = InputKind("YAML config", 4 * MiB)  # MaxText's and Tunix's configs: base.yml is 50 KiB
PROJECT_CONFIG = InputKind("project configuration file", 4 * MiB)  # pyproject.toml, flaglint.toml
REQUIREMENTS = InputKind("requirements file", 4 * MiB)
RULE_FILE = InputKind("rule file", 8 * MiB)
GIT_FILE = InputKind("git file", 64 * MiB)  # .git/HEAD, a ref, packed-refs
SOURCE_FILE = InputKind("MaxText or Tunix source file", 8 * MiB)  # what `schema import` reads of a tree or wheel
WHEEL = InputKind("wheel", 256 * MiB)  # a zip archive: its directory is loaded whole, a member when it is read
WHEEL_MEMBERS = 100_000  # entries of a wheel's directory; MaxText's wheel has about 2,000
PIN_FILE = InputKind("pin file", 64 * MiB)  # a pin's schema, config index or entry: an import's is a few hundred KiB
DATA_FILE = InputKind("flaglint data file", 64 * MiB)  # flaglint's own YAML data and cache entries
REWRITTEN_FILE = InputKind("file --fix rewrites", 64 * MiB)  # read back just before it is replaced
QUOTED_FILE = InputKind("file a finding quotes", 64 * MiB)  # an input read before, read again for its lines


class Unreadable(InputError):
    """An input refused or failed: REASON says why, after the input's NAME."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"{name}: {reason}")
        self.name, self.reason = name, reason


class TooLarge(Unreadable):
    """An input over its kind's limit."""


# An editor's unsaved buffers, read in place of the files they stand for (`flaglint server`): a
# script's sourced files and a config's base_config chain are then what the user sees, not the disk.
_buffers: ContextVar[Mapping[str, bytes]] = ContextVar("buffers", default={})


@contextmanager
def buffers_over_files(buffers: Mapping[str, bytes]) -> Iterator[None]:
    """Within the block, each path of BUFFERS reads as its bytes, whether or not a file is there."""
    token = _buffers.set({os.path.realpath(path): data for path, data in buffers.items()})
    try:
        yield
    finally:
        _buffers.reset(token)


def buffer_of(path: str | os.PathLike) -> bytes | None:
    """The buffer that stands for the file PATH (buffers_over_files), or None."""
    buffers = _buffers.get()
    return buffers.get(os.path.realpath(path)) if buffers else None


_FILE_TYPES = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
               stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}


def read_stream(stream: BinaryIO, kind: InputKind, name: str, size: int | None = None) -> bytes:
    """At most KIND's limit of bytes from STREAM; InputError when there are more. SIZE: a regular
    file's size when it was looked at, read in one read of that size (one read of the whole limit
    allocates it, half a millisecond for a cache entry of flaglint's), then what the file has grown
    since, up to the limit."""
    data = stream.read(kind.limit + 1 if size is None else min(size, kind.limit) + 1)
    if size is not None and len(data) > size:
        data += stream.read(kind.limit + 1 - len(data))
    if len(data) > kind.limit:
        raise TooLarge(name, f"over the {kind.shown_limit} flaglint reads of {kind.one}")
    return data


def regular_file(path: str | os.PathLike, kind: InputKind, within: str | os.PathLike | None = None) -> os.stat_result:
    """PATH's status, once it is known to be a regular file within KIND's limit (and, given WITHIN,
    a file of that folder, not one a link leads out of it); InputError else."""
    name = os.fspath(path)
    if within is not None and not is_within(name, within):
        raise Unreadable(name, f"a link out of {os.fspath(within)} (to {os.path.realpath(name)}); "
                         "flaglint reads only the files of the tree")
    buffer = buffer_of(name)
    if buffer is not None:
        if len(buffer) > kind.limit:
            raise TooLarge(name, f"{len(buffer):,} bytes, over the {kind.shown_limit} flaglint reads of {kind.one}")
        return os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, len(buffer), 0, 0, 0))
    try:
        status = os.stat(name)
    except OSError as err:
        raise Unreadable(name, f"cannot read ({err.strerror})") from None
    if not stat.S_ISREG(status.st_mode):
        what = _FILE_TYPES.get(stat.S_IFMT(status.st_mode), "not a file")
        raise Unreadable(name, f"not a regular file ({what}); flaglint reads {kind.one} from a regular file")
    if status.st_size > kind.limit:
        raise TooLarge(name, f"{status.st_size:,} bytes, over the {kind.shown_limit} flaglint reads of {kind.one}")
    return status


def read_file(path: str | os.PathLike, kind: InputKind, within: str | os.PathLike | None = None) -> bytes:
    """The bytes of the regular file PATH, at most KIND's limit of them (WITHIN: regular_file)."""
    name = os.fspath(path)
    regular_file(name, kind, within)
    buffer = buffer_of(name)
    if buffer is not None:
        return buffer
    try:
        # no blocking: a FIFO put in the file's place after the look above is not waited on
        handle = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as err:
        raise Unreadable(name, f"cannot read ({err.strerror})") from None
    with os.fdopen(handle, "rb") as stream:
        status = os.fstat(stream.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise Unreadable(name, f"not a regular file; flaglint reads {kind.one} from a regular file")
        try:
            return read_stream(stream, kind, name, status.st_size)
        except OSError as err:
            raise Unreadable(name, f"cannot read ({err.strerror})") from None


def read_text(path: str | os.PathLike, kind: InputKind, within: str | os.PathLike | None = None) -> str:
    """The UTF-8 text of the regular file PATH (read_file); InputError naming the first byte that is not."""
    return decode(read_file(path, kind, within), os.fspath(path))


def read_stdin(kind: InputKind) -> bytes:
    return read_stream(sys.stdin.buffer, kind, "<stdin>")


def decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise Unreadable(where, f"not UTF-8 (byte {err.start}: {data[err.start:err.start + 1]!r})") from None


def names_a_file(path: str | os.PathLike) -> bool:
    """Something other than a folder is at PATH: a FIFO or a device too, which the reader refuses by
    name where a look for regular files would call it missing."""
    return buffer_of(path) is not None or (os.path.exists(path) and not os.path.isdir(path))


def is_within(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """Whether PATH, its links followed, is ROOT or under it."""
    top = os.path.realpath(root)
    return os.path.commonpath([top, os.path.realpath(path)]) == top

"""The one way a fix reaches a file, for flag files, recipe scripts, manifests and YAML config files.

A fix becomes byte edits of the files as they are on disk (`Edit`s whose offsets are bytes of a file); `apply_file_edits` gives
each file's new bytes, and `write_if_unchanged` puts them in place. Every byte outside the edited
spans is kept (a BOM, CRLF line ends, comments), and so are the file's identity and metadata: a
symlink's target is edited (the link stays a link), the mode, owner, extended attributes and ACLs
stay, and a file with other hard links is rewritten in place, so that every name still shows the
same file.

No write loses what another process wrote: a file is written only while it still holds, byte for
byte, what its fix was made from. Under an advisory lock (`flock`, so that two flaglint runs take
turns), the file is read again just before the new content replaces it; if it changed, it is left
as it is and `FileChanged` names it.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from flaglint.core.edits import Applicability, Edit, joined_drops
from flaglint.core.findings import InputError
from flaglint.core.reading import REWRITTEN_FILE, InputKind, TooLarge, read_file

BOM = b"\xef\xbb\xbf"


class FileChanged(InputError):
    """The file no longer holds what its fix was made from: nothing was written to it."""

    def __init__(self, file: str):
        super().__init__(f"{file}: changed while flaglint was fixing it; the fix was not written (run flaglint again)")


def text_edits(file: str, text: str, edits: list[Edit], at_most: Applicability, offset: int = 0) -> list[Edit]:
    """Edits of a decoded text (character offsets) as byte edits of its UTF-8 form, which starts
    `offset` bytes into the file (after a BOM the text does not hold); none more applicable than
    `at_most` (their fix's applicability), and none of those done by hand."""

    def at(index: int) -> int:
        return offset + len(text[:index].encode("utf-8"))

    return [edit.moved(at(edit.start), at(edit.end), file, at_most) for edit in edits if edit.written]


def _stale(data: bytes, edit: Edit) -> bool:
    return data[edit.start:edit.end] != edit.old.encode("utf-8")


def apply_to_bytes(data: bytes, edits: list[Edit]) -> bytes:
    """The bytes with the edits made. Two drops that both take the blank between them (`a b`, both
    dropped) are one drop; an edit that overlaps one already made is left out, and so is one whose
    span no longer reads what it replaces."""
    current = [edit for edit in sorted(set(edits), key=lambda e: (e.start, e.end)) if not _stale(data, edit)]
    made: list[Edit] = []
    for edit in joined_drops(current, data, lambda start, end: Edit.in_bytes(data, start, end, "", current[0].file or "")):
        if not made or edit.start >= made[-1].end:
            made.append(edit)
    for edit in reversed(made):
        data = data[: edit.start] + edit.new.encode("utf-8") + data[edit.end :]
    return data


def apply_file_edits(edits: list[Edit], unsafe: bool, checked_texts: dict[str, str] | None = None) -> dict[str, tuple[bytes, bytes]]:
    """file -> (old bytes, new bytes) for the edits that may be applied (the safe ones, unless `unsafe`).

    `checked_texts` holds the text each input file had when it was checked; a file that no longer
    holds it, or whose edited spans no longer read what the edits replace, raises FileChanged."""
    by_file: dict[str, list[Edit]] = {}
    for edit in edits:
        if edit.applicability.allowed(unsafe):
            by_file.setdefault(edit.file, []).append(edit)
    changed = {}
    for file, file_edits in by_file.items():
        checked = (checked_texts or {}).get(file)
        expected = None if checked is None else checked.encode("utf-8").removeprefix(BOM)
        old = read_for_write(Path(file), None if expected is None else len(BOM) + len(expected))  # a file grown past it has changed
        if expected is not None and old.removeprefix(BOM) != expected or any(_stale(old, e) for e in file_edits):
            raise FileChanged(file)
        new = apply_to_bytes(old, file_edits)
        if new != old:
            changed[file] = (old, new)
    return changed


def read_for_write(path: Path, size: int | None = None) -> bytes:
    """A regular file's bytes, read as any input is (core.reading); given the SIZE it had when
    checked, a file grown past it has changed (FileChanged)."""
    try:
        return read_file(path, REWRITTEN_FILE if size is None else InputKind(REWRITTEN_FILE.name, size))
    except TooLarge:
        if size is None:
            raise
        raise FileChanged(str(path)) from None


def write_if_unchanged(path: Path, old: bytes, new: bytes) -> None:
    """Replace the file's content `old` with `new`, keeping what makes it the same file (see the
    module's docstring); raise FileChanged, writing nothing, when it no longer holds `old`."""
    target = Path(os.path.realpath(path))  # through symlinks: the link itself stays
    with target.open("rb") as locked:
        fcntl.flock(locked.fileno(), fcntl.LOCK_EX)  # released when closed; another flaglint run waits its turn
        status = os.fstat(locked.fileno())
        if os.stat(target).st_ino != status.st_ino:  # replaced while this run waited: the lock is not on the file there now
            raise FileChanged(str(path))
        if status.st_nlink > 1:
            _check_unchanged(target, old, path)
            _write_in_place(target, new)  # a rename would give this name a new file, apart from its other links
            return
        import tempfile  # noqa: PLC0415 only when writing: a check that fixes nothing does not import it

        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".flaglint")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(new)
                out.flush()
                os.fsync(out.fileno())
            if not _same_metadata(target, temporary, status):  # only the file itself can keep it: write in place instead
                Path(temporary).unlink()
                _check_unchanged(target, old, path)
                _write_in_place(target, new)
                return
            _check_unchanged(target, old, path)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _same_metadata(target: Path, temporary: str, status: os.stat_result) -> bool:
    """Give the new file the old one's mode, owner, extended attributes and ACLs (an ACL is the
    `system.posix_acl_access` attribute); False when one of them cannot be given."""
    os.chmod(temporary, status.st_mode & 0o7777)
    try:
        if (status.st_uid, status.st_gid) != (os.getuid(), os.getgid()):
            os.chown(temporary, status.st_uid, status.st_gid)
        try:
            names = os.listxattr(target)
        except OSError as err:
            if err.errno != errno.ENOTSUP:
                raise
            names = []  # a file system without extended attributes: there are none to keep
        for name in names:
            os.setxattr(temporary, name, os.getxattr(target, name))
    except OSError:  # not the owner, an attribute only root may set
        return False
    return True


def _check_unchanged(target: Path, old: bytes, path: Path) -> None:
    if read_for_write(target, len(old)) != old:
        raise FileChanged(str(path))


def _write_in_place(target: Path, data: bytes) -> None:
    with target.open("r+b") as out:
        out.write(data)
        out.truncate()
        out.flush()
        os.fsync(out.fileno())

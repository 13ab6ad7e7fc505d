"""The one way a fix reaches a file, for flag files, recipe scripts, manifests and YAML config files.

A fix becomes byte edits of the files as they are on disk (`Edit`s whose offsets are bytes of a file); `apply_file_edits` gives
each file's new bytes, and `write_atomically` puts them in place. Every byte outside the edited
spans is kept (a BOM, CRLF line ends, comments), and so are the file's identity and metadata: a
symlink's target is edited (the link stays a link), the mode and owner stay, and a file with other
hard links is rewritten in place, so that every name still shows the same file.
"""

from __future__ import annotations

import os
from pathlib import Path

from flaglint.core.edits import Applicability, Edit


def text_edits(file: str, text: str, edits: list[Edit], at_most: Applicability, offset: int = 0) -> list[Edit]:
    """Edits of a decoded text (character offsets) as byte edits of its UTF-8 form, which starts
    `offset` bytes into the file (after a BOM the text does not hold); none more applicable than
    `at_most` (their fix's applicability), and none of those done by hand."""

    def at(index: int) -> int:
        return offset + len(text[:index].encode("utf-8"))

    return [edit.moved(at(edit.start), at(edit.end), file, at_most) for edit in edits if edit.written]


def apply_to_bytes(data: bytes, edits: list[Edit]) -> bytes:
    """The bytes with the edits made; an edit that overlaps one already made is left out, and so is
    one whose span no longer reads what it replaces (the file changed since it was read)."""
    made: list[Edit] = []
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        if made and edit.start < made[-1].end or data[edit.start:edit.end] != edit.old.encode("utf-8"):
            continue
        made.append(edit)
    for edit in reversed(made):
        data = data[: edit.start] + edit.new.encode("utf-8") + data[edit.end :]
    return data


def apply_file_edits(edits: list[Edit], unsafe: bool) -> dict[str, tuple[bytes, bytes]]:
    """file -> (old bytes, new bytes) for the edits that may be applied (the safe ones, unless `unsafe`)."""
    by_file: dict[str, list[Edit]] = {}
    for edit in edits:
        if edit.applicability.allowed(unsafe):
            by_file.setdefault(edit.file, []).append(edit)
    changed = {}
    for file, file_edits in by_file.items():
        old = Path(file).read_bytes()
        new = apply_to_bytes(old, file_edits)
        if new != old:
            changed[file] = (old, new)
    return changed


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the file's content, keeping what makes it the same file (see the module's docstring)."""
    target = Path(os.path.realpath(path))  # through symlinks: the link itself stays
    stat = target.stat()
    if stat.st_nlink > 1:
        _write_in_place(target, data)  # a rename would give this name a new file, apart from its other links
        return
    import tempfile  # noqa: PLC0415 only when writing: a check that fixes nothing does not import it

    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".flaglint")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, stat.st_mode & 0o7777)
        if (stat.st_uid, stat.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(temporary, stat.st_uid, stat.st_gid)
            except PermissionError:  # only the owner's own rename could keep it: write in place instead
                Path(temporary).unlink()
                _write_in_place(target, data)
                return
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _write_in_place(target: Path, data: bytes) -> None:
    with target.open("r+b") as out:
        out.write(data)
        out.truncate()
        out.flush()
        os.fsync(out.fileno())

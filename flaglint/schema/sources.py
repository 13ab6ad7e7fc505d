"""Read the files of a MaxText package wherever it lives: a source tree, a wheel (zipped or
unpacked) or an installed package. Nothing is imported or extracted."""

from __future__ import annotations

import zipfile
from pathlib import Path, PurePosixPath

from flaglint.findings import InputError

MARKER = "configs/types.py"


class PackageFiles:
    """The files under one `maxtext/` package directory, addressed by posix paths relative to it."""

    def __init__(self, origin: Path, root: PurePosixPath | Path, archive: zipfile.ZipFile | None = None):
        self.origin = origin
        self._root = root
        self._archive = archive

    def __enter__(self) -> PackageFiles:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._archive is not None:
            self._archive.close()

    def read(self, relpath: str) -> str:
        try:
            if self._archive is not None:
                return self._archive.read(str(PurePosixPath(self._root, relpath))).decode("utf-8")
            return (Path(self._root) / relpath).read_text(encoding="utf-8")
        except (KeyError, OSError, UnicodeDecodeError) as err:
            raise InputError(f"{self.origin}: cannot read {relpath}: {err}") from None

    def exists(self, relpath: str) -> bool:
        if self._archive is not None:
            return str(PurePosixPath(self._root, relpath)) in self._archive.NameToInfo
        return (Path(self._root) / relpath).is_file()

    def glob(self, reldir: str, suffix: str) -> list[str]:
        """Relative paths of the files directly in `reldir` whose names end in `suffix`, sorted."""
        if self._archive is not None:
            prefix = PurePosixPath(self._root, reldir)
            found = [
                str(PurePosixPath(reldir, PurePosixPath(name).name))
                for name in self._archive.namelist()
                if PurePosixPath(name).parent == prefix and name.endswith(suffix)
            ]
        else:
            directory = Path(self._root) / reldir
            found = [f"{reldir}/{p.name}" for p in directory.glob(f"*{suffix}") if p.is_file()] if directory.is_dir() else []
        return sorted(found)


    def files_under(self, reldir: str, suffix: str) -> list[str]:
        """Relative paths of the files anywhere under `reldir` whose names end in `suffix`, sorted."""
        if self._archive is not None:
            prefix = str(PurePosixPath(self._root, reldir)) + "/"
            root = len(str(self._root)) + 1 if str(self._root) not in ("", ".") else 0
            return sorted(name[root:] for name in self._archive.namelist() if name.startswith(prefix) and name.endswith(suffix))
        directory = Path(self._root) / reldir
        return sorted(str(p.relative_to(self._root).as_posix()) for p in directory.rglob(f"*{suffix}") if p.is_file())


def open_package(path: str | Path) -> PackageFiles:
    """Find the `maxtext` package in PATH: a repo root (src/maxtext), a package directory, a
    directory holding one (unpacked wheel, site-packages), or a wheel file."""
    origin = Path(path)
    if origin.is_file():
        return _open_wheel(origin)
    if not origin.is_dir():
        raise InputError(f"{origin}: no such file or directory")
    for candidate in (origin, origin / "maxtext", origin / "src" / "maxtext"):
        if (candidate / MARKER).is_file():
            return PackageFiles(origin, candidate)
    raise InputError(f"{origin}: not a MaxText tree (no {MARKER} here, under maxtext/ or under src/maxtext/)")


def _open_wheel(origin: Path) -> PackageFiles:
    try:
        archive = zipfile.ZipFile(origin)
    except (zipfile.BadZipFile, OSError) as err:
        raise InputError(f"{origin}: not a wheel or zip archive: {err}") from None
    roots = sorted(
        (PurePosixPath(name[: -len(MARKER)]) for name in archive.namelist() if name.endswith("/" + MARKER)),
        key=lambda root: len(root.parts),
    )
    if not roots:
        raise InputError(f"{origin}: the archive holds no maxtext/{MARKER}")
    return PackageFiles(origin, roots[0], archive)

"""Read the files of a MaxText package wherever it lives: a source tree, a wheel (zipped or
unpacked) or an installed package. Nothing is imported or extracted."""

from __future__ import annotations

import ast
import re
import sys
import zipfile
from pathlib import Path, PurePosixPath

from flaglint.core.findings import InputError
from flaglint.core.reading import (
    SOURCE_FILE,
    WHEEL,
    WHEEL_MEMBERS,
    decode,
    read_file,
    read_stream,
    read_text,
    regular_file,
)

TYPES = "configs/types.py"
MARKER = TYPES
PYCONFIG = "configs/pyconfig.py"
COMMON_TYPES = "common/common_types.py"
SPEC_MAP = "utils/accelerator_to_spec_map.py"
# The code an import reads the keys and checks from (besides configs/**/*.yml).
CONFIG_CODE = (TYPES, PYCONFIG, COMMON_TYPES, SPEC_MAP)
# MaxText before 0.2.0 (the MaxText/ package): no configs/types.py; the keys are base.yml's, the
# checks pyconfig.py's, and the modules these name sit at the package's top level.
OLD_MARKER = "pyconfig.py"
BASE_YML = "configs/base.yml"
OLD_LAYOUT_PATHS = {PYCONFIG: OLD_MARKER, COMMON_TYPES: "common_types.py", SPEC_MAP: "accelerator_to_spec_map.py"}
_OLD_WITHOUT_BASE = "{origin}: a MaxText/ package (MaxText/pyconfig.py) without MaxText/{base}: not a MaxText tree flaglint can read"


class PackageFiles:
    """The files under one `maxtext/` package directory, addressed by posix paths relative to it."""

    def __init__(self, origin: Path, root: PurePosixPath | Path, archive: zipfile.ZipFile | None = None,
                 old_layout: bool = False):
        self.origin = origin
        self._root = root
        self._archive = archive
        # the MaxText/ package: the modules of the config code under their names there
        self.old_layout = old_layout
        self._paths = OLD_LAYOUT_PATHS if old_layout else {}

    def __enter__(self) -> PackageFiles:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._archive is not None:
            self._archive.close()

    @property
    def directory(self) -> Path | None:
        """The package folder on disk; None inside an archive."""
        return None if self._archive is not None else Path(self._root)

    def read(self, relpath: str) -> str:
        relpath = self._paths.get(relpath, relpath)
        if self._archive is not None:
            return decode(self._member(str(PurePosixPath(self._root, relpath))), f"{self.origin}: {relpath}")
        return read_text(Path(self._root) / relpath, SOURCE_FILE, within=Path(self._root).parent)

    def _member(self, name: str) -> bytes:
        """A member of the archive, read up to the limit of a source file whatever its header says."""
        assert self._archive is not None
        try:
            with self._archive.open(name) as stream:
                return read_stream(stream, SOURCE_FILE, f"{self.origin}: {name}")
        except (KeyError, OSError, zipfile.BadZipFile, NotImplementedError) as err:  # NotImplementedError: an unknown compression
            raise InputError(f"{self.origin}: cannot read {name}: {err}") from None

    def parse(self, relpath: str) -> ast.Module:
        """The module's ast. MaxText is written for Python 3.12, whose f-strings may reuse their
        quote inside a replacement field; on an older Python such lines are re-quoted to parse."""
        text = self.read(relpath)
        for _ in range(100):
            try:
                return ast.parse(text, filename=relpath)
            except SyntaxError as err:
                fixed = _requote_fstrings(text, err) if sys.version_info < (3, 12) else None
                if fixed is None:
                    raise InputError(f"{self.origin}: {relpath}:{err.lineno}: cannot parse: {err.msg}") from None
                text = fixed
        raise InputError(f"{self.origin}: {relpath}: cannot parse: too many Python 3.12 f-strings")

    def read_beside(self, relpath: str) -> str | None:
        """A file next to the package directory (a wheel's `*.dist-info/METADATA`, a tree's
        `MaxText/__init__.py`), or None."""
        if self._archive is not None:
            name = str(PurePosixPath(self._root.parent, relpath)).lstrip("./") if str(self._root.parent) != "." else relpath
            return self._member(name).decode("utf-8", "replace") if name in self._archive.NameToInfo else None
        path = Path(self._root).parent / relpath
        return read_file(path, SOURCE_FILE, within=path.parent).decode("utf-8", "replace") if path.is_file() else None

    def glob_beside(self, pattern: str) -> list[str]:
        """Paths, relative to the package's parent, of the entries there matching PATTERN."""
        if self._archive is not None:
            parent = PurePosixPath(self._root).parent
            return sorted(str(PurePosixPath(n).relative_to(parent)) for n in self._archive.namelist()
                          if PurePosixPath(n).parent.parent == parent and PurePosixPath(n).match(pattern))
        parent = Path(self._root).parent
        return sorted(str(p.relative_to(parent)) for p in parent.glob(pattern))

    def exists(self, relpath: str) -> bool:
        relpath = self._paths.get(relpath, relpath)
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
    old_layouts = [origin / "MaxText", origin / "src" / "MaxText"] + ([origin] if origin.name == "MaxText" else [])
    for candidate in old_layouts:
        if (candidate / OLD_MARKER).is_file():
            if not (candidate / BASE_YML).is_file():
                raise InputError(_OLD_WITHOUT_BASE.format(origin=origin, base=BASE_YML))
            return PackageFiles(origin, candidate, old_layout=True)
    raise InputError(f"{origin}: not a MaxText tree (no {MARKER} here, under maxtext/ or under src/maxtext/)")


def _open_wheel(origin: Path) -> PackageFiles:
    regular_file(origin, WHEEL)
    try:
        archive = zipfile.ZipFile(origin)
    except (zipfile.BadZipFile, OSError) as err:
        raise InputError(f"{origin}: not a wheel or zip archive: {err}") from None
    if len(archive.infolist()) > WHEEL_MEMBERS:
        archive.close()
        raise InputError(f"{origin}: over the {WHEEL_MEMBERS:,} members flaglint reads of a wheel")
    roots = sorted(
        (PurePosixPath(name[: -len(MARKER)]) for name in archive.namelist() if name.endswith("/" + MARKER)),
        key=lambda root: len(root.parts),
    )
    if not roots:
        old_roots = sorted((PurePosixPath(name[: -len(OLD_MARKER)]) for name in archive.namelist()
                            if name.endswith("MaxText/" + OLD_MARKER)), key=lambda root: len(root.parts))
        if old_roots:
            if str(old_roots[0] / BASE_YML) not in archive.NameToInfo:
                archive.close()
                raise InputError(_OLD_WITHOUT_BASE.format(origin=origin, base=BASE_YML))
            return PackageFiles(origin, old_roots[0], archive, old_layout=True)
        raise InputError(f"{origin}: the archive holds no maxtext/{MARKER}")
    return PackageFiles(origin, roots[0], archive)


_FSTRING_START = re.compile(r"(?<![\w'\"])[rRbB]?[fF][rR]?(['\"])")


def _requote_fstrings(text: str, err: SyntaxError) -> str | None:
    """TEXT with the f-strings on ERR's line written with triple quotes (`f"{", ".join(x)}"` ->
    `f\"\"\"{", ".join(x)}\"\"\"`), which Python 3.11 parses alike; None when nothing changes."""
    if not err.lineno or "f-string" not in (err.msg or ""):
        return None
    lines = text.split("\n")
    line = lines[err.lineno - 1]
    out, pos = [], 0
    for match in _FSTRING_START.finditer(line):
        if match.start() < pos:
            continue
        quote, start = match.group(1), match.end()
        end = _fstring_end(line, start, quote)
        if end is None or quote * 3 in line[start:end] or line[start:end].endswith(quote):
            return None
        out += [line[pos:start - 1], quote * 3, line[start:end], quote * 3]
        pos = end + 1
    if not out:
        return None
    lines[err.lineno - 1] = "".join(out) + line[pos:]
    return "\n".join(lines)


def _fstring_end(line: str, i: int, quote: str) -> int | None:
    """The index of the quote that closes the f-string whose body starts at I."""
    depth = 0
    while i < len(line):
        char = line[i]
        if depth == 0 and char == "\\":
            i += 2
            continue
        if char == "{":
            if depth == 0 and line[i + 1:i + 2] == "{":
                i += 2
                continue
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif depth and char in "'\"":
            close = line.find(char, i + 1)
            if close < 0:
                return None
            i = close
        elif char == quote:
            return i
        i += 1
    return None


def package_version(files: PackageFiles) -> str:
    """The release the package's own files name: `__version__` in version.py or __init__.py (0.2.0
    keeps it in the MaxText/ shim beside the package), else a wheel's or install's METADATA."""
    candidates = [files.read(p) for p in ("version.py", "__init__.py") if files.exists(p)]
    candidates.append(files.read_beside("MaxText/__init__.py"))
    for text in candidates:
        if text and (match := _VERSION_ASSIGNMENT.search(text)):
            return match.group(1)
    for metadata in files.glob_beside("maxtext-*.dist-info/METADATA"):
        if match := _METADATA_VERSION.search(files.read_beside(metadata) or ""):
            return match.group(1)
    return "unknown"


_VERSION_ASSIGNMENT = re.compile(r"^__version__\s*=\s*[\"']([^\"']+)[\"']", re.M)
_METADATA_VERSION = re.compile(r"^Version:\s*(\S+)", re.M)

"""A cache of parsed data files (rule sets, YAML schemas), as JSON or a text form of their own, so a
cold `flaglint check` neither re-parses every rule nor imports a YAML parser for files it has read
before.

Entries are keyed by the source files' paths, sizes and modification times, and by the flaglint
that built them (its version and commit: a clone updated in place reads no entry an older one
wrote); never pickle, since the
cache directory is writable by the user. Old entries are pruned, so checkouts and upgrades do not
fill the disk.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from flaglint.core.findings import InputError
from flaglint.core.reading import DATA_FILE, read_text
from flaglint.core.version import __version__, built_commit

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

KEPT_ENTRIES = 64  # per kind: enough for every bundled pin, store pins and a few checkouts


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "flaglint"


def _fingerprint(sources: list[Path], layout: int) -> str:
    # A cache key, not a security boundary: crc32 (zlib is already loaded) instead of hashlib's import.
    parts = [__version__, built_commit() or "", str(layout)]
    for path in sources:
        try:
            stat = path.stat()
            parts.append(f"{os.path.abspath(path)}\0{stat.st_size}\0{stat.st_mtime_ns}")  # abspath: no lstat per folder, as resolve() makes
        except OSError:
            parts.append(f"{path}\0missing")
    text = "\0".join(parts).encode()
    return f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}{len(text):x}"


def cached(kind: str, sources: list[Path], build: Callable[[], Any], encode: Callable[[Any], Any] = lambda v: v,
           decode: Callable[[Any], Any] = lambda v: v, layout: int = 1) -> Any:
    """`build()`, or its last result for these sources. `encode` makes it plain JSON data (None:
    this value is not cached) and `decode` turns that data back into the value; `layout` numbers
    the form of that data, so that a changed form never reads an old entry."""

    def as_text(value: Any) -> str | None:
        payload = encode(value)
        return None if payload is None else json.dumps(payload)

    return cached_text(kind, sources, build, as_text, lambda text: decode(json.loads(text)), layout, "json")


def cached_text(kind: str, sources: list[Path], build: Callable[[], Any], encode: Callable[[Any], str | None],
                decode: Callable[[str], Any], layout: int = 1, suffix: str = "txt") -> Any:
    """`cached`, for a value kept in a text form of its own: `encode` writes it (None: not cached)
    and `decode` reads it back."""
    path = cache_root() / f"{kind}-{_fingerprint(sources, layout)}.{suffix}"
    try:
        return decode(read_text(path, DATA_FILE))
    except (InputError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        pass
    value = build()
    try:
        text = encode(value)
    except (TypeError, ValueError):  # not plain data
        text = None
    if text is not None:
        _write(path, text)
    return value


def header_and_lines(header: Any, lines: list[str]) -> str:
    """An entry in text form: HEADER as a line of JSON, then LINES, numbered from 1, each a JSON text
    (which holds no newline) that the header refers to by number: a value read as its line's text is
    decoded only when it is used, and JSON within JSON would cost its escapes on every read."""
    return "\n".join([json.dumps(header), *lines])


def read_header_and_lines(text: str) -> tuple[Any, list[str]]:
    lines = text.split("\n")
    return json.loads(lines[0]), lines


class LazyJson(Mapping):
    """Name -> value, each decoded from its JSON text (by `decode`, after JSON) when first read: an
    entry of the cache in text form holds many values that one check never reads."""

    def __init__(self, texts: dict[str, str], decode: Callable[[Any], Any] = lambda v: v):
        self._texts = texts
        self._decode = decode
        self._values: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._values:
            self._values[name] = self._decode(json.loads(self._texts[name]))
        return self._values[name]

    def __contains__(self, name: object) -> bool:
        return name in self._texts

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
        _prune(path.parent, path.name.split("-", 1)[0], path.suffix)
    except OSError:
        pass


def _prune(directory: Path, kind: str, suffix: str) -> None:
    entries = sorted(directory.glob(f"{kind}-*{suffix}"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for stale in entries[KEPT_ENTRIES:]:
        stale.unlink(missing_ok=True)


def exact_json(data: Any) -> Any:
    """DATA, as `cached` keeps it: None (not cached) when JSON cannot hold it unchanged (int keys, dates)."""
    return data if json.loads(json.dumps(data)) == data else None


def yaml_file(path: Path) -> Any:
    """A YAML data file of flaglint's own (schemas, rules), read with the safe loader once and from
    the cache after that. Data JSON cannot hold unchanged (int keys, dates) is not cached."""

    def load() -> Any:
        import yaml  # noqa: PLC0415 yaml: only for a file the cache does not hold

        return yaml.load(read_text(path, DATA_FILE), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader

    return cached("yaml", [path], load, encode=exact_json)

"""The pin store: MaxText versions imported with `flaglint schema import`, usable with `--pin`.

A store is a folder with one entry per pin, `<store>/<name>/`: `pin.json` (what was imported and
from where), `schema.json` (model.MaxTextSchemaFile), `rules/` (as rules/maxtext/<version>/) and
`configs.json` (the index of its configs/**/*.yml, as schemas/configs/maxtext-<version>.json) and
`topologies.json` (its compile topology table, as schemas/topologies/maxtext-<version>.json). A release is
named `maxtext-X.Y.Z` (from the package's version file), a git checkout by its commit. The user
store is `$XDG_CACHE_HOME/flaglint/pins`; a project store is the folder `pin-store` names in
`[tool.flaglint]`, which a team can commit. An entry is written in a temporary folder and renamed
into place, so a reader never sees half of one.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from flaglint.core.config_file import find_config_file
from flaglint.core.data_cache import cache_root
from flaglint.core.findings import InputError
from flaglint.core.reading import PIN_FILE, Unreadable, read_text

ENTRY_FILE = "pin.json"
SCHEMA_FILE = "schema.json"
RULES_DIR = "rules"
CONFIGS_FILE = "configs.json"  # config_index.py's index of the package's configs/**/*.yml
TOPOLOGIES_FILE = "topologies.json"  # the compile topology table, as schemas/topologies/maxtext-<version>.json
_TEMPORARY = ".tmp-"


@dataclass(frozen=True)
class Entry:
    name: str
    version: str  # the release the package's version file names
    commit: str | None  # the checkout's commit, for an import of a git checkout
    origin: str  # the path that was imported
    kind: str  # wheel | tree | installed
    store: str  # project | user
    path: Path
    same_as: str | None = None  # a bundled pin whose schema this import equals

    @property
    def schema_path(self) -> Path:
        return self.path / SCHEMA_FILE

    @property
    def rules_dir(self) -> Path:
        return self.path / RULES_DIR

    @property
    def configs_path(self) -> Path:
        return self.path / CONFIGS_FILE

    @property
    def topologies_path(self) -> Path:
        return self.path / TOPOLOGIES_FILE

    def describe(self) -> str:
        what = f"maxtext {self.version}" + (f" at commit {self.commit[:12]}" if self.commit else "")
        same = f", identical to the bundled {self.same_as}" if self.same_as else ""
        return f"{self.store} store: {what}, imported from {self.origin}{same}"


def user_store() -> Path:
    return cache_root() / "pins"


@lru_cache(maxsize=None)
def project_store() -> Path | None:
    """The folder `pin-store` names in the nearest `[tool.flaglint]` (relative to that file)."""
    found = find_config_file(Path.cwd().resolve())
    if found is None or not found[1].get("pin-store"):
        return None
    path, table = found
    return path.parent / str(table["pin-store"])


def stores() -> list[tuple[str, Path]]:
    """The stores in lookup order: a project's entry wins over the user's of the same name."""
    project = project_store()
    return ([("project", project)] if project is not None else []) + [("user", user_store())]


def store_path(where: str) -> Path:
    if where == "user":
        return user_store()
    project = project_store()
    if project is None:
        raise InputError("no project pin store: set pin-store = \"<folder>\" under [tool.flaglint] in pyproject.toml")
    return project


def entries(skip_damaged: bool = False) -> list[Entry]:
    """Every entry of the stores; a damaged one is an error, or left out with SKIP_DAMAGED."""
    found: dict[str, Entry] = {}
    for where, root in stores():
        if not root.is_dir():
            continue
        for folder in sorted(root.iterdir()):
            if folder.is_dir() and not folder.name.startswith(_TEMPORARY) and folder.name not in found:
                try:
                    found[folder.name] = read_entry(folder, where)
                except InputError:
                    if not skip_damaged:
                        raise
    return list(found.values())


def listing() -> tuple:
    """The stores' entries as they are now, without reading any: each store's folder with the name
    and inode of each child. An entry is written elsewhere and renamed into place (write_entry), so
    one added, removed or imported again changes it."""
    found = []
    for where, root in stores():
        try:
            with os.scandir(root) as children:
                found.append((where, str(root), tuple(sorted((child.name, child.inode()) for child in children))))
        except OSError:  # no store there (yet)
            found.append((where, str(root), None))
    return tuple(found)


def find(name: str) -> Entry | None:
    if name.startswith((_TEMPORARY, ".")) or "/" in name or "\0" in name:
        return None
    for where, root in stores():
        folder = root / name
        try:
            found = folder.is_dir()
        except OSError:  # a name longer than a folder's name may be: no entry has it
            found = False
        if found:
            return read_entry(folder, where)
    return None


def read_entry(folder: Path, where: str) -> Entry:
    try:
        data = json.loads(read_text(folder / ENTRY_FILE, PIN_FILE))
        entry = Entry(name=data["name"], version=data["version"], commit=data.get("commit"), origin=data["origin"],
                      kind=data["kind"], store=where, path=folder, same_as=data.get("same_as"))
    except (Unreadable, ValueError, KeyError, TypeError) as err:
        raise InputError(f"{folder}: half-written or damaged pin store entry ({type(err).__name__}: {err}); "
                         "remove the folder and import again") from None
    if entry.same_as is None and not (entry.schema_path.is_file() and entry.rules_dir.is_dir()):
        raise InputError(f"{folder}: half-written pin store entry (no {SCHEMA_FILE} or {RULES_DIR}/); "
                         "remove the folder and import again")
    return entry


def write_entry(root: Path, entry: dict, fill, replace: bool) -> Path:
    """Write the entry named entry["name"] into ROOT atomically: FILL(folder) writes the schema and
    rules into a temporary folder, pin.json is written last, and the folder is renamed into place."""
    target = root / entry["name"]
    try:
        root.mkdir(parents=True, exist_ok=True)
        temporary = root / f"{_TEMPORARY}{entry['name']}-{os.getpid()}"
        shutil.rmtree(temporary, ignore_errors=True)
        temporary.mkdir()
        try:
            fill(temporary)
            (temporary / ENTRY_FILE).write_text(json.dumps(entry, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            if target.exists():
                if not replace:
                    raise InputError(f"{target}: already exists")
                retired = root / f"{_TEMPORARY}old-{entry['name']}-{os.getpid()}"
                os.replace(target, retired)
                os.replace(temporary, target)
                shutil.rmtree(retired, ignore_errors=True)
            else:
                os.replace(temporary, target)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
    except OSError as err:
        raise InputError(f"{root}: cannot write the pin store: {err.strerror or err}") from None
    return target

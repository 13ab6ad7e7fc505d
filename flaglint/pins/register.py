"""`flaglint schema import PATH` into a pin store, and `--pin installed`.

An import is named by its git commit (a checkout), `maxtext-X.Y.Z` (a wheel), its version and a
hash of what it defines (`maxtext-X.Y.Z-<hash>`: a folder without .git, whose version file may
well name a release it is not), or by the name the user gives. An import whose schema and rules
equal a bundled release's is that release: nothing is stored under the release's own name, and
another name (`installed-…`, a folder's) is stored as an alias of it. Two different imports never
share a name.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from flaglint.core.data import data_dir
from flaglint.core.findings import InputError
from flaglint.core.gitrefs import checkout_commit
from flaglint.core.progress import Progress
from flaglint.core.reading import PIN_FILE, RULE_FILE, read_file, read_text
from flaglint.importer.sources import CONFIG_CODE, open_package
from flaglint.pins import store

if TYPE_CHECKING:
    from flaglint.schema.model import MaxTextSchemaFile


@dataclass
class Imported:
    name: str
    lines: list[str]  # the import summary


def register(source: str | Path, where: str = "user", name: str | None = None, replace: bool = False,
             kind: str | None = None) -> Imported:
    # The importer and the walker (pydantic, the validator models) load only when importing.
    with Progress() as progress:
        return _register(source, where, name, replace, kind, progress)


def _register(source: str | Path, where: str, name: str | None, replace: bool, kind: str | None, progress: Progress) -> Imported:
    from flaglint.importer.configs import build_index, write_index  # noqa: PLC0415 the importer: only when importing
    from flaglint.importer.importer import import_schema, schema_summary, write_schema  # noqa: PLC0415 the importer: only when importing
    from flaglint.importer.topologies import topology_table, write_topologies  # noqa: PLC0415 the importer: only when importing
    from flaglint.importer.validators import summary as rules_summary  # noqa: PLC0415 the importer: only when importing
    from flaglint.importer.validators import write_rules  # noqa: PLC0415 the importer: only when importing

    root = store.store_path(where)
    with open_package(source) as files:
        directory = files.directory
    commit = checkout_commit(directory) if directory is not None else None
    progress.step(f"reading the config keys of {source}")
    schema = import_schema(source)
    release = f"maxtext-{schema.version}"
    kind = kind or ("wheel" if Path(source).is_file() else "tree")
    lines = [schema_summary(schema)]
    if name is None and commit is None and kind == "tree":
        name = f"{release}-{_content_hash(source)}"
        lines.append(f"{source}: no git commit; named {name} (its version and a hash of its config code and files)")
    name = name or commit or (release if schema.version != "unknown" else None)
    if name is None:
        raise InputError(f"{source}: no version file and no git commit to name this import by; give --name")
    _check_name(name)
    with tempfile.TemporaryDirectory() as scratch:
        rules_dir = Path(scratch) / "rules"
        progress.step(f"importing MaxText's validators from {source}")
        lines.append(rules_summary(write_rules(source, rules_dir, pin=name, schema=schema)))
        same_as = release if _equals_bundled(schema, rules_dir, name, release) else None
        if same_as is not None and name == release:
            lines.append(f"{name}: identical to the bundled pin; nothing to store")
            return Imported(name, lines)
        if name in _bundled_names():
            raise InputError(f"{source}: {name} is a bundled pin and this import differs from it; "
                             "register it under another name with --name")
        _refuse_a_second_claim(root / name, schema, rules_dir, replace)
        entry = {"name": name, "version": schema.version, "commit": commit, "origin": str(Path(source).resolve()),
                 "kind": kind, "same_as": same_as}

        def fill(folder: Path) -> None:
            if same_as is None:
                write_schema(schema, folder / store.SCHEMA_FILE)
                (folder / store.RULES_DIR).mkdir()
                for path in rules_dir.iterdir():
                    (folder / store.RULES_DIR / path.name).write_bytes(read_file(path, RULE_FILE))
                progress.step(f"indexing the config files of {source}")
                with open_package(source) as files:
                    write_index(build_index(files, schema.version), folder / store.CONFIGS_FILE)
                    if topology_table(files) is not None:  # a MaxText without one looks no compile topology up
                        write_topologies(source, folder / store.TOPOLOGIES_FILE, schema.version)

        folder = store.write_entry(root, entry, fill, replace=True)
    lines.append(f"registered {name} in the {where} store ({folder})"
                 + (f"; use --pin {name} or --pin {commit[:9]}" if commit else f"; use --pin {name}"))
    return Imported(name, lines)


def _content_hash(source: str | Path) -> str:
    """12 hex digits of what an import reads: the config code (types.py, pyconfig.py, the common
    types, the topology table) and every configs/**/*.yml. Two folders share it only when all are equal."""
    digest = hashlib.sha256()
    with open_package(source) as files:
        read = [*CONFIG_CODE, *files.files_under("configs", ".yml")]
        for relpath in read:
            if files.exists(relpath):
                digest.update(f"{relpath}\0".encode() + files.read(relpath).encode() + b"\0")
    return digest.hexdigest()[:12]


def installed() -> store.Entry:
    """The maxtext installed in this Python, found with find_spec (which does not import it) and
    imported into the user store once per version of its files."""
    spec = importlib.util.find_spec("maxtext")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    package = next((Path(p) for p in locations if (Path(p) / "configs" / "types.py").is_file()), None)
    if package is None:
        raise InputError("--pin installed: no maxtext package with configs/types.py is installed in this Python")
    digest = hashlib.sha256(str(package.resolve()).encode())
    for relpath in ("configs/types.py", "configs/pyconfig.py", "configs/base.yml", "version.py", "__init__.py"):
        path = package / relpath
        if path.is_file():
            stat = path.stat()
            digest.update(f"{relpath}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    name = f"installed-{digest.hexdigest()[:12]}"
    found = store.find(name)
    if found is None:
        register(package, "user", name=name, replace=True, kind="installed")
        found = store.find(name)
    assert found is not None
    return found


def _check_name(name: str) -> None:
    if not name or name.startswith(".") or any(c in name for c in "/\\\0") or name == "installed":
        raise InputError(f"{name!r} cannot name a pin")


def _bundled_names() -> set[str]:
    schemas = data_dir("schemas")
    return {p.stem for p in schemas.glob("maxtext-*.json")} | {p.stem for p in (schemas / "pins").glob("*.yml")}


def _schema_data(schema: MaxTextSchemaFile) -> dict:
    data = schema.model_dump(mode="json", exclude_defaults=True)
    data.pop("source", None)
    return data


def _same_rules(rules_dir: Path, other: Path, name: str, other_name: str) -> bool:
    """Whether the rule files agree, but for the pin each names."""
    for path in rules_dir.iterdir():
        theirs = other / path.name
        if not theirs.is_file():
            return False
        if read_text(path, RULE_FILE).replace(f"  - {name}\n", f"  - {other_name}\n") != read_text(theirs, RULE_FILE):
            return False
    return True


def _equals_bundled(schema: MaxTextSchemaFile, rules_dir: Path, name: str, release: str) -> bool:
    bundled = data_dir("schemas") / f"{release}.json"
    if not bundled.is_file():
        return False
    data = json.loads(read_text(bundled, PIN_FILE))
    data.pop("source", None)
    return data == _schema_data(schema) and _same_rules(rules_dir, data_dir("rules") / "maxtext" / schema.version, name, release)


def _refuse_a_second_claim(target: Path, schema: MaxTextSchemaFile, rules_dir: Path, replace: bool) -> None:
    """Importing the same MaxText again refreshes its entry; a different one needs --replace."""
    if replace or not target.exists():
        return
    held = store.read_entry(target, "")
    if held.same_as is None:
        data = json.loads(read_text(held.schema_path, PIN_FILE))
        data.pop("source", None)
        if data == _schema_data(schema) and _same_rules(rules_dir, held.rules_dir, held.name, held.name):
            return
    raise InputError(f"two imports claim the pin {held.name}: {target} already holds the one from {held.origin}; "
                     "pass --replace to replace it, or --name to register this one under another name")

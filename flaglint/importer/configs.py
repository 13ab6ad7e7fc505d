"""Indexing a MaxText package's `configs/**/*.yml` (schema/config_index.py holds the index types
and loads an index): `python -m flaglint.importer.configs WHEEL_OR_TREE OUT.json [VERSION]` writes
a release's bundled index, `flaglint schema import` a pin store entry's."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from flaglint.core.findings import InputError
from flaglint.importer.sources import (
    PYCONFIG,
    PackageFiles,
    open_package,
    package_version,
)
from flaglint.render.yaml_chain import parse_config
from flaglint.schema.config_index import ConfigIndex, EntryPoint
from flaglint.schema.index_files import CONFIG_SUFFIX

CONFIGS = "configs"
INDEX_VERSION = 1


def build_index(files: PackageFiles, version: str) -> ConfigIndex:
    """Read every configs/**/*.yml of a package (never imported) into an index."""
    indexed = {}
    for relpath in files.files_under(CONFIGS, ".yml"):
        name = relpath[len(CONFIGS) + 1:]
        indexed[name] = parse_config(files.read(relpath), name)
        for key, value in indexed[name].values.items():
            try:
                json.dumps(value)
            except (TypeError, ValueError):
                raise InputError(f"{files.origin}: {relpath}:{indexed[name].lines.get(key, 1)}: {key}: a value JSON cannot hold"
                                 " (a YAML !!binary, !!set or !!timestamp in it), as flaglint keeps the configs' values") from None
    return ConfigIndex(version, indexed, entry_points(files), config_suffix(files))


def config_suffix(files: PackageFiles) -> str | None:
    """The name ending pyconfig wants of argv[1] to read it as the config file
    (`argv[1].endswith(".yml")`, 0.2.3 and later); None where it reads argv[1] whatever its name (0.2.0)."""
    if not files.exists(PYCONFIG):
        return CONFIG_SUFFIX
    for node in ast.walk(files.parse(PYCONFIG)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "endswith"
                and ast.unparse(node.func.value) == "argv[1]" and node.args and isinstance(node.args[0], ast.Constant)):
            return str(node.args[0].value)
    return None


MAPPING = "_CONFIG_FILE_MAPPING"  # pyconfig's module -> default config (0.2.3 and later)
_INITIALIZERS = ("initialize", "initialize_pydantic")


def entry_points(files: PackageFiles) -> dict[str, EntryPoint]:
    """The modules whose code calls pyconfig.initialize(argv…) (or initialize_pydantic), with the
    default config pyconfig's mapping gives them (base.yml otherwise), read with ast."""
    def parsed(relpath: str) -> ast.Module | None:
        try:
            return ast.parse(files.read(relpath))
        except SyntaxError:  # newer syntax than this Python reads (a 3.12 f-string): not known
            return None

    defaults: dict[str, str] = {}
    pyconfig = parsed(PYCONFIG) if files.exists(PYCONFIG) else None
    if pyconfig is not None:
        for node in pyconfig.body:
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0] if isinstance(node, ast.Assign) else None
            if isinstance(target, ast.Name) and target.id == MAPPING and isinstance(node.value, ast.Dict):
                defaults = {k.value: v.value for k, v in zip(node.value.keys, node.value.values)
                            if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
    found: dict[str, EntryPoint] = {}
    for relpath in files.files_under("", ".py"):
        if "/tests/" in f"/{relpath}" or relpath.endswith("_test.py"):
            continue
        text = files.read(relpath)
        tree = parsed(relpath) if "__main__" in text and "pyconfig" in text else None  # run as a program
        if tree is None:
            continue
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _INITIALIZERS
                    and isinstance(call.func.value, ast.Name) and call.func.value.id == "pyconfig" and call.args
                    and "argv" in ast.unparse(call.args[0])):
                continue
            module = "maxtext." + relpath.removesuffix(".py").replace("/", ".")
            config_class = next((ast.unparse(k.value).rsplit(".", 1)[-1] for k in call.keywords if k.arg == "config_class"), "MaxTextConfig")
            found[module] = EntryPoint(defaults.get(module, "base.yml"), config_class)
    for module, config in defaults.items():
        found.setdefault(module, EntryPoint(config))
    return dict(sorted(found.items()))


def write_index(index: ConfigIndex, out: str | Path) -> None:
    payload = {"version": index.version, "format": INDEX_VERSION, "config_suffix": index.config_suffix,
               "entry_points": {module: {"config": e.config, "config_class": e.config_class} for module, e in index.entry_points.items()},
               "files": {name: entry.to_json() for name, entry in sorted(index.files.items())}}
    Path(out).write_text(json.dumps(payload, indent=1, sort_keys=False, allow_nan=True) + "\n", encoding="utf-8")


def import_index(package: str | Path, out: str | Path, version: str | None = None) -> ConfigIndex:
    """Index a source tree or wheel and write it. `version`: when the package does not say
    (0.2.0 and 0.2.3 carry no `__version__` that can be read without importing them)."""
    with open_package(package) as files:
        index = build_index(files, version or package_version(files))
    if not index.files:
        raise InputError(f"{package}: no {CONFIGS}/**/*.yml to index")
    write_index(index, out)
    return index


if __name__ == "__main__":  # python -m flaglint.importer.configs WHEEL_OR_TREE OUT.json [VERSION]
    import sys

    built = import_index(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    print(f"indexed {len(built.files)} config files of maxtext {built.version} into {sys.argv[2]}")

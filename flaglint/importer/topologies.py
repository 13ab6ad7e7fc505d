"""The compile topologies a MaxText version knows: the names of the table in
`utils/accelerator_to_spec_map.py` that `get_system_characteristics` looks a name up in, and each
one's devices per slice (the table flaglint bundles per release, flaglint/maxtext/tpu.py), read
with `ast` (the module is never imported).
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from flaglint.core.findings import InputError
from flaglint.importer.sources import SPEC_MAP, PackageFiles, open_package

LOOKUP = "get_system_characteristics"
TOPOLOGY_KEY = "compile_topology"  # the key the config pass looks up (types.py, get_num_target_devices)
DEVICES_PER_SLICE_ARG = 4  # SystemCharacteristics(platform, topology_name, chip_config_name, chips_per_host_bounds, devices_per_slice, wrap)


@dataclass(frozen=True)
class TopologyTable:
    names: tuple[str, ...]  # in the table's order
    lookup: ast.FunctionDef  # get_system_characteristics, whose raise refuses a name not in the table
    table: str  # the table's variable name


def topology_table(files: PackageFiles) -> TopologyTable | None:
    """The table `get_system_characteristics` reads, or None when the package has no such lookup."""
    if not files.exists(SPEC_MAP):
        return None
    tree = files.parse(SPEC_MAP)
    lookup = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == LOOKUP), None)
    if lookup is None:
        return None
    read = {  # the names this function calls `.get` on
        call.func.value.id
        for call in ast.walk(lookup)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "get"
        and isinstance(call.func.value, ast.Name)
    }  # fmt: skip
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id in read and isinstance(node.value, ast.Dict):
            names = [k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if len(names) != len(node.value.keys):
                return None  # a computed name: the table is not known from the text
            return TopologyTable(tuple(dict.fromkeys(names)), lookup, target.id)
    return None


def build_topologies(package: str | Path) -> dict[str, int]:
    """compile topology name -> devices per slice, from a MaxText wheel or source tree."""
    with open_package(package) as files:
        table = topology_table(files)
        if table is None:
            raise InputError(f"{package}: no compile topology table ({SPEC_MAP})")
        tree = ast.parse(files.read(SPEC_MAP))
    found: dict[str, int] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if not (isinstance(target, ast.Name) and target.id == table.table and isinstance(node.value, ast.Dict)):
            continue
        for key, value in zip(node.value.keys, node.value.values):
            count = _devices_argument(value)
            if isinstance(key, ast.Constant) and count is not None:
                found[key.value] = count
    return found


def _devices_argument(call: ast.expr) -> int | None:
    if not isinstance(call, ast.Call):
        return None
    for keyword in call.keywords:
        if keyword.arg == "devices_per_slice" and isinstance(keyword.value, ast.Constant):
            return int(keyword.value.value)
    if len(call.args) > DEVICES_PER_SLICE_ARG and isinstance(call.args[DEVICES_PER_SLICE_ARG], ast.Constant):
        return int(call.args[DEVICES_PER_SLICE_ARG].value)
    return None


def write_topologies(package: str | Path, path: Path, version: str) -> int:
    """PACKAGE's table written to PATH as flaglint/maxtext/tpu.py reads it; its size."""
    table = build_topologies(package)
    path.write_text(json.dumps({"version": version, "devices_per_slice": table}, indent=1) + "\n", encoding="utf-8")
    return len(table)


if __name__ == "__main__":  # python -m flaglint.importer.topologies WHEEL_OR_TREE OUT.json VERSION
    print(f"{write_topologies(sys.argv[1], Path(sys.argv[2]), sys.argv[3])} compile topologies of maxtext {sys.argv[3]} into {sys.argv[2]}")

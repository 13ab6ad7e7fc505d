"""The compile topologies a MaxText version knows: the names of the table in
`utils/accelerator_to_spec_map.py` that `get_system_characteristics` looks a name up in, read
with `ast` (the module is never imported)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from flaglint.core.findings import InputError
from flaglint.importer.sources import PackageFiles

SPEC_MAP = "utils/accelerator_to_spec_map.py"
LOOKUP = "get_system_characteristics"
TOPOLOGY_KEY = "compile_topology"  # the key the config pass looks up (types.py, get_num_target_devices)


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

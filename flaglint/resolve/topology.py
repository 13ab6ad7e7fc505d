"""The device count a config runs on, and where it came from.

Sources, first found wins: `--topology NAME` (a compile topology name such as `v5p-8`, 4 devices,
or a TPU slice such as `tpu7x:4x4x8`, 256 devices) with `--slices`; the config's own
`compile_topology` and `compile_topology_num_slices` (as MaxText's AOT compile reads them); Tunix's
`TRAINER_TPU_SLICE` (also set by `gate` from a JobSet's TPU topology selector).

The compile topology names and their devices per slice are generated per release
(`schemas/topologies/maxtext-<version>.json`) from `utils/accelerator_to_spec_map.py`, read with
`ast` (never imported).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from flaglint.core.data import data_dir
from flaglint.core.findings import InputError

# The names rules read: the device count MaxText's validators ask JAX for, and the mesh's view of it.
NUM_DEVICES = "num_devices"
# The slices JAX finds where num_slices is -1: the device count's, else 1 (MaxText's own answer when
# it cannot count them), so a check without a device count judges one slice.
LIVE_SLICES = "live_slices"
MESH_DEVICES_PER_SLICE = "mesh_devices_per_slice"
MESH_SLICES = "mesh_slices"
DEVICES_PER_SLICE_ARG = 4  # SystemCharacteristics(platform, topology_name, chip_config_name, chips_per_host_bounds, devices_per_slice, wrap)


@dataclass(frozen=True)
class DeviceCount:
    """How many TPU devices a launch has, and where that number came from."""

    devices: int  # in all slices
    slices: int
    source: str  # where the count came from, for the user

    @property
    def per_slice(self) -> int:
        return self.devices // self.slices


def topologies_path(version: str) -> Path:
    return data_dir("schemas") / "topologies" / f"maxtext-{version}.json"


@lru_cache(maxsize=None)
def load_topologies(version: str) -> dict[str, int]:
    """compile topology name -> devices per slice, at a release ({} when none is bundled)."""
    path = topologies_path(version)
    return json.loads(path.read_text(encoding="utf-8"))["devices_per_slice"] if path.is_file() else {}


def build_topologies(package: str | Path) -> dict[str, int]:
    from flaglint.importer.sources import open_package
    from flaglint.importer.topologies import SPEC_MAP, topology_table

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


def slice_devices(name: str) -> int | None:
    """Devices of a TPU slice written as `<generation>:AxBxC` (v7x has 2 devices per chip)."""
    from flaglint.rules.expr import Unknown, _slice_devices

    try:
        return _slice_devices(name)
    except Unknown:
        return None


def named_devices(name: str, version: str) -> int | None:
    """Devices per slice of a compile topology name or a TPU slice, or None if unknown."""
    table = load_topologies(version)
    return table[name] if name in table else slice_devices(name)


def from_option(name: str, slices: int, version: str) -> DeviceCount:
    per_slice = named_devices(name, version)
    if per_slice is None:
        import difflib

        close = difflib.get_close_matches(name, load_topologies(version), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else " (a compile topology name such as v5p-8, or a slice such as tpu7x:4x4x8)"
        raise InputError(f"--topology {name!r}: not a topology MaxText {version} knows{hint}")
    return DeviceCount(per_slice * slices, slices, f"--topology {name}" + (f" --slices {slices}" if slices != 1 else ""))


def from_config(config, version: str) -> DeviceCount | None:
    """compile_topology (+ compile_topology_num_slices) as MaxText reads them, else TRAINER_TPU_SLICE."""

    def lookup(key: str):
        return config.lookup(key) if config.knows(key) else None

    name = lookup("compile_topology")
    if isinstance(name, str) and name:
        per_slice = named_devices(name, version)
        slices = lookup("compile_topology_num_slices")
        if per_slice is not None and isinstance(slices, int) and slices > 0:
            return DeviceCount(per_slice * slices, slices, f"compile_topology={name} compile_topology_num_slices={slices}")
        return None
    tunix_slice = lookup("TRAINER_TPU_SLICE")
    if isinstance(tunix_slice, str) and (count := slice_devices(tunix_slice)) is not None:
        return DeviceCount(count, 1, f"TRAINER_TPU_SLICE={tunix_slice}")
    return None


def device_names(config, count: DeviceCount) -> dict[str, int]:
    """The values rules read for a device count. The mesh rules describe the mesh of base.yml's
    mesh_axes, so they are judged only when the config keeps those axes (and no custom mesh file)."""
    names = {NUM_DEVICES: count.devices, LIVE_SLICES: count.slices}
    standard = config.lookup("mesh_axes") == config.pin.default("mesh_axes") and not config.lookup("custom_mesh_and_rule")
    if standard:
        names |= {MESH_DEVICES_PER_SLICE: count.per_slice, MESH_SLICES: count.slices}
    return names


DEVICE_NAMES = (NUM_DEVICES, MESH_DEVICES_PER_SLICE, MESH_SLICES)
# What from_config and device_names read: a rule over DEVICE_NAMES reads these too.
DEVICE_KEYS = frozenset({"compile_topology", "compile_topology_num_slices", "TRAINER_TPU_SLICE", "mesh_axes", "custom_mesh_and_rule"})


def not_judged_note(ruleset, config) -> str | None:
    """The one line that names the rules on devices a device count would let flaglint judge: they
    are not judged, never passed (None where the pin has none)."""
    ids = [rule.id for rule in ruleset.rules
           if not rule.builtin and rule.applies_to(config.pin.chain) and rule.name_set.intersection(DEVICE_NAMES)]
    if not ids:
        return None
    return (f"no device count (give --topology NAME, or set compile_topology or TRAINER_TPU_SLICE): "
            f"{len(ids)} rules on devices and the mesh were not judged: {', '.join(ids)}")


if __name__ == "__main__":  # python -m flaglint.resolve.topology WHEEL_OR_TREE OUT.json VERSION
    import sys

    table = build_topologies(sys.argv[1])
    Path(sys.argv[2]).write_text(json.dumps({"version": sys.argv[3], "devices_per_slice": table}, indent=1) + "\n", encoding="utf-8")
    print(f"{len(table)} compile topologies of maxtext {sys.argv[3]} into {sys.argv[2]}")

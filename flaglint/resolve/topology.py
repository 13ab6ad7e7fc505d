"""The device count a config runs on, and where it came from.

Sources, first found wins: `--topology NAME` (a compile topology name such as `v5p-8`, 4 devices,
or a TPU slice such as `tpu7x:4x4x8`, 256 devices) with `--slices`; the config's own
`compile_topology` and `compile_topology_num_slices` (as MaxText's AOT compile reads them); Tunix's
`TRAINER_TPU_SLICE` (also set by `gate` from a JobSet's TPU topology selector). What a name or a
slice is worth is MaxText's knowledge (flaglint/maxtext/tpu.py).
"""

from __future__ import annotations

from pathlib import Path

from flaglint.core.findings import InputError
from flaglint.core.records import FrozenRecord
from flaglint.maxtext.mesh import MESH_DEVICES_PER_SLICE, MESH_SLICES
from flaglint.maxtext.tpu import (
    LIVE_SLICES,
    NUM_DEVICES,
    load_topologies,
    named_devices,
    slice_devices,
    slice_topology,
)
from flaglint.tunix.variables import launcher


class DeviceCount(FrozenRecord):
    """How many TPU devices a launch has, and where that number came from."""

    __slots__ = field_names = ("devices", "slices", "source", "topology")

    def __init__(self, devices: int, slices: int, source: str, topology: str | None = None):
        self.devices = devices  # in all slices
        self.slices = slices
        self.source = source  # where the count came from, for the user
        self.topology = topology  # MaxText's compile topology name of one slice, where one is known

    @property
    def per_slice(self) -> int:
        return self.devices // self.slices


def from_option(name: str, slices: int, version: str, topologies: str | Path | None = None) -> DeviceCount:
    """The devices of `--topology NAME --slices SLICES` at MaxText VERSION, whose compile topology
    table is TOPOLOGIES (a pin's: a bundled version or a store entry's file; default VERSION's)."""
    table = topologies or version
    per_slice = named_devices(name, table)
    if per_slice is None:
        import difflib  # noqa: PLC0415 difflib: only for a did-you-mean

        close = difflib.get_close_matches(name, load_topologies(table), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else " (a compile topology name such as v5p-8, or a slice such as tpu7x:4x4x8)"
        raise InputError(f"--topology {name!r}: not a topology MaxText {version} knows{hint}")
    return DeviceCount(per_slice * slices, slices, f"--topology {name}" + (f" --slices {slices}" if slices != 1 else ""),
                       slice_topology(name, table))


def from_config(config) -> DeviceCount | None:
    """compile_topology (+ compile_topology_num_slices) as MaxText reads them (in the table of the
    config's pin), else Tunix's slice variable."""

    def lookup(key: str):
        return config.lookup(key) if config.knows(key) else None

    name = lookup("compile_topology")
    if isinstance(name, str) and name:
        per_slice = named_devices(name, config.pin.topologies)
        slices = lookup("compile_topology_num_slices")
        if per_slice is not None and isinstance(slices, int) and slices > 0:
            return DeviceCount(per_slice * slices, slices, f"compile_topology={name} compile_topology_num_slices={slices}", name)
        return None
    tunix_slice = lookup(launcher().slice)
    if isinstance(tunix_slice, str) and (count := slice_devices(tunix_slice)) is not None:
        return DeviceCount(count, 1, f"{launcher().slice}={tunix_slice}", slice_topology(tunix_slice, config.pin.topologies))
    return None


def device_names(config, count: DeviceCount) -> dict[str, int]:
    """The values rules read for a device count. The mesh rules describe the mesh of base.yml's
    mesh_axes, so they are judged only when the config keeps those axes (and no custom mesh file,
    where the pin defines custom_mesh_and_rule: 0.2.0 does not)."""
    names = {NUM_DEVICES: count.devices, LIVE_SLICES: count.slices}
    custom_mesh = config.knows("custom_mesh_and_rule") and config.lookup("custom_mesh_and_rule")
    standard = config.knows("mesh_axes") and config.lookup("mesh_axes") == config.pin.default("mesh_axes") and not custom_mesh
    if standard:
        names |= {MESH_DEVICES_PER_SLICE: count.per_slice, MESH_SLICES: count.slices}
    return names


DEVICE_NAMES = (NUM_DEVICES, MESH_DEVICES_PER_SLICE, MESH_SLICES)


def device_keys() -> frozenset[str]:
    """What from_config and device_names read: a rule over DEVICE_NAMES reads these too."""
    return frozenset({"compile_topology", "compile_topology_num_slices", launcher().slice, "mesh_axes", "custom_mesh_and_rule"})


def unmodelled_mesh_note(ruleset, config) -> str | None:
    """The one line that names flaglint's own checks of the mesh MaxText builds at start-up that are
    written for other releases' mesh code, so not judged at this pin even with a device count."""
    elsewhere = [rule for rule in ruleset.rules if not rule.builtin and rule.id.startswith("FL") and rule.pins
                 and not rule.applies_to(config.pin.chain) and rule.name_set.intersection(DEVICE_NAMES)]
    if not elsewhere:
        return None
    written_for = sorted({pin for rule in elsewhere for pin in rule.pins})
    return (f"{', '.join(rule.id for rule in elsewhere)} (the mesh MaxText builds at start-up) are written for the mesh code of "
            f"{', '.join(written_for)}: not judged at {config.pin.pin}")


def not_judged_note(ruleset, config) -> str | None:
    """The one line that names the rules on devices a device count would let flaglint judge: they
    are not judged, never passed (None where the pin has none)."""
    ids = [rule.id for rule in ruleset.rules
           if not rule.builtin and rule.applies_to(config.pin.chain) and rule.name_set.intersection(DEVICE_NAMES)]
    if not ids:
        return None
    return (f"no device count (give --topology NAME, or set compile_topology or {launcher().slice}): "
            f"{len(ids)} rules on devices and the mesh were not judged: {', '.join(ids)}")


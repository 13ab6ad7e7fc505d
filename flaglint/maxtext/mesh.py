"""MaxText's device mesh as its checks see it: which keys are mesh axes, what the axes of each
network span (the ici axes the devices of a slice, the dcn axes the slices), and how many slices a
run has (num_slices=-1: those JAX finds)."""

from __future__ import annotations

import re
from collections.abc import Callable

from flaglint.maxtext.tpu import LIVE_SLICES

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

MESH_AXIS = r"(ici|dcn)_[a-z_]+_parallelism"  # compiled by re when first used: a check compiles only the patterns it uses
MAX_MESH_AXIS = 2**16  # more chips than any TPU slice or multislice job has
FILL = -1  # an axis of -1 takes the devices the other axes leave
# The mesh's view of the device count: the devices the ici axes together span, the slices the dcn axes span.
MESH_DEVICES_PER_SLICE = "mesh_devices_per_slice"
MESH_SLICES = "mesh_slices"
ICI, DCN = "ici_", "dcn_"
NETWORKS = ((ICI, MESH_DEVICES_PER_SLICE), (DCN, MESH_SLICES))  # each network's key prefix, and what its axes span


def axis_exponent(value: Any) -> int | None:
    """k for a mesh axis of 2**k devices; None for any other value."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value & (value - 1):
        return None
    return value.bit_length() - 1


def fix_values(name: str, candidates: list[Any]) -> list[Any]:
    """The candidates a fix may give a parallelism key. A mesh axis takes powers of two up to
    MAX_MESH_AXIS, so that "the same device count" is a sum of exponents. Neither takes -1 ("fill"):
    it is resolved against the devices before MaxText's checks run, so a fix never proposes it."""
    if re.fullmatch(MESH_AXIS, name):
        return [v for v in candidates if axis_exponent(v) is not None and v <= MAX_MESH_AXIS]
    if name.endswith("_parallelism"):
        return [v for v in candidates if v != FILL]
    return candidates


def effective_slices(lookup: Callable[[str], Any], knows: Callable[[str], bool]) -> Any:
    """The slices of a run without a device count, as MaxText counts them (effective_num_slices):
    num_slices, else compile_topology_num_slices, else those JAX finds (live_slices: one)."""
    if knows("num_slices") and lookup("num_slices") != FILL:
        return lookup("num_slices")
    compiled = lookup("compile_topology_num_slices") if knows("compile_topology_num_slices") else None
    if isinstance(compiled, (int, float)) and compiled > 0:
        return compiled
    return lookup(LIVE_SLICES)

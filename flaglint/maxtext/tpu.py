"""TPU facts a launch is judged by: the devices of a TPU slice written as `<generation>:AxBxC`
(its chips are the product of the shape; a v7x chip has two devices), the compile topology names a
MaxText release knows with their devices per slice, and the names rules read for a device count.

The compile topology tables are generated per release (`schemas/topologies/maxtext-<version>.json`)
by flaglint/importer/topologies.py from MaxText's `utils/accelerator_to_spec_map.py`; an import
into the pin store writes its own (`topologies.json` of the entry).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from flaglint.core.data import data_dir
from flaglint.core.numbers import decimal_int
from flaglint.core.reading import DATA_FILE, read_text
from flaglint.maxtext.dtypes import refused_dtype_name
from flaglint.rules.expr import Unknown

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

# The names rules read: the device count MaxText's validators ask JAX for.
NUM_DEVICES = "num_devices"
# The slices JAX finds where num_slices is -1: the device count's, else 1 (MaxText's own answer when
# it cannot count them), so a check without a device count judges one slice.
LIVE_SLICES = "live_slices"
TWO_DEVICE_CHIPS = ("tpu7x", "v7x", "tpuv7x")  # the generations whose chips have two devices each
# A TPU generation as GKE's accelerator node label and XPK's --tpu-type name it -> as MaxText's
# compile topology names do (tpu-v5-lite-podslice at 2x4, XPK's v5litepod-8: MaxText's v5e-8)
GENERATIONS = {"tpu-v4-podslice": "v4", "tpu-v5-lite-podslice": "v5e", "tpu-v5-lite-device": "v5e", "v5litepod": "v5e",
               "tpu-v5p-slice": "v5p", "tpu-v6e-slice": "v6e"}


def slice_devices(topology: Any) -> int | None:
    """Devices of a TPU slice such as `tpu7x:4x4x8` (128 chips, 256 devices); None for anything else."""
    if not isinstance(topology, str) or ":" not in topology:
        return None
    generation, shape = topology.split(":", 1)
    try:
        chips = 1
        for dim in shape.split("x"):
            chips *= decimal_int(dim) if dim.isascii() and dim.isdigit() else int(dim)  # any length
    except ValueError:
        return None
    return chips * (2 if generation in TWO_DEVICE_CHIPS else 1)


def _known_slice_devices(topology: Any) -> int:
    count = slice_devices(topology)
    if count is None:
        raise Unknown(f"not a TPU slice: {topology!r}")
    return count


# The functions rules call that the rule language leaves to its caller (rules/expr.py's HANDED).
RULE_FUNCTIONS = {"slice_devices": _known_slice_devices, "refused_dtype_name": refused_dtype_name}


def topologies_path(topologies: str | Path) -> Path:
    """A release's bundled table; a Path is a pin store entry's own."""
    return topologies if isinstance(topologies, Path) else data_dir("schemas") / "topologies" / f"maxtext-{topologies}.json"


@lru_cache(maxsize=None)
def load_topologies(topologies: str | Path) -> dict[str, int]:
    """compile topology name -> devices per slice: a bundled release's (a version) or a pin store
    entry's (its file); {} when there is none."""
    path = topologies_path(topologies)
    return json.loads(read_text(path, DATA_FILE))["devices_per_slice"] if path.is_file() else {}


def named_devices(name: str, topologies: str | Path) -> int | None:
    """Devices per slice of a compile topology name (in the table TOPOLOGIES: a pin's) or a TPU
    slice, or None if unknown."""
    table = load_topologies(topologies)
    return table[name] if name in table else slice_devices(name)


def slice_topology(tpu_slice: str, topologies: str | Path) -> str | None:
    """MaxText's compile topology name (in the table TOPOLOGIES) of a slice written as one of its
    names or as `<generation>:<shape>` (the generation as MaxText, GKE or XPK names it): the one
    name of the generation with the slice's devices, or None."""
    table = load_topologies(topologies)
    if tpu_slice in table:
        return tpu_slice
    generation = GENERATIONS.get(tpu_slice.split(":")[0], tpu_slice.split(":")[0])
    devices = slice_devices(f"{generation}:{tpu_slice.partition(':')[2]}")
    names = [name for name, count in table.items() if name.rpartition("-")[0] == generation and count == devices]
    return names[0] if len(names) == 1 else None

"""A finding says the values of the keys its rule reads; a dozen of them are grouped, so that the
ones that stand out are read first and a value many keys share is said once."""

from __future__ import annotations

import re

from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource
from flaglint.resolve.topology import from_option


def _message(rule: str, flags: str, topology: str | None = None) -> str:
    devices = from_option(topology, 1, "0.2.5") if topology else None
    (finding,) = [f for f in Checker("maxtext-0.2.5", devices=devices).check(FlagSource(flags), fix=False).findings if f.rule == rule]
    return finding.message


def test_a_mesh_of_a_dozen_axes_says_the_ones_that_differ_then_each_shared_value_once():
    message = _message("FL141", "ici_fsdp_parallelism=3", "v5p-8")
    values = message[message.rindex(" (") + 2: -1]
    assert values.startswith("ici_fsdp_parallelism=3, mesh_devices_per_slice=4; each 1: ici_diloco_parallelism, ")
    assert values.count("=") == 2 and "ici_tensor_parallelism" in values and "=1" not in values


def test_a_few_values_are_said_one_by_one():
    message = _message("MXCQ1N5", "num_moe_token_chunks=2")
    assert message.endswith("(num_moe_token_chunks=2, use_ring_of_experts=false)")
    assert not re.search(r"\beach\b", message)

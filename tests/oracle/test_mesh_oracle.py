"""The mesh rules (rules/mesh.yml) against MaxText 0.2.5's own mesh code on 8 fake CPU devices
(JAX_NUM_CPU_DEVICES): max_utils.fill_unspecified_mesh_axes on the config's ici and dcn lists, as
maxtext_utils.create_device_mesh calls it (that module needs packages the config-only environment
lacks), then, for one slice, JAX's mesh_utils.create_device_mesh on the devices."""

from __future__ import annotations

import random

import pytest
from maxtext_env import oracle_python, run_in_oracle, unavailable

from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource
from flaglint.resolve.topology import DeviceCount

pytestmark = pytest.mark.oracle

DEVICES = 8
MESH_RULES = {"FL140", "FL141", "FL142", "FL143"}
_ORACLE = """
import os
os.environ["JAX_NUM_CPU_DEVICES"] = str(INPUT["devices"])
import unittest  # pyconfig raises instead of exiting
from maxtext.configs import pyconfig
import jax
from jax.experimental import mesh_utils
from maxtext.utils import max_utils
OUTPUT = []
environment = dict(os.environ)
for words, slices in INPUT["cases"]:
    os.environ.clear(); os.environ.update(environment)
    try:
        config = pyconfig.initialize(["", "skip_jax_distributed_system=True", *words])
    except BaseException as err:
        OUTPUT.append(["config", type(err).__name__]); continue
    try:
        ici = max_utils.fill_unspecified_mesh_axes(list(config.ici_parallelism), len(jax.devices()) // slices, "ICI")
        if slices == 1:
            mesh_utils.create_device_mesh(ici, jax.devices())
        else:
            max_utils.fill_unspecified_mesh_axes(list(config.dcn_parallelism), slices, "DCN")
        OUTPUT.append(["ok", None])
    except AssertionError as err:
        OUTPUT.append(["mesh", str(err).split(chr(10))[0][:120]])
"""


def _cases() -> list[tuple[list[str], int]]:
    draw = random.Random(14)
    values = [-1, 1, 2, 4, 8, 3]
    cases = []
    for _ in range(36):
        words = [f"ici_{axis}_parallelism={draw.choice(values)}" for axis in ("fsdp", "tensor", "data", "sequence") if draw.random() < 0.7]
        slices = draw.choice([1, 1, 2])
        if slices > 1:
            words += [f"dcn_{axis}_parallelism={draw.choice(values[:4])}" for axis in ("data", "fsdp") if draw.random() < 0.7]
            words.append(f"num_slices={slices}")
        cases.append((words, slices))
    return cases


def test_the_mesh_rules_refuse_exactly_the_meshes_maxtext_cannot_build():
    if oracle_python() is None:
        pytest.skip(unavailable("oracle"))
    cases = _cases()
    answers = run_in_oracle(_ORACLE, {"devices": DEVICES, "cases": cases})
    judged, wrong = 0, []
    for (words, slices), (outcome, detail) in zip(cases, answers):
        if outcome == "config":
            continue  # pyconfig refuses it before any mesh is built
        judged += 1
        checker = Checker(devices=DeviceCount(DEVICES, slices, "test"))
        found = {f.rule for f in checker.check(FlagSource(" ".join(words)), fix=False).findings} & MESH_RULES
        if bool(found) != (outcome == "mesh"):
            wrong.append(f"{words} on {slices} slice(s): flaglint {sorted(found) or 'accepts'}, MaxText {outcome} {detail or ''}")
    assert judged >= 25 and not wrong, "\n".join(wrong)

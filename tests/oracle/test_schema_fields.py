"""The committed 0.2.5 schema against the live `MaxTextConfig.model_fields` of the real package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from maxtext_env import REPO, oracle_python, run_in_oracle, unavailable

from flaglint.importer.fieldtypes import BOUNDS
from flaglint.schema.model import MaxTextSchemaFile

pytestmark = pytest.mark.oracle

COMPARED = ("kind", "nullable", "choices", "enum", "int_enum", "item", "members", *BOUNDS, "default")
_DUMP = """
from maxtext.configs.types import MaxTextConfig
from maxtext.utils import accelerator_to_spec_map
OUTPUT = {"top": list(MaxTextConfig.model_fields), "fields": describe_fields(MaxTextConfig),
          "topologies": list(accelerator_to_spec_map.UserFacingNameToSystemCharacteristics)}
"""


@pytest.fixture(scope="module")
def live_fields() -> dict:
    if oracle_python() is None:
        pytest.skip(unavailable("oracle"))
    describer = (Path(__file__).parent / "field_kinds.py").read_text()
    return run_in_oracle(describer + _DUMP, None)


@pytest.fixture(scope="module")
def committed() -> MaxTextSchemaFile:
    return MaxTextSchemaFile.model_validate_json((REPO / "schemas" / "maxtext-0.2.5.json").read_text())


def test_every_field_of_maxtextconfig_and_nothing_else(live_fields, committed):
    assert len(live_fields["top"]) == 865
    assert sorted(live_fields["fields"]) == sorted(committed.keys)


def test_each_field_types_choices_bounds_and_default_equal_the_live_model(live_fields, committed):
    mismatches = []
    for name, live in live_fields["fields"].items():
        imported = committed.keys[name].model_dump()
        if name == "compile_topology":  # a free string to pydantic; the config pass looks it up in this table
            live = {**live, "choices": live_fields["topologies"]}
        for attribute in COMPARED:
            want = live.get(attribute, False if attribute in ("nullable", "int_enum") else None)
            got = imported[attribute]
            if got != want or (attribute == "default" and type(got) is not type(want)):
                mismatches.append(f"{name}.{attribute}: imported {got!r}, MaxText {want!r}")
    assert not mismatches, "\n".join(mismatches)


_LOAD_YML = """
import glob, os
import maxtext.configs
from omegaconf import OmegaConf
configs = os.path.dirname(maxtext.configs.__file__)
def load(path):
    return OmegaConf.to_container(OmegaConf.load(path)) or {}
OUTPUT = {
    "base": load(os.path.join(configs, "base.yml")),
    "models": {os.path.basename(p)[:-4]: load(p) for p in glob.glob(os.path.join(configs, "models", "*.yml"))},
}
"""


def test_base_and_model_yml_values_equal_what_omegaconf_loads(committed):
    if oracle_python() is None:
        pytest.skip(unavailable("oracle"))
    loaded = run_in_oracle(_LOAD_YML, None)
    imported = {"base": committed.base_defaults, "models": {n: m.keys for n, m in committed.models.items()}}
    # compared as JSON text so that 1 and 1.0, or 1e-06 and "1e-6", differ
    assert json.dumps(imported, sort_keys=True) == json.dumps(loaded, sort_keys=True)


_DUMP_RL = """
from maxtext.configs.types import MaxTextConfig, RLConfig
OUTPUT = {"maxtext": describe_fields(MaxTextConfig), "rl": describe_fields(RLConfig)}
"""


def test_rlconfig_keys_that_maxtextconfig_lacks_and_the_reverse_equal_the_live_models(committed):
    if oracle_python() is None:
        pytest.skip(unavailable("oracle"))
    live = run_in_oracle((Path(__file__).parent / "field_kinds.py").read_text() + _DUMP_RL, None)
    rl = committed.config_classes["RLConfig"]
    # its own keys, and those it declares again with another type or bounds (num_epoch >= 1)
    assert sorted(k for k in rl.keys if k not in live["maxtext"]) == sorted(set(live["rl"]) - set(live["maxtext"]))
    assert rl.keys["num_epoch"].ge == 1
    assert rl.lacks == sorted(set(live["maxtext"]) - set(live["rl"]))
    mismatches = [f"{name}.{attribute}: imported {rl.keys[name].model_dump()[attribute]!r}, MaxText {want!r}"
                  for name, fields in live["rl"].items() if name in rl.keys
                  for attribute in COMPARED
                  if (want := fields.get(attribute, False if attribute in ("nullable", "int_enum") else None)) != rl.keys[name].model_dump()[attribute]]  # fmt: skip
    assert not mismatches, "\n".join(mismatches)

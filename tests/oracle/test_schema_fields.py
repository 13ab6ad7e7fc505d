"""The committed 0.2.5 schema against the live `MaxTextConfig.model_fields` of the real package."""

from __future__ import annotations

from pathlib import Path

import pytest

from flaglint.schema.fieldtypes import BOUNDS
from flaglint.schema.model import Schema

from maxtext_env import REPO, oracle_python, run_in_oracle, unavailable

pytestmark = pytest.mark.oracle

COMPARED = ("kind", "nullable", "choices", "enum", "int_enum", "item", "members", *BOUNDS, "default")
_DUMP = """
from maxtext.configs.types import MaxTextConfig
OUTPUT = {"top": list(MaxTextConfig.model_fields), "fields": describe_fields(MaxTextConfig)}
"""


@pytest.fixture(scope="module")
def live_fields() -> dict:
    if oracle_python() is None:
        pytest.skip(unavailable("oracle"))
    describer = (Path(__file__).parent / "field_kinds.py").read_text()
    return run_in_oracle(describer + _DUMP, None)


@pytest.fixture(scope="module")
def committed() -> Schema:
    return Schema.model_validate_json((REPO / "schemas" / "maxtext-0.2.5.json").read_text())


def test_every_field_of_maxtextconfig_and_nothing_else(live_fields, committed):
    assert len(live_fields["top"]) == 865
    assert sorted(live_fields["fields"]) == sorted(committed.keys)


def test_each_field_types_choices_bounds_and_default_equal_the_live_model(live_fields, committed):
    mismatches = []
    for name, live in live_fields["fields"].items():
        imported = committed.keys[name].model_dump()
        for attribute in COMPARED:
            want = live.get(attribute, False if attribute in ("nullable", "int_enum") else None)
            got = imported[attribute]
            if got != want or (attribute == "default" and type(got) is not type(want)):
                mismatches.append(f"{name}.{attribute}: imported {got!r}, MaxText {want!r}")
    assert not mismatches, "\n".join(mismatches)

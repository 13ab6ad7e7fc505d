"""A list the config holds (a list key) read element by element: the import states MaxText's loops
and comprehensions over one as generators (`any(r > 0 for r in ratios)`), which the rules evaluate
on the config's list. Each check of a small validator package of the test's own is judged as
Python runs that check, on drawn values."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from maxtext_packages import write_package

from flaglint.importer.validators import extract
from flaglint.rules.expr import evaluate, parse

# One check a validator, so that each rule is judged against the one check it states.
CHECKS = {
    "check_each_ratio": '''
    for ratio in self.ratios:
      if ratio != 0 and ratio < 4:
        raise ValueError(f"ratio must be 0 or at least 4, got {ratio}")
''',
    "check_compressed": '''
    if self.mode == "compressed" and any(r > 0 for r in self.ratios) and self.parallel > 1:
      raise ValueError("compressed ratios need parallel 1")
''',
    "check_slices": '''
    table = {"a": self.p_a, "b": self.p_b, "model": self.p_b, "pad": 1}
    sizes = [table.get(axis, 1) for axis in self.axes]
    product = prod(v for v in sizes if v != -1)
    if product <= 0 or self.slices % product != 0:
      raise ValueError("slices must be a multiple of the product of the sizes")
''',
    "check_unknown_axes": '''
    table = {"a": 1, "b": 2}
    if len([axis for axis in self.axes if axis not in table]) > self.unknown_axes:
      raise ValueError("too many axes outside the table")
''',
    "check_twice": '''
    doubled = [2 * s for s in self.sizes]
    if self.pick in [d + 1 for d in doubled if d > 0]:
      raise ValueError("pick is one more than twice a size")
''',
    "check_sum": '''
    if sum(s for s in self.sizes if s > self.floor) > 6:
      raise ValueError("sizes above the floor add up past 6")
''',
}
VALIDATORS = "".join(
    f'\n  @model_validator(mode="after")\n  def {name}(self):\n{body.replace(chr(10) + "    ", chr(10) + "    ")}    return self\n'
    for name, body in CHECKS.items()
)
TYPES = f'''
from math import prod
from pydantic import BaseModel, Field
from pydantic.functional_validators import model_validator


class MaxTextConfig(BaseModel):
  ratios: list[int] = Field(default_factory=list)
  mode: str = Field("plain")
  parallel: int = Field(1)
  axes: list[str] = Field(default_factory=list)
  p_a: int = Field(1)
  p_b: int = Field(1)
  slices: int = Field(1)
  unknown_axes: int = Field(0)
  sizes: list[int] = Field(default_factory=list)
  pick: int = Field(0)
  floor: int = Field(0)
{VALIDATORS}'''
BASE = "ratios: []\nmode: plain\nparallel: 1\naxes: [a, b]\np_a: 1\np_b: 1\nslices: 1\nunknown_axes: 0\nsizes: []\npick: 0\nfloor: 0\n"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory):
    return extract(write_package(tmp_path_factory.mktemp("lists"), TYPES, BASE))


def test_every_check_is_a_rule(imported):
    assert not imported.unexpressible
    assert sorted(rule["source"].split(".")[-1] for rule in imported.rules) == sorted(CHECKS)


def test_the_rules_read_as_the_source_does(imported):
    by_check = {rule["source"].split(".")[-1]: rule for rule in imported.rules}
    assert by_check["check_each_ratio"]["require"] == "not any(ratio != 0 and ratio < 4 for ratio in ratios)"
    assert by_check["check_compressed"]["when"] == "mode == 'compressed' and any(r > 0 for r in ratios)"
    assert by_check["check_unknown_axes"]["require"] == "sum(1 for axis in axes if axis not in ('a', 'b')) <= unknown_axes"
    assert "any(pick == 2 * s + 1 for s in sizes if 2 * s > 0)" in by_check["check_twice"]["require"]


def _python_raises(check: str, values: dict) -> bool:
    scope: dict = {"model_validator": lambda **_: (lambda f: f)}
    exec(f"from math import prod\nclass C:\n  def {check}(self):{CHECKS[check]}", scope)  # noqa: S102 - the test's own validator text
    try:
        getattr(scope["C"], check)(SimpleNamespace(**values))
    except ValueError:
        return True
    return False


AXES = st.lists(st.sampled_from(["a", "b", "model", "pad", "other"]), max_size=4)
SMALL = st.lists(st.integers(-2, 9), max_size=4)


@given(ratios=SMALL, mode=st.sampled_from(["plain", "compressed"]), parallel=st.integers(1, 2), axes=AXES,
       p_a=st.sampled_from([-1, 0, 1, 2, 3]), p_b=st.sampled_from([-1, 0, 1, 2, 3]), slices=st.integers(1, 12),
       unknown_axes=st.integers(0, 2), sizes=SMALL, pick=st.integers(-3, 19), floor=st.integers(-1, 4))
@example(ratios=[2], mode="plain", parallel=1, axes=[], p_a=1, p_b=1, slices=1, unknown_axes=0, sizes=[], pick=0, floor=0)
@example(ratios=[], mode="plain", parallel=1, axes=["model", "model"], p_a=1, p_b=2, slices=2, unknown_axes=0, sizes=[], pick=0, floor=0)
@example(ratios=[0, 4], mode="compressed", parallel=2, axes=["other", "pad"], p_a=1, p_b=1, slices=1, unknown_axes=1,
         sizes=[3, 4], pick=9, floor=3)
def test_each_rule_breaks_exactly_where_python_raises(imported, **values):
    derived = {name: parse(text) for name, text in imported.derived.items()}

    def lookup(name: str):
        return evaluate(derived[name], lookup) if name in derived else values[name]

    for rule in imported.rules:
        check = rule["source"].split(".")[-1]
        broken = (evaluate(parse(rule["when"]), lookup) if "when" in rule else True) and not evaluate(parse(rule["require"]), lookup)
        assert broken == _python_raises(check, values), (check, values, rule)


def test_a_key_named_as_the_element_gives_the_element_another_name(tmp_path: Path):
    types = TYPES.replace("  floor: int = Field(0)\n", "  floor: int = Field(0)\n  ratio: int = Field(0)\n")
    rule = next(r for r in extract(write_package(tmp_path, types, BASE + "ratio: 0\n")).rules if r["source"].endswith("check_each_ratio"))
    assert rule["require"] == "not any(ratio_item != 0 and ratio_item < 4 for ratio_item in ratios)"


# ---- a list a custom mesh file may set, else the user's: each file's value unrolled, the user's read element by element

MESH_FILES = {"wide": ["a", "bad"], "narrow": ["a"]}
MESH_CHECK = '''
    if self.custom_mesh_and_rule != "":
      loaded = _load_mesh_config_from_yaml(self.custom_mesh_and_rule)
      if "mesh_axes" in loaded:
        self.mesh_axes = loaded["mesh_axes"]
    for axis in self.mesh_axes:
      if axis == "bad":
        raise ValueError("no mesh axis may be called bad")
'''
MESH_TYPES = f'''
import os
from enum import Enum
import yaml
from pydantic import BaseModel, Field
from pydantic.functional_validators import model_validator


class CustomRule(str, Enum):
  DEFAULT = ""
  WIDE = "wide"
  NARROW = "narrow"


def _load_mesh_config_from_yaml(rule_value: str) -> dict:
  path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_mesh_and_rule", f"{{rule_value}}.yml")
  with open(path, "r", encoding="utf-8") as f:
    return yaml.safe_load(f)


class MaxTextConfig(BaseModel):
  custom_mesh_and_rule: CustomRule = Field(CustomRule.DEFAULT)
  mesh_axes: list[str] = Field(default_factory=list)

  @model_validator(mode="after")
  def check_axes(self):{MESH_CHECK}    return self
'''


@pytest.fixture(scope="module")
def mesh_rule(tmp_path_factory: pytest.TempPathFactory) -> dict:
    files = {f"configs/custom_mesh_and_rule/{name}.yml": f"mesh_axes: [{', '.join(axes)}]\n" for name, axes in MESH_FILES.items()}
    found = extract(write_package(tmp_path_factory.mktemp("mesh"), MESH_TYPES, "custom_mesh_and_rule: ''\nmesh_axes: [a]\n", files))
    assert not found.unexpressible and len(found.rules) == 1
    return found.rules[0]


@given(rule=st.sampled_from(["", *MESH_FILES]), axes=st.lists(st.sampled_from(["a", "b", "bad"]), max_size=3))
def test_a_loop_over_a_list_a_mesh_file_may_set_judges_as_python_runs_it(mesh_rule, rule, axes):
    scope: dict = {"_load_mesh_config_from_yaml": lambda name: {"mesh_axes": MESH_FILES[name]}}
    exec(f"def check_axes(self):{MESH_CHECK}", scope)  # noqa: S102 - the test's own validator text
    try:
        scope["check_axes"](SimpleNamespace(custom_mesh_and_rule=rule, mesh_axes=list(axes)))
        raises = False
    except ValueError:
        raises = True
    values = {"custom_mesh_and_rule": rule, "mesh_axes": list(axes)}
    broken = (evaluate(parse(mesh_rule["when"]), values.__getitem__) if "when" in mesh_rule else True) \
        and not evaluate(parse(mesh_rule["require"]), values.__getitem__)
    assert broken == raises, (values, mesh_rule)

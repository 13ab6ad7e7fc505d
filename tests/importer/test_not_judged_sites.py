"""The checks the import cannot state as rules: each lists the keys it reads and what the rule
language can state of the way to it, so that a config setting one is told it is not judged; and
the inline custom mesh read of 0.2.2/0.2.3, modelled so that the checks after it are rules.
On small packages of their own (no wheel needed)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from maxtext_packages import write_package

from flaglint.importer.key_reads import KeyReads
from flaglint.importer.validators import extract
from flaglint.rules.expr import evaluate, parse

TYPES = '''
import os
from enum import Enum
import yaml
from pydantic import BaseModel, Field
from pydantic.functional_validators import model_validator


class CustomRule(str, Enum):
  DEFAULT = ""
  WIDE = "wide"


class MaxTextConfig(BaseModel):
  dump: bool = Field(False)
  dump_flags: str = Field("")
  ratios: list[int] = Field(default_factory=list)
  ici_a_parallelism: int = Field(1)
  ici_b_parallelism: int = Field(1)
  axis: str = Field("a")
  hardware: str = Field("tpu")
  custom_mesh_and_rule: CustomRule = Field(CustomRule.DEFAULT)
  mesh_axes: list[str] = Field(default_factory=list)
  context_sharding: str = Field("a")

  @model_validator(mode="after")
  def set_derived(self):
    if self.custom_mesh_and_rule is not CustomRule.DEFAULT:
      path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_mesh_and_rule", f"{self.custom_mesh_and_rule.value}.yml")
      if os.path.exists(path):
        with open(path, "r") as f:
          loaded = yaml.safe_load(f)
          if "context_sharding" in loaded:
            self.context_sharding = loaded["context_sharding"]
      else:
        raise NotImplementedError(f"no file at {path}")
    if self.dump:
      if os.environ.get("XLA_FLAGS") and self.dump_flags:
        raise ValueError("XLA_FLAGS and dump_flags both set")
      if self.hardware != "gpu" or not os.path.exists("/dev/nvidia0"):
        raise ValueError("host without a GPU")
    for value in self.ratios:
      if value != 0 and value < 4:
        raise ValueError(f"ratio {value} below 4")
    self.size = getattr(self, f"ici_{self.axis}_parallelism")
    if self.size > 1 and os.path.exists("/dev/accel0"):
      raise ValueError("size above 1 on this host")
    if self.context_sharding not in ("a", "b"):
      raise ValueError(f"context_sharding {self.context_sharding} is not an axis")
    return self
'''


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory):
    return extract(write_package(tmp_path_factory.mktemp("not-judged"), TYPES, "dump: false\nratios: []\naxis: a\nhardware: tpu\n",
                                 {"configs/custom_mesh_and_rule/wide.yml": "context_sharding: c\n"}))


def _entry(found, start: str) -> dict:
    return next(u for u in found.unexpressible if u["message"].startswith(start))


def test_a_check_on_the_environment_lists_its_keys_and_the_way_to_it(found):
    entry = _entry(found, "XLA_FLAGS and dump_flags")
    assert entry["reason"] == "environment variable: os.environ.get"
    # `a and b` where only a cannot be stated: the way to the raise still takes b
    assert (entry["keys"], entry["when"]) == (["dump", "dump_flags"], "dump and dump_flags != ''")


def test_where_some_ways_to_a_raise_can_be_stated_it_is_a_rule_by_those_and_not_judged_by_the_others(found):
    rule = next(r for r in found.rules if r["message"].startswith("host"))
    assert (rule["when"], rule["require"]) == ("dump", "hardware == 'gpu'")
    entry = _entry(found, "host")
    assert (entry["id"], entry["reason"], entry["when"]) == (rule["id"], "file system: os.path.exists", "dump and hardware == 'gpu'")


def test_a_loop_over_a_list_value_is_a_rule_over_its_elements(found):
    rule = next(r for r in found.rules if r["message"].startswith("ratio {value} below 4"))
    assert rule["require"] == "not any(value != 0 and value < 4 for value in ratios)" and "when" not in rule
    assert not any(u["message"].startswith("ratio") for u in found.unexpressible)


def test_a_value_the_pass_computes_is_read_through_to_its_keys(found):
    # size = getattr(self, f"ici_{axis}_parallelism"): every key the name can make, and axis
    entry = _entry(found, "size above 1")
    assert entry["keys"] == ["axis", "ici_a_parallelism", "ici_b_parallelism"]


def test_the_inline_custom_mesh_read_is_modelled(found):
    rule = next(r for r in found.rules if r["message"].startswith("context_sharding"))
    assert "custom_mesh_and_rule" in rule["require"] + found.derived.get("effective_context_sharding", "")
    # every choice names a file: the else branch never raises
    assert _entry(found, "no file at")["reason"] == "unreachable: its condition never holds"
    assert "keys" not in _entry(found, "no file at")


# ---- the keys around a raise, on generated nests of ifs and loops -------------------------------

KEYS = [f"k{n}" for n in range(6)]


@st.composite
def nests(draw):
    """A validator whose raise sits under a nest of ifs and loops over keys (some read through a
    local), and the keys those tests read."""
    depth = draw(st.integers(1, 4))
    lines, read, indent = ["def check(self):"], set(), "  "
    for level in range(depth):
        key = draw(st.sampled_from(KEYS))
        read.add(key)
        kind = draw(st.sampled_from(["if", "local", "for"]))
        if kind == "if":
            lines.append(f"{indent}if self.{key} > {level}:")
        elif kind == "local":
            lines += [f"{indent}v{level} = self.{key} * 2", f"{indent}if v{level} != 3:"]
        else:
            lines.append(f"{indent}for item{level} in self.{key}:")
        indent += "  "
    lines.append(f"{indent}raise ValueError('x')")
    unrelated = draw(st.sampled_from(KEYS))
    lines.append(f"  self.{unrelated} = 1")  # assigned after the raise, read by nothing on its way
    return "\n".join(lines) + "\n", read


@given(nests())
def test_the_keys_of_a_raise_are_those_its_enclosing_tests_read(nest):
    source, read = nest
    tree = ast.parse(source)
    line = next(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Raise))
    assert KeyReads({"types.py": tree}, KEYS).at("types.py", line) == read
    assert KeyReads({"types.py": tree}, KEYS).at("types.py", line + 100) == frozenset()


def test_a_field_the_validators_assign_is_read_through_its_values(tmp_path: Path):
    tree = ast.parse("def a(self):\n  self.total = self.k1 + self.k2\n\ndef b(self):\n  if self.total > 4:\n    raise ValueError('t')\n")
    assert KeyReads({"t.py": tree}, ["k1", "k2", "total"]).at("t.py", 6) == {"total", "k1", "k2"}


# ---- a list read element by element, against Python running the same validator -----------------

ELEMENTWISE_CHECK = '''
  @model_validator(mode="after")
  def check_slices(self):
    table = {"a": self.p_a, "b": self.p_b, "c": self.p_c}
    sizes = [table[axis] for axis in self.axes]
    product = prod(v for v in sizes if v != -1)
    if product <= 0 or self.slices % product != 0:
      raise ValueError("slices must be a multiple of the product of the sizes")
    return self
'''
ELEMENTWISE_TYPES = f'''
from math import prod
from pydantic import BaseModel, Field
from pydantic.functional_validators import model_validator


class MaxTextConfig(BaseModel):
  axes: list[str] = Field(default_factory=list)
  p_a: int = Field(1)
  p_b: int = Field(1)
  p_c: int = Field(1)
  slices: int = Field(1)
{ELEMENTWISE_CHECK}'''


@pytest.fixture(scope="module")
def elementwise(tmp_path_factory: pytest.TempPathFactory):
    found = extract(write_package(tmp_path_factory.mktemp("elementwise"), ELEMENTWISE_TYPES, "axes: [a, b]\np_a: 1\np_b: 1\np_c: 1\nslices: 1\n"))
    assert not found.unexpressible and len(found.rules) == 1
    return found


@given(axes=st.permutations(["a", "b", "c"]).flatmap(lambda order: st.integers(0, 3).map(lambda n: order[:n])),
       sizes=st.lists(st.sampled_from([-1, 0, 1, 2, 3]), min_size=3, max_size=3), slices=st.integers(1, 12))
def test_a_list_read_element_by_element_judges_as_python_runs_it(elementwise, axes, sizes, slices):
    from types import SimpleNamespace

    values = {"axes": list(axes), "p_a": sizes[0], "p_b": sizes[1], "p_c": sizes[2], "slices": slices}
    scope: dict = {"model_validator": lambda **_: (lambda f: f)}
    exec("from math import prod\nclass C:" + ELEMENTWISE_CHECK, scope)  # noqa: S102 - the test's own validator text
    try:
        scope["C"].check_slices(SimpleNamespace(**values))
        raises = False
    except ValueError:
        raises = True
    (rule,) = elementwise.rules
    derived = {name: parse(text) for name, text in elementwise.derived.items()}

    def lookup(name: str):
        return evaluate(derived[name], lookup) if name in derived else values[name]

    broken = (evaluate(parse(rule["when"]), lookup) if "when" in rule else True) and not evaluate(parse(rule["require"]), lookup)
    assert broken == raises, (values, rule)

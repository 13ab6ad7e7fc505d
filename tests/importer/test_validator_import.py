"""MaxText's own validators imported as rules: the committed rule files are what the importer
makes of the 0.2.5 wheel, and the imported rules reject what MaxText rejects at the sites the
spot checks name (evaluated on concrete configs over base.yml's defaults)."""

from __future__ import annotations

import ast
import operator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from maxtext_packages import write_package

from flaglint.importer.importer import import_schema
from flaglint.importer.validators import _implies, extract, write_rules
from flaglint.rules.expr import Unknown, evaluate, parse
from tests.maxtext_env import maxtext_wheel, unavailable

RULES_DIR = Path(__file__).resolve().parents[2] / "rules" / "maxtext" / "0.2.5"


@pytest.fixture(scope="module")
def wheel() -> Path:
    found = maxtext_wheel()
    if found is None:
        pytest.skip(unavailable("the maxtext 0.2.5 wheel"))
    return found


@pytest.fixture(scope="module")
def committed() -> tuple[list[dict], dict[str, str], list[dict]]:
    rules = yaml.safe_load((RULES_DIR / "rules.yml").read_text())["rules"]
    derived = yaml.safe_load((RULES_DIR / "derived.yml").read_text())["derived"]
    unexpressible = yaml.safe_load((RULES_DIR / "unexpressible.yml").read_text())["unexpressible"]
    return rules, derived, unexpressible


@pytest.fixture(scope="module")
def defaults(wheel: Path) -> dict[str, Any]:
    return import_schema(wheel).base_defaults


@pytest.mark.slow
def test_committed_files_are_what_the_importer_makes_of_the_wheel(wheel: Path, tmp_path: Path) -> None:
    counts = write_rules(wheel, tmp_path)
    for name in ("rules.yml", "derived.yml", "unexpressible.yml"):
        assert (tmp_path / name).read_text() == (RULES_DIR / name).read_text(), f"{name} is stale: rerun the import"
    assert counts["rules"] >= 280
    listed = yaml.safe_load((tmp_path / "unexpressible.yml").read_text())["unexpressible"]
    ids = {r["id"] for r in yaml.safe_load((tmp_path / "rules.yml").read_text())["rules"]} | {u["id"] for u in listed}
    assert counts["sites"] == len(ids)


def test_at_least_280_checkable_rules_all_parsable(committed) -> None:
    rules, derived, unexpressible = committed
    assert len(rules) >= 280
    for listing in (rules, unexpressible):  # a site may be in both: a rule by the ways to it that can be stated
        ids = [entry["id"] for entry in listing]
        assert len(ids) == len(set(ids))
    for rule in rules:
        assert rule["pins"] == ["maxtext-0.2.5"] and rule["severity"] == "error"
        assert rule["source"].startswith(("maxtext/configs/", "maxtext/utils/accelerator_to_spec_map.py:"))
        for field in ("when", "require"):
            if field in rule:
                parse(rule[field])
    for text in derived.values():
        parse(text)
    assert all(u["reason"] and u["site"] for u in unexpressible)


class Config:
    """Concrete values: base.yml's defaults, the given overrides, derived values on demand."""

    def __init__(self, defaults: dict[str, Any], derived: dict[str, str], **overrides: Any):
        # pyconfig reads the string "None" (any case) as None before validation
        self.values = {k: None if isinstance(v, str) and v.lower() == "none" else v for k, v in {**defaults, **overrides}.items()}
        self.derived = {name: parse(text) for name, text in derived.items()}
        self.values.setdefault("num_devices", 4)

    def lookup(self, name: str) -> Any:
        if name in self.values:
            return self.values[name]
        if name in self.derived:
            return evaluate(self.derived[name], self.lookup)
        if "." in name:
            head, rest = name.split(".", 1)
            return (self.values.get(head) or {}).get(rest)
        raise Unknown(name)

    def violated(self, rules: list[dict]) -> list[dict]:
        out = []
        for rule in rules:
            try:
                applies = evaluate(parse(rule["when"]), self.lookup) if "when" in rule else True
                if applies and not evaluate(parse(rule["require"]), self.lookup):
                    out.append(rule)
            except Unknown:
                continue
        return out


def _at(rules: list[dict], line: int) -> list[dict]:
    return [r for r in rules if r["source"].split(":")[1].split()[0] == str(line)]


def _violated_lines(committed, defaults, **overrides: Any) -> set[int]:
    rules, derived, _ = committed
    return {int(r["source"].split(":")[1].split()[0]) for r in Config(defaults, derived, **overrides).violated(rules)}


def test_base_config_breaks_no_rule(committed, defaults) -> None:
    assert _violated_lines(committed, defaults) == set()


def test_token_chunks_need_ring_of_experts(committed, defaults) -> None:
    rule = next(r for r in committed[0] if "validate_moe_chunks" in r["source"])
    assert (rule["when"], rule["require"]) == ("num_moe_token_chunks > 1", "use_ring_of_experts")
    bad = _violated_lines(committed, defaults, num_moe_token_chunks=2)
    assert int(rule["source"].split(":")[1].split()[0]) in bad


def test_ep_rank_one_forbids_ring_of_experts_and_ragged_buffers(committed, defaults) -> None:
    ep_line = int(next(r for r in committed[0] if r["message"].startswith("When EP rank is 1"))["source"].split(":")[1].split()[0])
    assert ep_line in _violated_lines(committed, defaults, use_ring_of_experts=True)
    assert ep_line in _violated_lines(committed, defaults, use_ragged_sort=True)
    assert ep_line in _violated_lines(committed, defaults, ragged_buffer_factor=2.0)
    assert ep_line not in _violated_lines(committed, defaults, te_moe_block=True, ragged_buffer_factor=2.0)
    assert ep_line not in _violated_lines(committed, defaults, use_ring_of_experts=True, ici_expert_parallelism=2)
    assert ep_line not in _violated_lines(committed, defaults, use_ring_of_experts=True, override_logical_axis_rules=True)
    # cp-as-ep shards experts over context too: EP rank counts the context axis
    assert ep_line not in _violated_lines(
        committed, defaults, use_ring_of_experts=True, custom_mesh_and_rule="cp-as-ep", ici_context_parallelism=2
    )


def test_rope_pairwise_needs_interleave(committed, defaults) -> None:
    rule = next(r for r in committed[0] if "validate_rope_pairwise" in r["source"])
    line = int(rule["source"].split(":")[1].split()[0])
    assert line in _violated_lines(committed, defaults, rope_pairwise=True, rope_interleave=False)
    assert line not in _violated_lines(committed, defaults, rope_pairwise=True, rope_interleave=True)


def test_at_most_one_moe_fsdp_sharding(committed, defaults) -> None:
    rule = next(r for r in committed[0] if r["message"].startswith("Only one of shard_exp_on_fsdp"))
    line = int(rule["source"].split(":")[1].split()[0])
    assert line in _violated_lines(committed, defaults, shard_exp_on_fsdp=True, use_2d_fsdp_sharding=True)
    assert line not in _violated_lines(committed, defaults, shard_exp_on_fsdp=True)


def test_zero_vocab_tiles_is_a_crash_rule(committed, defaults) -> None:
    crashes = [r for r in committed[0] if "ZeroDivisionError" in r["message"] and "num_vocab_tiling" in r["require"]]
    assert crashes
    lines = _violated_lines(committed, defaults, num_vocab_tiling=0)
    assert any(int(r["source"].split(":")[1].split()[0]) in lines for r in crashes)


def test_query_heads_are_scaled_by_global_parameter_scale(committed, defaults) -> None:
    """Ulysses needs num_query_heads divisible by the CP size; MaxText scales the heads first."""
    base = dict(context_parallel_strategy="ulysses", ici_context_parallelism=4, attention="flash",
                use_tokamax_splash=True, base_num_query_heads=2, base_num_kv_heads=2, hardware="tpu")
    heads_line = next(r for r in committed[0] if r["message"].startswith("TPU Ulysses attention requires num_query_heads"))
    line = int(heads_line["source"].split(":")[1].split()[0])
    assert line in _violated_lines(committed, defaults, **base)
    assert line not in _violated_lines(committed, defaults, **base, global_parameter_scale=2)


def test_unexpressible_sites_say_why(committed) -> None:
    reasons = {u["reason"].split(":")[0].split(" (")[0] for u in committed[2]}
    assert "jinja parse" in reasons
    assert any("environment variable" in u["reason"] for u in committed[2])



# ---- the walker on a small package of its own (no wheel needed) --------------------------------

SYNTHETIC_TYPES = '''
from enum import Enum
from pydantic import BaseModel, Field
from pydantic.functional_validators import model_validator


class Mode(str, Enum):
  A = "a"
  B = "b"


class Part(BaseModel):
  flag: bool = Field(False)
  n: int = Field(1)

  @model_validator(mode="after")
  def check_part(self):
    if self.n > 1 and not self.flag:
      raise ValueError("n > 1 requires flag=True.")
    return self


class MaxTextConfig(Part):
  mode: Mode = Field(Mode.A)
  k: int = Field(0)
  name: str = Field("")
  tiles: int = Field(1)

  def helper(self):
    if self.mode != Mode.B:
      return
    size = self.k * 2
    if size % 4 != 0:
      raise ValueError(f"k*2 ({size}) must be divisible by 4 in mode {self.mode.value}")

  @model_validator(mode="after")
  def set_derived(self):
    if self.name:
      self.helper()
    else:
      if self.k < 0:
        raise ValueError("k must be >= 0 without a name")
    self.k = self.k + 1
    assert self.n != 3 or self.k > 5, "n must not be 3"
    if self.k > 0 and self.k % self.tiles != 0:
      raise ValueError("tiles must divide k")
    for flag_name, wanted in {"flag": False, "n": 1}.items():
      if self.mode == Mode.A and getattr(self, flag_name) != wanted:
        raise ValueError(f"in mode a, {flag_name} must be {wanted}")
    return self
'''


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory):
    return extract(write_package(tmp_path_factory.mktemp("synthetic"), SYNTHETIC_TYPES, 'flag: false\nn: 1\nmode: a\nk: 0\nname: ""\ntiles: 1\n'))


def _by_message(found, start: str) -> dict:
    return next(r for r in found.rules if r["message"].startswith(start))


def test_condition_in_a_mixin_validator(synthetic) -> None:
    rule = _by_message(synthetic, "n > 1 requires")
    assert (rule["when"], rule["require"], rule["pins"]) == ("n > 1", "flag", ["maxtext-9.9.9"])
    assert rule["source"] == "maxtext/configs/types.py:19 Part.check_part"


def test_helper_inherits_call_site_guard_and_its_early_return(synthetic) -> None:
    rule = _by_message(synthetic, "k*2")
    assert (rule["when"], rule["require"]) == ("name != '' and mode == 'b'", "size % 4 == 0")
    assert synthetic.derived["size"] == "k * 2"
    assert rule["message"] == "k*2 ({size}) must be divisible by 4 in mode {mode}"


def test_else_branch_is_negated(synthetic) -> None:
    rule = _by_message(synthetic, "k must be >= 0")
    assert (rule["when"], rule["require"]) == ("name == ''", "k >= 0")


def test_an_overwritten_key_is_read_through_its_new_value(synthetic) -> None:
    rule = _by_message(synthetic, "n must not be 3")
    assert rule["require"] == "n != 3 or effective_k > 5"
    assert synthetic.derived["effective_k"] == "k + 1"


def test_division_by_a_key_is_a_crash_rule_under_its_short_circuit(synthetic) -> None:
    rule = next(r for r in synthetic.rules if r["message"].startswith("ZeroDivisionError"))
    assert (rule["when"], rule["require"]) == ("effective_k > 0", "tiles != 0")


def test_loop_over_a_dict_literal_is_unrolled(synthetic) -> None:
    rule = _by_message(synthetic, "in mode a")
    assert rule["when"] == "mode == 'a'"
    assert rule["require"] == "not flag and n == 1"
    assert rule["message"] == "in mode a, flag must be False; n must be 1"
    assert synthetic.checks == 6 and not synthetic.unexpressible


# ---- the implication test the simplifier relies on ---------------------------------------------

_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@given(
    op_a=st.sampled_from(sorted(_OPS)), a=st.integers(-3, 3), op_b=st.sampled_from(sorted(_OPS)), b=st.integers(-3, 3),
    x=st.one_of(st.integers(-6, 6), st.floats(-6, 6, allow_nan=False)),
)
def test_implies_is_sound(op_a: str, a: int, op_b: str, b: int, x: float) -> None:
    left, right = ast.parse(f"v {op_a} {a}", mode="eval").body, ast.parse(f"v {op_b} {b}", mode="eval").body
    if _implies(left, right) and _OPS[op_a](x, a):
        assert _OPS[op_b](x, b)


@given(values=st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=3, unique=True),
       other=st.sampled_from(["a", "b", "c", "d", "zz"]), negate=st.booleans(), x=st.sampled_from(["a", "b", "c", "d", "q"]))
def test_implies_is_sound_for_string_membership(values: list, other: str, negate: bool, x: str) -> None:
    left = ast.parse(f"v in {tuple(values)!r}", mode="eval").body
    right = ast.parse(f"v {'!=' if negate else '=='} {other!r}", mode="eval").body
    if _implies(left, right) and x in values:
        assert (x != other) if negate else (x == other)


def test_a_raise_its_try_catches_is_no_rule(tmp_path: Path) -> None:
    root = tmp_path / "maxtext"
    (root / "configs").mkdir(parents=True)
    (root / "configs" / "base.yml").write_text("k: 0\n")
    (root / "configs" / "types.py").write_text(
        "from pydantic import BaseModel, Field\n"
        "from pydantic.functional_validators import model_validator\n\n\n"
        "class MaxTextConfig(BaseModel):\n"
        "  k: int = Field(0)\n\n"
        "  @model_validator(mode='after')\n"
        "  def check(self):\n"
        "    try:\n"
        "      if self.k > 1:\n"
        "        raise RuntimeError('caught')\n"
        "      if self.k > 2:\n"
        "        raise ValueError('not caught')\n"
        "    except (RuntimeError, IndexError):\n"
        "      pass\n"
        "    return self\n"
    )
    found = extract(root.parent)
    assert [(r["message"], r["require"]) for r in found.rules] == [("not caught", "k <= 2")]


# ---- the compile topology table (utils/accelerator_to_spec_map.py), read as text ---------------

TOPOLOGY_TYPES = '''
from pydantic import BaseModel, Field
from pydantic.functional_validators import model_validator
from maxtext.utils import accelerator_to_spec_map


class MaxTextConfig(BaseModel):
  compile_topology: str = Field("")
  internal_compile: bool = Field(False)

  @model_validator(mode="after")
  def set_derived(self):
    def devices():
      if self.internal_compile:
        return 1
      if self.compile_topology:
        return accelerator_to_spec_map.get_system_characteristics(self.compile_topology).devices
      return 1
    self.n = devices()
    return self
'''
SPEC_MAP = '''
TABLE = {
    "v9-8": Spec(8),
    "v9-16": Spec(16),
}


def get_system_characteristics(user_facing_name):
  spec = TABLE.get(user_facing_name)
  if spec is None:
    raise ValueError(f"Invalid compile topology: {user_facing_name}. Valid topology names: {TABLE.keys()}")
  return spec
'''


@pytest.fixture(scope="module")
def topology_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_package(tmp_path_factory.mktemp("topology"), TOPOLOGY_TYPES, 'compile_topology: ""\ninternal_compile: false\n',
                         {"utils/accelerator_to_spec_map.py": SPEC_MAP})


def test_compile_topology_takes_the_table_names_as_choices(topology_package: Path) -> None:
    assert import_schema(topology_package).keys["compile_topology"].choices == ["v9-8", "v9-16"]


def test_a_topology_outside_the_table_is_a_rule_under_the_lookup_guard(topology_package: Path) -> None:
    rule = _by_message(extract(topology_package), "Invalid compile topology")
    assert rule["source"].startswith("maxtext/utils/accelerator_to_spec_map.py:")
    assert "{compile_topology}" in rule["message"] and "the 2 names of TABLE" in rule["message"]
    when, require = parse(rule["when"]), parse(rule["require"])
    for values, broken in [
        ({"compile_topology": "", "internal_compile": False}, False),  # the default: no lookup
        ({"compile_topology": "v9-16", "internal_compile": False}, False),
        ({"compile_topology": "v9-17", "internal_compile": False}, True),
        ({"compile_topology": "v9-17", "internal_compile": True}, False),  # internal_compile skips it
    ]:
        assert (evaluate(when, values.get) and not evaluate(require, values.get)) == broken, values


def test_without_the_table_compile_topology_stays_a_free_string(tmp_path: Path) -> None:
    write_package(tmp_path, TOPOLOGY_TYPES, 'compile_topology: ""\ninternal_compile: false\n')
    assert import_schema(tmp_path).keys["compile_topology"].choices is None
    assert not [r for r in extract(tmp_path).rules if "topology" in r["message"]]

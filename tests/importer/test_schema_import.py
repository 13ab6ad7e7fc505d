"""`import_schema`: the committed 0.2.5 schema, the layouts MaxText comes in, bad input, and
annotations read from the ast checked against pydantic's own reading of the same module."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from maxtext_env import REPO, maxtext_wheel, unavailable
from oracle.field_kinds import describe_fields

from flaglint.core.findings import InputError
from flaglint.importer.fieldtypes import BOUNDS
from flaglint.importer.importer import import_schema, schema_summary, write_schema
from flaglint.schema.model import MaxTextSchemaFile

COMMITTED = REPO / "schemas" / "maxtext-0.2.5.json"
COMPARED = ("kind", "nullable", "choices", "enum", "int_enum", "item", "members", *BOUNDS, "default")


@pytest.fixture(scope="module")
def committed() -> MaxTextSchemaFile:
    return MaxTextSchemaFile.model_validate_json(COMMITTED.read_text())


@pytest.fixture(scope="module")
def wheel() -> Path:
    found = maxtext_wheel()
    if found is None:
        pytest.skip(unavailable("wheel"))
    return found


# ---- the committed schema ----


def test_committed_schema_is_what_the_wheel_regenerates(wheel, tmp_path):
    out = tmp_path / "maxtext-0.2.5.json"
    write_schema(import_schema(wheel), out)
    assert out.read_text() == COMMITTED.read_text()


def test_all_865_fields_and_the_nested_dpo_and_lora_keys(committed):
    top = [name for name in committed.keys if "." not in name]
    assert len(top) == 865
    assert sorted(n for n in committed.keys if n.startswith("dpo.")) == [
        "dpo.algo", "dpo.dpo_beta", "dpo.dpo_label_smoothing", "dpo.max_prompt_length", "dpo.orpo_lambda",
    ]  # fmt: skip
    assert len([n for n in committed.keys if n.startswith("lora.")]) == 7
    assert committed.keys["lora.lora_rank"].group == "lora"
    assert committed.keys["dpo.dpo_label_smoothing"].le == 1.0
    assert committed.version == "0.2.5"


def test_keys_users_rely_on(committed):
    chunks = committed.keys["num_moe_token_chunks"]
    assert (chunks.kind, chunks.gt, chunks.default, chunks.nullable) == ("int", 0, 1, False)
    assert chunks.group == "MoEGeneral" and chunks.line

    rule = committed.keys["custom_mesh_and_rule"]
    assert rule.kind == "enum" and rule.enum == "CustomRule" and "cp-as-ep" in rule.choices
    assert "cp-as-ep-dense-no-cp" not in rule.choices  # only at the fork's pins

    model = committed.keys["model_name"]
    assert model.kind == "literal" and len(model.choices) == 87 and model.default == "default"

    context = committed.keys["context"]
    assert (context.kind, context.enum, context.choices, context.default) == (
        "enum", "RematLocation", ["remat", "device", "offload"], "remat",
    )  # fmt: skip

    power = committed.keys["xprof_tpu_power_trace_level"]
    assert power.int_enum and power.choices == [0, 1, 2]
    assert committed.keys["dump_hlo_local_dir"].default == "<tempdir>/xla_dump/"


def test_base_and_model_yml_values_are_typed_as_omegaconf_types_them(committed):
    assert len(committed.base_defaults) == 786
    assert set(committed.base_defaults) <= set(committed.keys)
    assert len(committed.models) == 82
    # written `1e-6` in the yml: a float for OmegaConf, which plain YAML 1.1 would leave a string
    assert committed.models["gemma3-4b"].keys["normalization_layer_epsilon"] == 1e-6


def test_summary_counts_kinds(committed):
    summary = schema_summary(committed)
    assert "865 keys (+12 nested)" in summary
    assert "int" in summary and "307" in summary


# ---- the layouts MaxText comes in ----


@pytest.mark.slow
def test_wheel_unpacked_src_tree_and_package_dir_give_one_schema(wheel, tmp_path):
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    src_tree = tmp_path / "repo"
    shutil.copytree(unpacked / "maxtext", src_tree / "src" / "maxtext")

    def without_source(path: Path) -> dict:
        return import_schema(path).model_dump(exclude={"source"})

    expected = without_source(wheel)
    for layout in (unpacked, unpacked / "maxtext", src_tree, src_tree / "src"):
        assert without_source(layout) == expected, layout


# ---- bad input: one clear InputError naming the place ----


def _package(root: Path, types_py: str) -> Path:
    (root / "maxtext" / "configs").mkdir(parents=True)
    (root / "maxtext" / "configs" / "types.py").write_text(textwrap.dedent(types_py))
    (root / "maxtext" / "configs" / "base.yml").write_text("")
    return root


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p / "missing", "no such file"),
        (lambda p: p, "not a MaxText tree"),
        (lambda p: (p / "x.whl").write_bytes(b"not a zip") and p / "x.whl", "not a wheel"),
        (lambda p: _package(p, "class MaxTextConfig(:\n"), "cannot parse"),
        (lambda p: _package(p, "class Other: pass\n"), "defines no class MaxTextConfig"),
        (lambda p: (p / "MaxText").mkdir() or (p / "MaxText" / "pyconfig.py").write_text("") or p,
         "a MaxText/ package .* without MaxText/configs/base.yml"),
    ],
)
def test_bad_input_is_one_clear_error(tmp_path, make, message):
    with pytest.raises(InputError, match=message):
        import_schema(make(tmp_path))


# ---- constructs the importer does not read: the key stays defined with what is known ----


def test_a_default_computed_at_run_time_is_recorded_as_its_expression(tmp_path):
    root = _package(tmp_path, """\
        import os
        class MaxTextConfig(BaseModel):
          jax_cache_dir: str = Field(os.path.join(os.path.expanduser("~"), "jax_cache"), ge=helper())
          n: int = Field(1)
        """)
    key = import_schema(root).keys["jax_cache_dir"]
    assert (key.kind, key.default) == ("str", None)
    assert key.default_at_runtime == "os.path.join(os.path.expanduser('~'), 'jax_cache')"
    assert import_schema(root).keys["n"].default == 1


def test_an_annotation_or_enum_it_cannot_read_leaves_the_key_defined_as_any(tmp_path):
    root = _package(tmp_path, """\
        class Mode(str, Enum):
          A = "a"
          B = make_name()
        class MaxTextConfig(BaseModel):
          mode: Mode = Field(Mode.A)
          ids: set[int] = Field(set())
          size: Literal[SIZES] = 3
        """)
    keys = import_schema(root).keys
    assert {name: (k.kind, k.nullable, k.unread_type) for name, k in keys.items()} == {
        "mode": ("any", True, "make_name()"),
        "ids": ("any", True, "set[int]"),
        "size": ("any", True, "Literal[SIZES]"),
    }
    assert keys["mode"].default == "a" and keys["size"].default == 3


def test_python_312_f_strings_parse_on_any_python(tmp_path):
    root = _package(tmp_path, """\
        class MaxTextConfig(BaseModel):
          x: int = 1
          @model_validator(mode="after")
          def check(self):
            if self.x > 4:
              raise ValueError(f"x={self.x} not in {", ".join(map(str, [1, 2]))} {'a'}")
            return self
        """)
    from flaglint.importer.validators import extract_rules

    rules, _, _ = extract_rules(root)
    assert [(r["require"], r["message"]) for r in rules] == [("x <= 4", "x={x} not in {', '.join(map(str, [1, 2]))} a")]


def test_zip_without_maxtext_is_refused(tmp_path):
    archive = tmp_path / "other.whl"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("other/configs/base.yml", "")
    with pytest.raises(InputError, match="holds no maxtext/configs/types.py"):
        import_schema(archive)


def test_unwritable_output_is_one_clear_error(committed, tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(InputError, match="cannot write the schema"):
        write_schema(committed, tmp_path / "file" / "schema.json")


def test_base_yml_that_is_not_a_mapping_is_refused(tmp_path):
    root = _package(tmp_path, "class MaxTextConfig(BaseModel):\n  x: int = Field(1)\n")
    (root / "maxtext" / "configs" / "base.yml").write_text("- a\n- b\n")
    with pytest.raises(InputError, match="base.yml: expected a mapping"):
        import_schema(root)


# ---- synthetic modules: the ast reading equals pydantic's reading of the same source ----

_PRELUDE = """\
import copy
import enum
from enum import Enum
from typing import Any, Literal, Optional, Union
from pydantic import BaseModel, ConfigDict, Field
from pydantic.types import NonNegativeFloat, NonNegativeInt, PositiveInt

class Color(str, Enum):
  RED = "red"
  GREEN = "green"

class Level(enum.IntEnum):
  LOW = 0
  HIGH = 2

PathStr = str
Mode = Literal["fast", "slow"]
DEFAULT_AXES: list[str] = ["data", "fsdp"]

class Nested(BaseModel):
  model_config = ConfigDict(extra="forbid")
  depth: PositiveInt = Field(3)
  tag: None | str = Field(None)
"""

# (annotation, default expressions that suit it)
_ATOMS = [
    ("int", ["0", "-4", "7"]),
    ("bool", ["True", "False"]),
    ("float", ["0.5", "-1.0", "1e-05"]),
    ("str", ['""', '"abc"']),
    ("PathStr", ['"gs://b"']),
    ("PositiveInt", ["1", "16"]),
    ("NonNegativeInt", ["0"]),
    ("NonNegativeFloat", ["0.0"]),
    ("Color", ["Color.RED", "Color.GREEN.value", '"red"']),
    ("Level", ["Level.HIGH"]),
    ("Mode", ['"fast"']),
    ("Literal['x', 'y', 3]", ['"y"', "3"]),
    ("list[int]", ["default_factory=list", "[1, 2]"]),
    ("list[str]", ["default_factory=lambda: copy.deepcopy(DEFAULT_AXES)"]),
    ("list", ["default_factory=list"]),
    ("dict[str, Any]", ["default_factory=dict"]),
    ("dict", ["default_factory=dict"]),
    ("Any", ["None", "default_factory=lambda: [[1], 'a']"]),
    ("int | float", ["2", "2.5"]),
    ("str | list[str]", ['"a"']),
]
_WRAPPERS = ["{}", "{} | None", "None | {}", "Optional[{}]", "Union[{}, None]"]
_NUMERIC = {"int", "float", "PositiveInt", "NonNegativeInt", "NonNegativeFloat"}


@st.composite
def _field(draw, name: str) -> str:
    atom, defaults = draw(st.sampled_from(_ATOMS))
    annotation = draw(st.sampled_from(_WRAPPERS)).format(atom)
    default = draw(st.sampled_from(defaults + ["None"] * (annotation != atom)))
    arguments = [default]
    if atom in _NUMERIC:
        for bound in draw(st.lists(st.sampled_from(BOUNDS), unique=True, max_size=2)):
            arguments.append(f"{bound}={draw(st.integers(-3, 3))}")
    return f"  {name}: {annotation} = Field({', '.join(arguments)}, description='d')\n"


@st.composite
def _module(draw) -> str:
    names = [f"k{i}" for i in range(draw(st.integers(1, 12)))]
    mixins = draw(st.integers(1, 3))
    bodies = [[] for _ in range(mixins)]
    for name in names:
        bodies[draw(st.integers(0, mixins - 1))].append(draw(_field(name)))
    # a field declared again in a later mixin: the earlier base in the MRO must win
    redeclared = draw(st.sampled_from(names))
    bodies[-1].append(draw(_field(redeclared)))
    source = _PRELUDE
    for index, body in enumerate(bodies):
        source += f"\nclass Mixin{index}(BaseModel):\n  '''doc'''\n" + "".join(body)
    bases = ", ".join(f"Mixin{i}" for i in range(mixins))
    source += f"\nclass MaxTextConfig({bases}):\n  nested: Nested = Field(default_factory=Nested)\n"
    source += "  model_config = ConfigDict(extra='forbid')\n"
    return source


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_module())
def test_ast_reading_equals_pydantics_reading_of_the_same_module(source):
    with tempfile.TemporaryDirectory() as tmp:
        types_py = Path(tmp, "maxtext", "configs", "types.py")
        types_py.parent.mkdir(parents=True)
        types_py.write_text(source)
        Path(tmp, "maxtext", "configs", "base.yml").write_text("")
        imported = import_schema(tmp)
        live = describe_fields(_load_module(types_py).MaxTextConfig)
    assert sorted(imported.keys) == sorted(live)
    for name, described in live.items():
        key = imported.keys[name].model_dump()
        for attribute in COMPARED:
            want = described.get(attribute, False if attribute in ("nullable", "int_enum") else None)
            assert key[attribute] == want, (name, attribute, source)
            if attribute == "default":
                assert type(key[attribute]) is type(want), (name, source)


def _load_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"synthetic_types_{id(path)}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module

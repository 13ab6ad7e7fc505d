"""Values are typed exactly as MaxText 0.2.5 types them (the measured table, row by row)."""

import ast
import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flaglint.maxtext.values import ValueError_, coerce, format_value, type_value
from flaglint.pins.pins import load_pin
from flaglint.schema.model import KeySchema

TABLE = Path(__file__).parent.parent / "data" / "maxtext-value-typing.md"

COLUMNS = {
    "bool": KeySchema(name="k", kind="bool"),
    "int": KeySchema(name="k", kind="int"),
    "float": KeySchema(name="k", kind="float"),
    "str": KeySchema(name="k", kind="str"),
    "str|None": KeySchema(name="k", kind="str", nullable=True),
    "Enum": KeySchema(name="k", kind="enum", enum="WsdDecayStyle", choices=["linear", "cosine"]),
    "Literal": KeySchema(name="k", kind="literal", choices=["first_fit", "best_fit"]),
    "list[str]": KeySchema(name="k", kind="list", item="str"),
    "list[int]": KeySchema(name="k", kind="list", item="int"),
    "PositiveInt": KeySchema(name="k", kind="int", gt=0),
}


def _cells(line: str) -> list[str]:
    # Cells are separated by pipes; `\|` inside a cell is a literal pipe.
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _rows():
    text = TABLE.read_text(encoding="utf-8").splitlines()
    header = _cells(next(row for row in text if row.startswith("| token")))
    for line in (row for row in text if row.startswith("| `")):
        cells = _cells(line)
        token = cells[0].strip("`")
        if "=" not in token or " " in token:
            continue  # a token without '=' is refused by Tunix before typing (FL001)
        raw = token.split("=", 1)[1]
        for column, expected in zip(header[2:], cells[2:]):
            yield pytest.param(raw, column, expected, id=f"{token}-{column}")


def _expected(cell: str):
    if cell.startswith("✗"):
        return ValueError_
    if cell == "LINEAR":
        return "linear"
    if cell == "inf":
        return math.inf
    return ast.literal_eval(cell)


@pytest.mark.parametrize(("raw", "column", "cell"), list(_rows()))
def test_value_typing_table(raw, column, cell):
    expected = _expected(cell)
    if expected is ValueError_:
        with pytest.raises(ValueError_):
            type_value(COLUMNS[column], raw)
    else:
        value = type_value(COLUMNS[column], raw)
        assert value == expected and type(value) is type(expected)


def test_named_examples_from_the_issue():
    assert type_value(KeySchema(name="gcs_metrics", kind="bool"), "yes") is True
    assert type_value(KeySchema(name="log_period", kind="int"), "1e3") == 1000
    with pytest.raises(ValueError_):
        type_value(KeySchema(name="log_period", kind="int"), "1.5")
    with pytest.raises(ValueError_):
        type_value(COLUMNS["Enum"], "LINEAR")
    assert type_value(KeySchema(name="x", kind="str", nullable=True), "none") is None


def test_normalisation_of_special_keys():
    assert type_value(KeySchema(name="hf_train_files", kind="str", nullable=True), "''") is None
    assert type_value(KeySchema(name="hf_path", kind="str", nullable=True), "''") == ""  # not on pyconfig's list
    # 0.2.3 and later wrap a string in a list for the keys the schema marks; 0.2.0 does not
    assert type_value(KeySchema(name="adamw_mask", kind="list", item="str", list_when_string=True), "x") == ["x"]
    with pytest.raises(ValueError_):
        type_value(KeySchema(name="adamw_mask", kind="list", item="str"), "x")
    assert type_value(KeySchema(name="run_name", kind="str"), "none") == ""
    nested = KeySchema(name="dpo.max_prompt_length", kind="int", nullable=True, gt=0)
    assert type_value(nested, "null") is None
    with pytest.raises(ValueError_):
        type_value(nested, "none")  # a nested 'none' is not cleaned to None (measured on 0.2.5)


# Measured on MaxText 0.2.5 (pyconfig merges logical_axis_rules by rule name before pydantic sees it).
LOGICAL_AXIS_RULES = {
    "[]": True, "''": True, "0": True, "false": True, "null": True, "": True, "[[a]]": True, "[a]": True,
    "[ab]": True, "[[activation_batch, [data, fsdp]]]": True,
    "x": False, "1": False, "none": False, "[1]": False, "[[]]": False, "['']": False, "[[[a], b]]": False,
    "[{a: 1}]": False,
}


@pytest.mark.parametrize("raw,accepted", LOGICAL_AXIS_RULES.items())
def test_logical_axis_rules_are_refused_where_pyconfig_cannot_merge_them(raw, accepted):
    schema = KeySchema(name="logical_axis_rules", kind="any", nullable=True)
    if accepted:
        type_value(schema, raw)
    else:
        with pytest.raises(ValueError_):
            type_value(schema, raw)


def test_constant_bound_config_takes_a_comma_separated_string():
    schema = KeySchema(name="constant_bound_config", kind="list")
    assert type_value(schema, "''") == []
    assert type_value(schema, "0.5,0.25") == [0.5, 0.25]
    assert type_value(schema, "[1,2]") == [1, 2]
    for refused in ("a,b", "0.5", "none", "1_0"):
        with pytest.raises(ValueError_):
            type_value(schema, refused)


@given(st.text(max_size=40))
def test_any_text_types_or_refuses_cleanly(raw):
    for schema in [*COLUMNS.values(), KeySchema(name="logical_axis_rules", kind="any", nullable=True),
                   KeySchema(name="constant_bound_config", kind="list")]:
        try:
            type_value(schema, raw)
        except ValueError_ as err:
            assert "\n" not in str(err)


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_integers_round_trip(number):
    assert type_value(COLUMNS["int"], str(number)) == number
    assert type_value(COLUMNS["float"], str(number)) == float(number)


# --- the hand-written lax coercion against pydantic itself -------------------------------------

def _pydantic_adapter(schema):
    import enum
    from typing import Annotated, Any, Literal, Optional, Union

    from pydantic import Field, TypeAdapter

    scalars = {"bool": bool, "int": int, "float": float, "str": str, "dict": dict, "any": Any}
    if schema.kind == "enum":
        base = enum.Enum("Choice", {f"m{i}": c for i, c in enumerate(schema.choices)}, type=int if schema.int_enum else str)
    elif schema.kind == "literal":
        base = Literal[tuple(schema.choices)]
    elif schema.kind == "list":
        base = list[scalars[schema.item or "any"]]
    elif schema.kind == "union":
        base = Union[tuple(list[scalars[schema.item or "any"]] if m == "list" else scalars[m] for m in schema.members)]
    else:
        base = scalars[schema.kind]
    bounds = {b: getattr(schema, b) for b in ("ge", "gt", "le", "lt") if getattr(schema, b) is not None}
    if bounds:
        base = Annotated[base, Field(**bounds)]
    return TypeAdapter(Optional[base] if schema.nullable else base)


SCHEMAS = [
    *COLUMNS.values(),
    KeySchema(name="k", kind="int", ge=0),
    KeySchema(name="k", kind="float", gt=0, le=1),
    KeySchema(name="k", kind="int", nullable=True),
    KeySchema(name="k", kind="enum", choices=[0, 1, 2], int_enum=True),
    KeySchema(name="k", kind="literal", choices=["a", 1]),
    KeySchema(name="k", kind="union", members=["int", "str"]),
    KeySchema(name="k", kind="union", members=["str", "int"]),
    KeySchema(name="k", kind="union", members=["int", "float"]),
    KeySchema(name="k", kind="union", members=["float", "int"]),
    KeySchema(name="k", kind="union", members=["int", "list"], item="int"),
    KeySchema(name="k", kind="dict"),
]
yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats(allow_nan=False)
    | st.sampled_from(["1", "0", "1.0", " 2 ", "1_000", "tRuE", "yes", "Off", "1e3", "inf", "x", "", "linear", "a", "-0", "+5", "0x10", "1."])
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=5,
)


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: f"{s.kind}-{s.members or s.choices or ''}-{s.nullable}")
@given(value=yaml_values)
def test_coercion_agrees_with_pydantic(schema, value):
    from pydantic import ValidationError

    from flaglint.maxtext.values import coerce

    adapter = _pydantic_adapter(schema)
    try:
        expected = adapter.validate_python(value)
        expected = getattr(expected, "value", expected)
    except ValidationError:
        with pytest.raises(ValueError_):
            coerce(schema, value)
        return
    got = coerce(schema, value)
    assert got == expected or (got != got and expected != expected)
    assert type(got) is type(expected)


_VALUE_SHAPES = st.one_of(
    st.text(alphabet="abcdefnoNOtTrRuUeEsSyYlLFA019_.-/+: #~=<'\"", max_size=12),
    st.sampled_from(["yes", "Off", "NULL", "null", "~", "0", "00", "-0", "+7", "012", "1.5", "01.50", "1e-5", ".inf",
                     "1:30", "1_000", "0x1f", "0b11", "2024-01-01", "a:b", "tpu7x:4x4x8", "cp-as-ep", "gs://b/c"]),
    st.from_regex(r"[-+]?[0-9]{1,25}(\.[0-9]{0,20})?", fullmatch=True),
)


@given(_VALUE_SHAPES)
def test_values_read_without_the_yaml_parser_are_what_yaml_reads(raw):
    """The shortcut for common values (words, decimals) gives exactly the value and type PyYAML
    gives with MaxText's command-line rules; everything else still goes through PyYAML."""
    import yaml

    from flaglint.core.omegaconf_yaml import cli_loader
    from flaglint.maxtext.values import parse_cli_value

    try:
        expected = yaml.load(raw, Loader=cli_loader())  # noqa: S506 - a SafeLoader subclass
    except (yaml.YAMLError, ValueError):
        with pytest.raises(ValueError_):
            parse_cli_value(raw)
        return
    got = parse_cli_value(raw)
    assert type(got) is type(expected)
    assert got == expected or (isinstance(got, float) and math.isnan(got) and math.isnan(expected))


# MaxText 0.1.0's typing (pyconfig before 0.2.0), as its pyconfig gave each verdict (measured with
# `flaglint check --confirm-with` on the 0.1.0 oracle): the base.yml value's type decides.
OLD_TYPING = [
    ("use_multimodal", "0", "rejects"),  # string_to_bool(0): an int has no .lower()
    ("quantize_kvcache", "true", True),
    ("quantize_kvcache", "yes", True),  # YAML 1.1 reads yes as True, taken as it is
    ("use_multimodal", "'yes'", "rejects"),  # a string other than true/false
    ("out_proj", "", None),  # an empty value is None, whatever the key
    ("prefill_cache_axis_order", "[a,b]", "['a', 'b']"),  # str() of the list
    ("record_internal_nn_metrics", "1.5", 1),  # int(1.5)
    ("steps", "true", True),  # True is an int
    ("steps", "abc", "rejects"),
    ("learning_rate", "3", 3.0),
    ("logical_axis_rules", "x", "rejects"),  # a list key takes only a list
    ("compile_topology", "''", ""),  # looked up only when set
    ("compile_topology", "true", "rejects"),  # str(True) is no topology
]


@pytest.mark.parametrize("key, raw, expected", OLD_TYPING)
def test_before_0_2_0_a_value_is_typed_as_base_yml_types_it(key, raw, expected):
    schema = load_pin("maxtext-0.1.0").keys[key]
    assert schema.typed_as_default
    if expected == "rejects":
        with pytest.raises(ValueError_):
            type_value(schema, raw)
    else:
        typed = type_value(schema, raw)
        assert typed == expected and type(typed) is type(expected)


@given(st.one_of(st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8), st.none(),
                 st.lists(st.integers(), max_size=3)))
def test_before_0_2_0_a_str_key_takes_any_value_and_a_bool_key_only_true_or_false(value):
    pin = load_pin("maxtext-0.1.0")
    assert coerce(pin.keys["run_name"], value) == (None if value is None else str(value))
    boolean = pin.keys["use_multimodal"]
    takes = value is None or isinstance(value, bool) or (isinstance(value, str) and value.lower() in ("true", "false"))
    if takes:
        assert coerce(boolean, value) in (None, True, False)
    else:
        with pytest.raises(ValueError_):
            coerce(boolean, value)


# Numbers of any size: ints past 64 bits and past a float's range, infinities and NaN, digit
# strings past the 4,300 digits Python converts (pydantic refuses those as no int).
huge_numbers = st.one_of(
    st.integers(-(2**20_000), 2**20_000),
    st.sampled_from([10**400, -(10**400), 2**1024, 2**64, float("inf"), float("-inf"), float("nan"), 1e308]),
    st.builds(lambda sign, n, lead: sign + "0" * lead + "1" * n, st.sampled_from(["", "-", "+"]), st.integers(4_290, 4_310),
              st.integers(0, 3)),
    st.builds(lambda n: "1" + "0" * n + ".0", st.integers(300, 4_400)),
)


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: f"{s.kind}-{s.members or s.choices or ''}-{s.nullable}")
@given(value=st.one_of(huge_numbers, st.lists(huge_numbers, max_size=2)))
def test_numbers_of_any_size_agree_with_pydantic(schema, value):
    test_coercion_agrees_with_pydantic.hypothesis.inner_test(schema, value)


@pytest.mark.parametrize("raw", ["0x" + "f" * 320, "1" + "0" * 400, "0b" + "1" * 5000, "-0b" + "1" * 5000, ".inf", "1e400", ".nan"])
@pytest.mark.parametrize("key", ["steps", "learning_rate", "dropout_rate", "run_name", "logical_axis_rules", "num_slices"])
def test_a_number_of_any_size_is_typed_or_refused_in_one_short_line(key, raw):
    """A hex int of 300 digits, 1 and 400 zeros, a binary int of 5,000 digits, an infinity: typed
    exactly, or refused with a message that shows the number cut short."""
    schema = load_pin("maxtext-0.2.5").keys[key]
    try:
        typed = type_value(schema, raw)
    except ValueError_ as err:
        assert len(str(err)) < 200, str(err)
    else:
        assert format_value(typed)

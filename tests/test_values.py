"""Values are typed exactly as MaxText 0.2.5 types them (the measured table, row by row)."""

import ast
import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flaglint.schema.model import KeySchema
from flaglint.values import ValueError_, type_value

TABLE = Path(__file__).parent / "data" / "maxtext-value-typing.md"

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
    header = _cells(next(l for l in text if l.startswith("| token")))
    for line in (l for l in text if l.startswith("| `")):
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
    assert type_value(KeySchema(name="hf_path", kind="str", nullable=True), "''") is None
    assert type_value(KeySchema(name="run_name", kind="str"), "none") == ""


@given(st.text(max_size=40))
def test_any_text_types_or_refuses_cleanly(raw):
    for schema in COLUMNS.values():
        try:
            type_value(schema, raw)
        except ValueError_ as err:
            assert "\n" not in str(err)


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_integers_round_trip(number):
    assert type_value(COLUMNS["int"], str(number)) == number
    assert type_value(COLUMNS["float"], str(number)) == float(number)

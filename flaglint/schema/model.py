"""Pydantic models of a key schema, as stored in `schemas/`."""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["bool", "int", "float", "str", "enum", "literal", "list", "dict", "any", "union"]
Scalar = Union[bool, int, float, str]


class KeySchema(BaseModel):
    """One MaxText key (or Tunix variable): how its value is typed and what it defaults to.

    kind: the value's type. "enum" and "literal" carry their allowed values in `choices`
    ("enum" also names its class in `enum`, and `int_enum` marks an IntEnum, which accepts
    1 and "1" but not the member name). "list" names its element kind in `item`; "union" its
    member kinds in `members`, in declaration order.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    kind: Kind
    nullable: bool = False
    choices: Optional[list[Scalar]] = None
    enum: Optional[str] = None
    int_enum: bool = False
    item: Optional[Kind] = None
    members: Optional[list[Kind]] = None
    ge: Optional[float] = None
    gt: Optional[float] = None
    le: Optional[float] = None
    lt: Optional[float] = None
    default: Any = None
    default_at_runtime: Optional[str] = Field(None, description="the expression of a default MaxText computes when it runs")
    list_when_string: bool = Field(False, description="pyconfig wraps a string value in a list (0.2.3 and later, a few list keys)")
    unread_type: Optional[str] = Field(None, description="an annotation the importer could not read (kind is then any)")
    group: str = ""
    line: Optional[int] = None
    source: str = "configs/types.py"


class ModelConfig(BaseModel):
    """The keys one `configs/models/<name>.yml` sets, with their values."""

    model_config = ConfigDict(extra="forbid")

    name: str
    keys: dict[str, Any]


class Schema(BaseModel):
    """Every key one MaxText version defines."""

    model_config = ConfigDict(extra="forbid")

    version: str
    source: str = Field(description="where the schema was imported from")
    keys: dict[str, KeySchema]
    base_defaults: dict[str, Any] = Field(default_factory=dict, description="base.yml values, the effective defaults")
    models: dict[str, ModelConfig] = Field(default_factory=dict)
    # pyconfig's checks of a model file against the other sources; before 0.2.3 the later source wins silently
    refuses_model_and_argv: bool = Field(True, description="a key the model file sets given another value on argv is an error")
    refuses_model_and_env: bool = Field(True, description="a key the model file sets given by an M_<KEY> variable is an error")


class PinOverlay(BaseModel):
    """A MaxText commit described as edits to the schema it derives from."""

    model_config = ConfigDict(extra="forbid")

    pin: str
    commit: str
    extends: str
    title: str
    source: str
    starts_trainer: bool = True
    does_not_start_reason: Optional[str] = None
    keys_added: list[KeySchema] = Field(default_factory=list)
    keys_removed: dict[str, str] = Field(default_factory=dict, description="key -> citation")
    choices_added: dict[str, list[Scalar]] = Field(default_factory=dict)


class TunixVariable(BaseModel):
    """A recipe or launcher variable that Tunix reads, and the MaxText keys it sets."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["int", "str", "enum"]
    choices: Optional[list[str]] = None
    ge: Optional[int] = None
    default: Optional[str] = Field(None, description="the value used when the variable is unset (None: nothing)")
    flag: Optional[str] = Field(None, description="the launcher's own --flag carrying this variable")
    fixed: bool = Field(False, description="a fact of the hardware or the pin: a fix never changes it")
    binds: dict[str, str] = Field(
        default_factory=dict,
        description="MaxText key -> expression over Tunix variables, applied when the variable is set; "
        "an expression that yields None sets nothing",
    )
    description: str
    source: str


class TunixSchema(BaseModel):
    model_config = ConfigDict(extra="forbid")

    variables: dict[str, TunixVariable]

    def by_flag(self, flag: str) -> Optional[str]:
        return next((name for name, var in self.variables.items() if var.flag == flag), None)

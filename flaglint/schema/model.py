"""Pydantic models of the schema files in `schemas/` (and a pin store's schema.json); a key's fields
are `Key`'s (keys.py), the record a check reads them into."""

from __future__ import annotations

import inspect
from typing import Any, Literal, Optional, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from flaglint.schema.keys import KINDS, Key, Scalar


def _file_model(record: type, name: str, doc: str) -> type[BaseModel]:
    """The pydantic model of a keys.py record's fields as a file holds them, typed by the record's
    __init__; no other field is allowed."""
    hints = get_type_hints(record.__init__, localns={"Any": Any, "Kind": Literal[KINDS]})  # keys.py imports these only for a type checker
    return create_model(name, __config__=ConfigDict(extra="forbid"), __doc__=doc, __module__=__name__,
                        **{field: (hints[field], ... if p.default is p.empty else p.default)
                           for field, p in inspect.signature(record).parameters.items()})


KeySchema = _file_model(Key, "KeySchema", "One MaxText key as a schema file holds it: the fields of keys.Key.")


class ModelConfig(BaseModel):
    """The keys one `configs/models/<name>.yml` sets, with their values."""

    model_config = ConfigDict(extra="forbid")

    name: str
    keys: dict[str, Any]


class ConfigClassKeys(BaseModel):
    """Another config class an entry point validates with (train_rl's RLConfig), by its keys
    against MaxTextConfig's."""

    model_config = ConfigDict(extra="forbid")

    keys: dict[str, KeySchema] = Field(default_factory=dict, description="the keys it defines that MaxTextConfig does not, or types otherwise")
    lacks: list[str] = Field(default_factory=list, description="MaxTextConfig's keys it does not define")
    validated_by: list[str] = Field(default_factory=list, description="the classes whose validators it runs (itself, then its "
                                    "bases) and the functions of types.py its own validators call")
    tokenizer_models: list[str] = Field(default_factory=list, description="the models whose tokenizer it finds by name when no "
                                        "tokenizer_path is given (MaxText's HF_IDS)")


class MaxTextSchemaFile(BaseModel):
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
    refuses_model_key_at_its_value: bool = Field(
        False, description="a key the model file sets is refused on argv even at the model's value (before 0.2.0)")
    refuses_stray_key_variables: bool = Field(
        False, description="an M_ variable that names no key of the config files, or is not all upper case, is an error (before 0.2.0)")
    config_classes: dict[str, ConfigClassKeys] = Field(default_factory=dict, description="the other config classes, by name")


class PinOverlayFile(BaseModel):
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


class TunixLauncherFile(BaseModel):
    """The variables the Tunix launcher reads by role."""

    model_config = ConfigDict(extra="forbid")

    flags: str = Field(description="the MaxText flag string, written after the bound keys (last wins)")
    backend: str = Field(description="the trainer backend; the flags reach MaxText only with one of maxtext_backends")
    maxtext_backends: list[str]
    slice: str = Field(description="the trainer's TPU slice; a JobSet's TPU node selector gives it")
    mesh_prefix: str = Field(description="the prefix of the trainer's mesh variables: a launch with one is the trainer's")


class TunixSchemaFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    launcher: TunixLauncherFile
    variables: dict[str, TunixVariable]

    def by_flag(self, flag: str) -> Optional[str]:
        return next((name for name, var in self.variables.items() if var.flag == flag), None)

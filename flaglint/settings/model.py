"""The pydantic model that types a config file, built from the table of settings, settings.FIELDS
(this module is imported only when there is a file to read: pydantic costs a run without one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, create_model

Severity = Literal["error", "warning", "info"]  # what settings.FIELDS names "Severity" in a type written as text


def typed_table(table: dict[str, Any], fields: Mapping[str, Any], alias: Callable[[str], str]) -> dict[str, Any]:
    """The settings `table` sets, typed by `fields` (name -> SettingSpec); pydantic's ValidationError
    when a name is unknown or a value has the wrong type."""
    model = create_model(
        "ConfigFile",
        __config__=ConfigDict(extra="forbid", strict=True, alias_generator=alias),
        __module__=__name__,
        **{
            name: (setting.type if setting.minimum is None else Annotated[setting.type, Field(ge=setting.minimum)],
                   Field(setting.default, description=setting.description))
            for name, setting in fields.items()
        },
    )
    return model.model_validate(table).model_dump(by_alias=True, exclude_unset=True)

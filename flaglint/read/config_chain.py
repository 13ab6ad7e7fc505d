"""The YAML config chain a MaxText argv starts from, merged: each key's value and the file line
that set it (render/yaml_chain.py reads the files and merges them)."""

from __future__ import annotations

from flaglint.core.records import FrozenRecord, Record

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

BASE_YML = "base.yml"
PIN_LABEL = "maxtext/configs"  # how MaxText's own config files are named in findings and origins


class Setting(FrozenRecord):
    """A key's value in the merged chain and the file line that set it."""

    __slots__ = field_names = ("key", "value", "file", "line", "column")

    def __init__(self, key: str, value: Any, file: str, line: int, column: int = 1):
        self.key = key
        self.value = value
        self.file = file
        self.line = line
        self.column = column


class Chain(Record):
    __slots__ = field_names = ("files", "settings")

    def __init__(self, files: list[str], settings: dict[str, Setting] | None = None):
        self.files = files  # the chain, the given file first
        self.settings = {} if settings is None else settings

    @property
    def reaches_base_yml(self) -> bool:
        """Whether MaxText's own base.yml is in the chain (else a key it leaves unset has the default of MaxText's types.py)."""
        return f"{PIN_LABEL}/{BASE_YML}" in self.files

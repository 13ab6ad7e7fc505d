"""The YAML config chain a MaxText argv starts from, merged: each key's value and the file line
that set it (render/yaml_chain.py reads the files and merges them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BASE_YML = "base.yml"
PIN_LABEL = "maxtext/configs"  # how MaxText's own config files are named in findings and origins


@dataclass(frozen=True)
class Setting:
    """A key's value in the merged chain and the file line that set it."""

    key: str
    value: Any
    file: str
    line: int
    column: int = 1


@dataclass
class Chain:
    files: list[str]  # the chain, the given file first
    settings: dict[str, Setting] = field(default_factory=dict)

    @property
    def reaches_base_yml(self) -> bool:
        """Whether MaxText's own base.yml is in the chain (else a key it leaves unset has the default of MaxText's types.py)."""
        return f"{PIN_LABEL}/{BASE_YML}" in self.files

"""`flaglint show`: each key's effective value and where it came from, for the inputs `check` reads.

Origins, lowest first: a line of MaxText's base.yml (or types.py's default when the chain does not
reach base.yml), a line of a config file of the base_config chain, the model file, a Tunix variable,
a MAXTEXT_EXTRA_FLAGS token or an argv word, an M_<KEY> variable. The device count names its source.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flaglint.maxtext.values import format_value
from flaglint.report.tables import table
from flaglint.resolve.resolver import Config
from flaglint.schema.config_index import load_index


@dataclass(frozen=True)
class Provenance:
    key: str
    value: Any
    kind: str  # default, yaml, model, tunix, flags, argv, env, devices
    where: str  # for a person: file:line, the token, the variable
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "origin": self.kind, "where": self.where}
        out |= {name: getattr(self, name) for name in ("file", "line", "column") if getattr(self, name) is not None}
        return out


def provenance(config: Config, keys: list[str], device_source: str | None) -> list[Provenance]:
    """Each key asked for (or every key something set, when none is asked for), with its origin."""
    chosen = keys or [*config.explicit, *config.devices]
    return [_origin(config, key, device_source) for key in dict.fromkeys(chosen)]


def _origin(config: Config, key: str, device_source: str | None) -> Provenance:
    value = config.lookup(key)
    if key in config.devices:
        return Provenance(key, value, "devices", device_source or "the device count")
    if key in config.tunix:
        return Provenance(key, value, "tunix", f"Tunix variable {key}" + (" (unset)" if value is None else ""))
    assignment = config.explicit.get(key)
    if assignment is None:
        index = load_index(config.pin.configs)
        base = index.get("base.yml") if index is not None else None
        if key in config.pin.defaults and base is not None and key in base.lines:
            return Provenance(key, value, "default", f"maxtext/configs/base.yml:{base.lines[key]} (MaxText {config.pin.version})",
                              "maxtext/configs/base.yml", base.lines[key])
        return Provenance(key, value, "default", f"types.py default (MaxText {config.pin.version})")
    kind, _, rest = assignment.origin.partition(":")
    if kind == "flags" and assignment.token is not None:
        token = assignment.token
        channel = "argv" if config.source.argv else "flags"
        label = "argv word" if config.source.argv else (f"{config.source.name} token" if config.source.name else "flag token")
        where = f"{label} {token.text!r} at column {token.column}" + (f" of {config.source.file}" if config.source.file else "")
        return Provenance(key, value, channel, where, config.source.file, token.line, token.column)
    if kind == "yaml" and assignment.where is not None:
        loc = assignment.where
        return Provenance(key, value, "yaml", f"{loc.file}:{loc.line}", loc.file, loc.line)
    if kind == "model":
        index = load_index(config.pin.configs)
        model_file = index.get(f"models/{rest}.yml") if index is not None else None
        line = model_file.lines.get(key) if model_file is not None else None
        where = f"maxtext/configs/models/{rest}.yml" + (f":{line}" if line else "")
        return Provenance(key, value, "model", f"{where} (model_name={rest})", f"maxtext/configs/models/{rest}.yml", line)
    if kind == "tunix":
        return Provenance(key, value, "tunix", f"derived by Tunix from {rest}")
    if kind == "env":
        return Provenance(key, value, "env", f"environment variable {rest}")
    return Provenance(key, value, kind, assignment.origin)


def render_text(rows: list[Provenance]) -> str:
    """The keys as a table: key, value (as MaxText's YAML writes it), origin, where."""
    if not rows:
        return "no key is set: the inputs set none and name none"
    return "\n".join(table(("key", "value", "origin", "where"), [(r.key, format_value(r.value), r.kind, r.where) for r in rows]))


def render_json(pin: str, rows: list[Provenance]) -> str:
    return json.dumps({"version": 1, "pin": pin, "values": {row.key: row.to_json() for row in rows}}, indent=2, default=str)

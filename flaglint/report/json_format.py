"""The JSON contract (version 1): {"version", "pin", "findings", "fixes"}."""

from __future__ import annotations

import json

from . import Checked, merged


def render(checked: list[Checked]) -> str:
    return json.dumps(merged(checked).to_json(), indent=2)

"""The JSON contract (core.findings.JSON_CONTRACT_VERSION): {"version", "pin", "findings", "fixes"}, and "applied" after --fix."""

from __future__ import annotations

import json

from flaglint.report import Checked, merged


def render(checked: list[Checked]) -> str:
    """`applied` (after --fix): each fix made, with the input it was made to (null: a flag string
    from the command line); its `flags` is that input's fixed flag string."""
    payload = merged(checked).to_json()
    applied = [{"input": item.label, **fix.to_json()} for item in checked for fix in item.applied]
    if applied:
        payload["applied"] = applied
    return json.dumps(payload, indent=2)

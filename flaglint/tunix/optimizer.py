"""The optimizers a Tunix entry point builds from a section (`create_optimizer("optimizer_config")`),
checked as HyperParameters.create_optimizer checks them (the pin's `optimizer` facts), against
the names and signatures optax exports (schemas/optax.json, read from optax's source by
flaglint/importer/optax.py):

- `opt_type` is required (an override that replaces the section whole and leaves it out drops it);
- `getattr(optax, opt_type.lower())` must find it (0.1.0: it must be a name of the release's map);
- a `schedule_type` must be a function of optax.schedules (0.1.0: `warmup_cosine`), each of its
  required arguments in the section;
- without one, `learning_rate` must be a number, and is required where the optimizer requires it;
- every other required argument of the optimizer must be in the section.

Tunix stops at the first of these, after the model is downloaded; each is FL218 at the value (or
the section) that breaks it.
"""

from __future__ import annotations

import difflib
import json
from functools import lru_cache
from typing import Any

from flaglint.core.data import data_dir
from flaglint.core.findings import Finding
from flaglint.core.location import Location
from flaglint.core.reading import PIN_FILE, read_text
from flaglint.rules.ruleset import built_in
from flaglint.tunix.merge import AFTER_DOWNLOADS, Merged, staged
from flaglint.tunix.pins import TunixPin

OPTAX_FILE = "optax.json"
LEARNING_RATE = "learning_rate"


@lru_cache(maxsize=1)
def optax_facts() -> dict[str, Any]:
    """optax's exports: `optimizers` (names of the optax module) and `schedules` (of
    optax.schedules), each name -> [[parameter, required], …] or None where it is no function."""
    return json.loads(read_text(data_dir("schemas") / OPTAX_FILE, PIN_FILE))


def check_optimizers(pin: TunixPin, merged: Merged, entry: str) -> list[Finding]:
    if pin.optimizer is None:
        return []
    filled = ((pin.data_steps or {}).get(entry) or {}).get("fills", {})
    out = []
    for call in (pin.optimizers or {}).get(entry, ()):
        path = ".".join(call["keys"])
        if any(".".join(call["keys"][:end]) in merged.unknown for end in range(1, len(call["keys"]) + 1)):
            continue
        try:
            section = merged.value(path)
        except KeyError:
            section = None
        if call["when_set"] and not section:
            continue
        found = _first_problem(pin, merged, path, section, set(filled.get(path, ())))
        if found is not None:
            out.append(staged(found, AFTER_DOWNLOADS))
    return out


def _first_problem(pin: TunixPin, merged: Merged, path: str, section: Any, filled: set[str]) -> Finding | None:
    facts = optax_facts()
    version, optax = pin.version, facts["version"]
    if not isinstance(section, dict):
        return built_in("FL218", (path,), _at(merged, path), variant="not_mapping", section=path, value=section, version=version)
    opt_type = section.get("opt_type")
    if not opt_type:
        key = f"{path}.opt_type" if "opt_type" in section else path
        return built_in("FL218", (key,), _at(merged, key), variant="name", section=path, version=version)
    names, schedules = _table(facts["optimizers"], pin.optimizer["optimizers"]), _table(facts["schedules"], pin.optimizer["schedules"])
    name = (opt_type.lower() if pin.optimizer["optimizers"]["lower"] else opt_type) if isinstance(opt_type, str) else None
    if name not in names:
        close = difflib.get_close_matches(name or "", [n for n in names if n.islower()], n=3, cutoff=0.6)
        return built_in("FL218", (f"{path}.opt_type",), _at(merged, f"{path}.opt_type"), variant="unknown", section=path,
                        value=opt_type, names=", ".join(sorted(pin.optimizer["optimizers"]["map"] or ())) or f"optax {optax}'s exports",
                        close=", ".join(close), version=version)
    given = set(section) | filled
    schedule = section.get("schedule_type")
    if schedule:
        if not isinstance(schedule, str) or schedule not in schedules:
            return built_in("FL218", (f"{path}.schedule_type",), _at(merged, f"{path}.schedule_type"), variant="schedule",
                            section=path, value=schedule,
                            names=", ".join(sorted(pin.optimizer["schedules"]["map"] or ())) or f"optax {optax}'s optax.schedules",
                            version=version)
        arguments = schedules[schedule]
        if arguments is None:
            return None  # no function flaglint can read: its arguments are not judged
        missing = [p for p, required in arguments if required and p not in given]
        if missing:
            return built_in("FL218", (path,), _at(merged, path), variant="schedule_argument", section=path, argument=missing[0],
                            schedule=schedule, version=version)
        rate: Any = schedule
    else:
        rate = section.get(LEARNING_RATE)
        if rate is not None and not isinstance(rate, (int, float)):
            key = f"{path}.{LEARNING_RATE}"
            return built_in("FL218", (key,), _at(merged, key), variant="learning_rate", section=path, value=rate, version=version)
    for parameter, required in names[name] or ():
        if parameter in given or parameter == LEARNING_RATE and rate is not None or not required:
            continue
        return built_in("FL218", (path,), _at(merged, path), variant="argument", section=path, argument=parameter, optimizer=name,
                        version=version)
    return None


def nearest_optimizer(pin: TunixPin, opt_type: Any) -> str | None:
    """The one optimizer name the release takes that is nearest to an unknown `opt_type`, as it
    is written there (None: no name is near, or two are as near)."""
    if pin.optimizer is None or not isinstance(opt_type, str) or not opt_type:
        return None
    names = [n for n in _table(optax_facts()["optimizers"], pin.optimizer["optimizers"]) if n.islower()]
    lowered = opt_type.lower() if pin.optimizer["optimizers"]["lower"] else opt_type
    scored = sorted(((difflib.SequenceMatcher(None, lowered, n).ratio(), n) for n in names), reverse=True)
    if not scored or scored[0][0] < 0.6 or len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


def _table(exported: dict[str, Any], facts: dict[str, Any]) -> dict[str, Any]:
    """The names the release takes -> the parameters of the optax function each stands for: optax's
    own exports, or the release's fixed map of names to them."""
    if facts["map"] is None:
        return exported
    return {name: exported.get(function) for name, function in facts["map"].items()}


def _at(merged: Merged, key: str) -> Location | None:
    origin = merged.origin(key)
    return origin.location if origin is not None else None

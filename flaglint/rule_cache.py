"""A JSON cache of parsed rule sets, so a cold `flaglint check` does not re-parse every rule file."""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable

from . import __version__
from .expr import from_json, to_json


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "flaglint"


def _fingerprint(sources: list[Path]) -> str:
    # A cache key, not a security boundary: crc32 (zlib is already loaded) instead of hashlib's import.
    parts = [__version__]
    for path in sources:
        try:
            stat = path.stat()
            parts.append(f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}")
        except OSError:
            parts.append(f"{path}\0missing")
    text = "\0".join(parts).encode()
    return f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}{len(text):x}"


def cached(sources: list[Path], parse: Callable[[], Any]) -> Any:
    from .ruleset import Rule, RuleSet

    path = _cache_dir() / f"rules-{_fingerprint(sources)}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rules = []
        for entry in data["rules"]:
            names = entry.pop("names")
            entry["pins"] = tuple(entry["pins"]) if entry["pins"] is not None else None
            rule = Rule(**entry)  # its trees stay JSON until a check reads them
            rule.__dict__["names"] = names
            rules.append(rule)
        return RuleSet(rules, {k: from_json(v) for k, v in data["derived"].items()}, data["derived_text"])
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        pass
    ruleset = parse()
    names = [f.name for f in fields(Rule)]
    payload = {
        "rules": [
            {**{n: (to_json(getattr(r, n)) if n.endswith("_tree") else getattr(r, n)) for n in names}, "names": r.names}
            for r in ruleset.rules
        ],
        "derived": {k: to_json(v) for k, v in ruleset.derived.items()},
        "derived_text": ruleset.derived_text,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass
    return ruleset

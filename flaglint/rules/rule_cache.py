"""The rule sets in the data cache. A rule's trees are kept as JSON text, decoded when a check
first reads them: most rules of a pin never get past their `when`."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable

from flaglint.core.data_cache import cached
from flaglint.rules.expr import from_json, to_json


def cached_ruleset(sources: list[Path], parse: Callable[[], Any]) -> Any:
    return cached("rules", sources, parse, _encode, _decode, layout=2)


def _decode(data: dict[str, Any]) -> Any:
    from flaglint.rules.ruleset import Rule, RuleSet

    rules = []
    for entry in data["rules"]:
        names = entry.pop("names")
        entry["pins"] = tuple(entry["pins"]) if entry["pins"] is not None else None
        rule = Rule(**entry)
        rule.__dict__["names"] = names
        rules.append(rule)
    return RuleSet(rules, _Trees(data["derived"]), data["derived_text"])


class _Trees(Mapping):
    """Name -> tree, each decoded from its JSON data when first read (a check reads a derived value
    only to word a message that names it)."""

    def __init__(self, data: dict[str, Any]):
        self._data = data
        self._trees: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._trees:
            self._trees[name] = from_json(self._data[name])
        return self._trees[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def _tree_text(tree: Any) -> str | None:
    return None if tree is None else json.dumps(to_json(tree))


def _encode(ruleset: Any) -> dict[str, Any]:
    from flaglint.rules.ruleset import Rule

    names = [f.name for f in fields(Rule)]
    return {
        "rules": [
            {**{n: (_tree_text(getattr(r, n)) if n.endswith("_tree") else getattr(r, n)) for n in names}, "names": r.names}
            for r in ruleset.rules
        ],
        "derived": {k: to_json(v) for k, v in ruleset.derived.items()},
        "derived_text": ruleset.derived_text,
    }

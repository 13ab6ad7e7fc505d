"""YAML as OmegaConf reads it, for MaxText's configs and Tunix's alike: PyYAML's safe rules less
timestamps, floats written without a dot (`1e-5`), duplicate keys refused, and aliases that expand
past 10,000 nodes refused (OmegaConf 2.4's limits, omegaconf/_yaml.py). PyYAML is imported on first
use: a check that never reads a file or a value of an unusual shape does not pay for it."""

from __future__ import annotations

import re
from functools import lru_cache

from flaglint.core.findings import InputError

TYPE_CHECKING = False  # typing's, without importing typing: a cold check does not need it
if TYPE_CHECKING:
    from typing import Any

MAX_EXPANDED_NODES = 10_000
MAX_EXPANSION_RATIO = 100
MIN_RATIO_NODES = 1_000


@lru_cache(maxsize=None)
def cli_loader() -> type:
    """PyYAML's safe loader without timestamps, and with floats written without a dot (1e-5, 2E3):
    how OmegaConf reads a file and a command-line value. Made on first use (PyYAML's import is a
    tenth of a cold check)."""
    import yaml  # noqa: PLC0415 yaml: a tenth of a cold check, only for a value or file to type

    class CliLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    CliLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()  # the same on the C loader
    }
    CliLoader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(
            r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
            |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
            |\.[0-9_]+(?:[eE][-+][0-9]+)?
            |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
            |[-+]?\.(?:inf|Inf|INF)
            |\.(?:nan|NaN|NAN))$""",
            re.X,
        ),
        list("-+0123456789."),
    )
    check_tagged_scalars(CliLoader)
    return CliLoader


# The scalar types whose PyYAML constructor raises a Python error, not a YAML one, on content of
# another shape when a tag names the type (`!!int` on nothing, `!!timestamp x`, an integer of over
# 4,300 digits): the program that loads it (MaxText, Tunix, flaglint on a rule file) stops there.
_CHECKED_TAGS = ("bool", "int", "float", "timestamp", "binary")


def check_tagged_scalars(loader: type) -> None:
    """Make LOADER raise a YAML ConstructorError, at the scalar's line, where PyYAML's own
    constructor of a typed scalar raises a Python error."""
    import yaml  # noqa: PLC0415 yaml: only when a loader is made

    def checked(construct):
        def construct_checked(self, node):
            try:
                return construct(self, node)
            except (ValueError, TypeError, IndexError, KeyError, AttributeError) as err:
                shown = node.value if len(node.value) <= 40 else f"{node.value[:40]}… ({len(node.value):,} characters)"
                name = node.tag.rsplit(":", 1)[-1]
                reason = str(err).split(":")[0] if isinstance(err, ValueError) else "no value of that tag"
                raise yaml.constructor.ConstructorError(None, None, f"!!{name} {shown!r}: {reason}", node.start_mark) from None
        return construct_checked

    for name in _CHECKED_TAGS:
        tag = f"tag:yaml.org,2002:{name}"
        loader.add_constructor(tag, checked(yaml.SafeLoader.yaml_constructors[tag]))


def load_document(text: str, name: str, program: str) -> tuple[Any, Any]:
    """The document's node tree (None when empty) and its value, as OmegaConf loads a file for
    PROGRAM (MaxText, Tunix); InputError, naming the file and line, on what OmegaConf refuses."""
    import yaml  # noqa: PLC0415 yaml: only when a config file is read

    try:
        loader = cli_loader()(text)
        try:
            node = loader.get_single_node()
            if node is not None:
                _check_aliases(node, name, program)
                _check_duplicates(node, name, program)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise InputError(f"{where}: not valid YAML ({problem})") from None
    return node, data


def _check_aliases(node: Any, name: str, program: str) -> None:
    """Refuse recursive aliases and alias bombs as OmegaConf does, before anything is built."""
    import yaml  # noqa: PLC0415 yaml: only when a config file is read

    expanded: dict[int, int] = {}
    visiting: set[int] = set()

    def count(n: yaml.Node) -> int:
        if id(n) in expanded:
            return expanded[id(n)]
        if id(n) in visiting:
            raise InputError(f"{name}:{n.start_mark.line + 1}: a YAML alias refers to itself; {program} cannot load it")
        visiting.add(id(n))
        total = 1
        children = n.value if isinstance(n, yaml.SequenceNode) else [c for pair in n.value for c in pair] if isinstance(n, yaml.MappingNode) else []
        for child in children:
            total += count(child)
            if total > MAX_EXPANDED_NODES:
                break
        visiting.discard(id(n))
        expanded[id(n)] = total
        return total

    total = count(node)
    unique = len(expanded)
    if total > MAX_EXPANDED_NODES or (total > MIN_RATIO_NODES and total > unique * MAX_EXPANSION_RATIO):
        raise InputError(f"{name}:{node.start_mark.line + 1}: YAML aliases expand this file past {MAX_EXPANDED_NODES} nodes"
                         f" ({unique} written); {program}'s loader (OmegaConf) refuses it")


def _check_duplicates(node: Any, name: str, program: str) -> None:
    import yaml  # noqa: PLC0415 yaml: only when a config file is read

    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in current.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in seen:
                        raise InputError(f"{name}:{key.start_mark.line + 1}: duplicate key {key.value}; {program}'s loader (OmegaConf) refuses it")
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)

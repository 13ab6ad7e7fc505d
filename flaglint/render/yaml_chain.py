"""YAML config files as MaxText's pyconfig reads them: one file's values and key lines, and the
`base_config:` chain, each value with the file and line that set it.

pyconfig loads each file with OmegaConf (safe YAML, `1e-5` is a float, no timestamps, duplicate
keys refused, aliases that expand past 10,000 nodes refused), resolves `base_config` relative to
the file and then in the configs directory of the installed MaxText, and merges child over parent
(mappings merge, every other value is replaced).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from flaglint.core.findings import InputError
from flaglint.core.omegaconf_yaml import load_document
from flaglint.core.reading import CONFIG_FILE, names_a_file, read_text
from flaglint.read.config_chain import PIN_LABEL, Chain, Setting
from flaglint.schema.config_index import ConfigFile, ConfigIndex

BASE_CONFIG = "base_config"


@lru_cache(maxsize=32)  # by its text: a script's command lines read the same config file on every path
def parse_config(text: str, name: str) -> ConfigFile:
    """One config file's values and the line of each top-level key; InputError on what MaxText
    refuses. The ConfigFile is shared: never change one."""
    import yaml  # noqa: PLC0415 yaml: only for a config file the pin's index does not hold

    node, data = load_document(text, name, "MaxText")
    if data is None:
        return ConfigFile(name, {}, {}, None)
    if not isinstance(data, dict):
        raise InputError(f"{name}:1: a MaxText config must be a mapping of keys, not a {type(data).__name__}")
    lines = {str(key.value): key.start_mark.line + 1 for key, _ in node.value if isinstance(key, yaml.ScalarNode)}
    values = {str(key): value for key, value in data.items()}
    parent = values.get(BASE_CONFIG)
    if parent is not None and not isinstance(parent, str):
        raise InputError(f"{name}:{lines.get(BASE_CONFIG, 1)}: base_config must be a file name, not {parent!r}")
    return ConfigFile(name, values, lines, parent)


@dataclass(frozen=True)
class Written:
    """A config file a recipe script writes before it starts MaxText (`cat > FILE <<EOF`): its
    path as the script names it, its text, and where each character of it was written."""

    name: str
    text: str
    origins: tuple  # tuple[Location | None, ...], one per character of text


@dataclass(frozen=True)
class _Node:
    """A file of the chain: a file on disk, one of the pin's configs (by its path under configs/),
    or one the script writes."""

    path: Path | None
    relpath: str | None
    written: Written | None = None

    @property
    def label(self) -> str:
        if self.written is not None:
            return self.written.name
        return str(self.path) if self.path is not None else f"{PIN_LABEL}/{self.relpath}"

    @property
    def identity(self) -> str:
        if self.written is not None:
            return f"written:{self.written.name}"
        return os.path.realpath(self.path) if self.path is not None else f"pin:{self.relpath}"

    def place(self, line: int) -> tuple[str, int, int]:
        """File, line and column of a line of this file: for a written one, where the script wrote it."""
        if self.written is not None:
            start = sum(len(text) + 1 for text in self.written.text.split("\n")[:line - 1])
            text = self.written.text[start:].split("\n", 1)[0]
            at = start + len(text) - len(text.lstrip())
            origin = self.written.origins[at] if at < len(self.written.origins) else None
            if origin is not None:
                return origin.file, origin.line, origin.column
        return self.label, line, 1


def pin_relpath(path: str) -> str | None:
    """The part after `maxtext/configs/` of a path into MaxText's configs (`src/maxtext/configs/base.yml`,
    `${MAXTEXT_CONFIGS_DIR}/…` once rendered), or None."""
    marker = "maxtext/configs/"
    at = path.lower().rfind(marker)
    return posixpath.normpath(path[at + len(marker):]) if at >= 0 else None


def written_name(path: str, written: Mapping[str, Written]) -> str | None:
    """The name under which the script wrote `path` (`./out.yml` and `out.yml` are one file)."""
    wanted = posixpath.normpath(path)
    return next((name for name in written if posixpath.normpath(name) == wanted), None)


def config_node(argument: str, index: ConfigIndex | None, written: Mapping[str, Written] = {}) -> _Node:
    """The config argument of MaxText's argv: a file the script wrote, a file, else a path into
    MaxText's own configs."""
    name = written_name(argument, written)
    if name is not None:
        return _Node(None, None, written[name])
    if names_a_file(argument):
        return _Node(Path(argument), None)
    relpath = pin_relpath(argument)
    if relpath is not None and index is not None and index.get(relpath) is not None:
        return _Node(None, relpath)
    if os.path.exists(argument):
        raise InputError(f"{argument}: not a file")
    raise InputError(f"{argument}: cannot read (No such file or directory, here or among the pin's MaxText configs)")


# The chain of each of a pin's own configs, once per index (by identity: the index is held, so its id
# is not reused): a script's command lines name the same base.yml on every path, and its ~800 keys
# were merged again for each.
_PIN_CHAINS: dict[int, tuple[ConfigIndex, dict[str, Chain]]] = {}


def load_chain(top: _Node, index: ConfigIndex | None, written: Mapping[str, Written] = {}) -> Chain:
    """The merged chain from `top` up through its base_configs (`written`: the files the script
    wrote, by the paths it names them). A chain is shared: never change one."""
    if top.path is None and top.written is None and index is not None:  # a pin's config: its bases are the pin's too
        _, chains = _PIN_CHAINS.setdefault(id(index), (index, {}))
        if top.relpath not in chains:
            chains[top.relpath] = _merged_chain(top, index, written)
        return chains[top.relpath]
    return _merged_chain(top, index, written)


def _merged_chain(top: _Node, index: ConfigIndex | None, written: Mapping[str, Written]) -> Chain:
    files: list[tuple[_Node, ConfigFile]] = []
    seen: list[str] = []
    node: _Node | None = top
    while node is not None:
        if node.identity in seen:
            loop = " -> ".join([*(f.label for f, _ in files), node.label])
            raise InputError(f"{files[-1][0].label}:{files[-1][1].lines.get(BASE_CONFIG, 1)}: base_config loop: {loop}")
        seen.append(node.identity)
        config = _read(node, index)
        files.append((node, config))
        node = _parent(node, config, index, written) if config.base_config else None
    chain = Chain([n.label for n, _ in files])
    for node, config in reversed(files):  # the base first, each child over it
        for key, value in config.values.items():
            earlier = chain.settings.get(key)
            if isinstance(value, dict) and earlier is not None and isinstance(earlier.value, dict):
                value = _merged(earlier.value, value)
            chain.settings[key] = Setting(key, value, *node.place(config.lines.get(key, 1)))
    return chain


def _read(node: _Node, index: ConfigIndex | None) -> ConfigFile:
    if node.written is not None:
        return parse_config(node.written.text, node.written.name)
    if node.path is None:
        assert index is not None
        return index.files[node.relpath]
    return parse_config(read_text(node.path, CONFIG_FILE), str(node.path))


def _parent(node: _Node, config: ConfigFile, index: ConfigIndex | None, written: Mapping[str, Written]) -> _Node:
    base = config.base_config or ""
    where = f"{node.label}:{config.lines.get(BASE_CONFIG, 1)}"
    if node.written is not None:
        beside_written = posixpath.join(posixpath.dirname(node.written.name), base)
        for candidate in (base, beside_written):
            name = written_name(candidate, written)
            if name is not None:
                return _Node(None, None, written[name])
        node = _Node(Path(node.written.name), None)  # else as a file at that path would find its base
    if os.path.isabs(base):
        if names_a_file(base):
            return _Node(Path(base), None)
        raise InputError(f"{where}: base_config {base!r}: no such file")
    if node.path is not None:
        beside = node.path.parent / base
        if names_a_file(beside):
            return _Node(beside, None)
    elif index is not None:
        beside_rel = posixpath.normpath(posixpath.join(posixpath.dirname(node.relpath or ""), base))
        if index.get(beside_rel) is not None:
            return _Node(None, beside_rel)
    if index is not None and index.get(posixpath.normpath(base)) is not None:
        return _Node(None, posixpath.normpath(base))
    searched = "beside the file" + (" or in MaxText's configs" if index is not None else "")
    raise InputError(f"{where}: base_config {base!r}: no such file {searched}")


def _merged(parent: dict, child: dict) -> dict:
    out = dict(parent)
    for key, value in child.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out

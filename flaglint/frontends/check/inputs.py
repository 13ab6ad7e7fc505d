"""What `flaglint check` and `flaglint show` were given, as the sources MaxText would read.

`check CONFIG.yml key=value …` and `check k=v k=v …` (two or more words) are MaxText's own argv:
each word whole, the .yml its base_config chain. One argument alone is a MAXTEXT_EXTRA_FLAGS string
(whitespace-split, as Tunix splits it), `-` (stdin) or the NAME of a set variable.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from flaglint.core.data_cache import cached
from flaglint.core.findings import InputError
from flaglint.read.argv import argv_source
from flaglint.read.flags import FlagSource, read_flag_sources
from flaglint.schema.index_files import CONFIG_SUFFIX, index_path


def check_sources(args: tuple[str, ...], version: str | Path) -> list[FlagSource]:
    """VERSION: the pin's config index, which says how its pyconfig finds the config file: from
    0.2.3 argv[1] when its name ends in .yml; 0.2.0 takes argv[1] whatever its name (here: a
    first word without `=` that ends in .yml or .yaml or names a file)."""
    suffix = config_suffix(version)
    first = args[0] if args else ""
    if suffix is None and first and "=" not in first and (first.endswith((CONFIG_SUFFIX, ".yaml")) or os.path.isfile(first)):
        return [config_source(first, args[1:], version)]
    if suffix is not None and first.endswith(".yaml") and os.path.isfile(first):
        from flaglint.schema.config_index import load_index  # noqa: PLC0415 the whole index: only to name its release

        index = load_index(version)
        release = f"MaxText {index.version}" if index is not None else "MaxText"
        raise InputError(f"{first}: {release} takes its first argument as the config file only when the name ends in "
                         f"{suffix} (it would read this one as an undefined key); rename it")
    if suffix is not None and first.endswith(suffix):
        return [config_source(first, args[1:], version)]
    for word in args:
        _refuse_missing_path(word)
    if len(args) > 1:
        return [argv_source(args)]
    return read_flag_sources(args)


def config_suffix(version: str | Path) -> str | None:
    """The `config_suffix` of the pin's index of configs (CONFIG_SUFFIX where it has none): all a
    flag string's check asks of the index, kept in the data cache beside it."""
    path = index_path(version)
    if not path.is_file():
        return CONFIG_SUFFIX

    def read() -> str | None:
        from flaglint.schema.config_index import load_index  # noqa: PLC0415 the whole index: only when the cache lacks its suffix

        return load_index(version).config_suffix

    return cached("suffix", [path], read, encode=lambda suffix: [suffix], decode=_suffix)


def _suffix(data: list) -> str | None:
    (suffix,) = data
    if suffix is not None and not isinstance(suffix, str):
        raise TypeError("a config suffix is a string")
    return suffix


# A word with no `=` that ends so, or holds a `/`, names a file: one that is not there was mistyped.
PATH_SUFFIXES = (".flags", ".env", ".txt", CONFIG_SUFFIX, ".yaml", ".sh")


def _refuse_missing_path(word: str) -> None:
    """A directory, or a word that names a file that is not there, is no flag string."""
    if "=" in word or word == "-":
        return
    if os.path.isdir(word):
        raise InputError(f"{word}: cannot read ({os.strerror(errno.EISDIR)})")
    if (word.endswith(PATH_SUFFIXES) or "/" in word) and not os.path.exists(word):
        raise InputError(f"{word}: cannot read ({os.strerror(errno.ENOENT)})")


def config_source(config: str, words: tuple[str, ...] | list[str], version: str | Path) -> FlagSource:
    """MaxText's argv with its config file: the file's chain under the argv words."""
    from flaglint.render.yaml_chain import config_node, load_chain  # noqa: PLC0415 yaml: only for a config file
    from flaglint.schema.config_index import load_index  # noqa: PLC0415 the whole index: only for a config file

    index = load_index(version)
    return argv_source(words).replace(chain=load_chain(config_node(config, index), index))

"""What `flaglint check` and `flaglint show` were given, as the sources MaxText would read.

`check CONFIG.yml key=value …` and `check k=v k=v …` (two or more words) are MaxText's own argv:
each word whole, the .yml its base_config chain. One argument alone is a MAXTEXT_EXTRA_FLAGS string
(whitespace-split, as Tunix splits it), `-` (stdin) or the NAME of a set variable.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from flaglint.core.findings import InputError
from flaglint.read.argv import argv_source
from flaglint.read.flags import FlagSource, read_flag_sources
from flaglint.schema.config_index import load_index

CONFIG_SUFFIX = ".yml"  # pyconfig takes argv[1] as the config file only when it ends so


def check_sources(args: tuple[str, ...], version: str | Path) -> list[FlagSource]:
    if args and args[0].endswith(".yaml") and Path(args[0]).is_file():
        raise InputError(f"{args[0]}: MaxText takes its first argument as the config file only when the name ends in "
                         f"{CONFIG_SUFFIX} (it would read this one as an undefined key); rename it")
    if args and args[0].endswith(CONFIG_SUFFIX):
        return [config_source(args[0], args[1:], version)]
    if len(args) > 1:
        return [argv_source(args)]
    return read_flag_sources(args)


def config_source(config: str, words: tuple[str, ...] | list[str], version: str | Path) -> FlagSource:
    """MaxText's argv with its config file: the file's chain under the argv words."""
    from flaglint.render.yaml_chain import config_node, load_chain  # noqa: PLC0415 yaml: only for a config file

    index = load_index(version)
    return replace(argv_source(words), chain=load_chain(config_node(config, index), index))

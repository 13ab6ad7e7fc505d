"""Tunix command lines: `python -m tunix.cli.<entry> ARGS` (or a path ending in
`tunix/cli/<entry>.py`), after wrappers as MaxText's are found, and what absl makes of ARGS first.

absl's app.run parses every word that starts with '-' as a flag of the program, anywhere in ARGS
until a `--` word, removes the flags it knows and exits on one it does not (FATAL Flags parsing
error). Tunix then reads what is left: argv[0], the program's path (with `-m`, the module's file),
and the base YAML and overrides after it. The program reads the `T_<KEY>` variables of its
environment and HF_TOKEN.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from flaglint.core.python_command import python_targets
from flaglint.core.reading import CONFIG_FILE, Unreadable, read_file

PACKAGE = "tunix.cli."
ENV_PREFIX = "T_"  # every release's (schemas/tunix-<version>.json merge.env_prefix)
HF_TOKEN = "HF_TOKEN"
TUNIX_BASE_SUFFIX = ".yaml"
# The flags absl itself defines (absl.app, absl.logging, absl.flags), name -> whether it takes a
# value; a program's own (`--pathways_bns`) are read from its source by the importer.
ABSL_FLAGS = {
    "flagfile": True, "undefok": True, "logtostderr": False, "alsologtostderr": False, "log_dir": True,
    "verbosity": True, "v": True, "logger_levels": True, "stderrthreshold": True, "showprefixforinfo": False,
    "run_with_pdb": False, "pdb_post_mortem": False, "pdb": False, "run_with_profiling": False, "profile_file": True,
    "use_cprofile_for_profiling": False, "only_check_args": False, "help": False, "helpshort": False, "helpfull": False,
    "helpxml": False, "?": False,
}


@dataclass(frozen=True)
class TunixCommand:
    entry: str  # the module's last part: grpo_main
    program: str  # argv[0] as Tunix sees it
    start: int  # the index of the first word after the module (argv[1] before absl)


def recognise_tunix(words: list[str]) -> TunixCommand | None:
    """The tunix.cli entry point these words run, or None."""
    for kind, name, start in python_targets(words):
        if kind == "module" and name.startswith(PACKAGE) and "." not in name[len(PACKAGE):]:
            entry = name[len(PACKAGE):]
            return TunixCommand(entry, f"tunix/cli/{entry}.py", start)
        parts = name.removesuffix(".py").split("/")
        if kind == "script" and name.endswith(".py") and len(parts) >= 3 and parts[-3:-1] == ["tunix", "cli"]:
            return TunixCommand(parts[-1], name, start)
    return None


@dataclass(frozen=True)
class AbslWord:
    """A word absl refuses: its index among the words and the flag's name."""

    at: int
    flag: str


def absl_parse(words: list[str], own: dict[str, bool]) -> tuple[list[int], list[AbslWord]]:
    """The indices of the words Tunix gets after absl (the flags it knows removed), and the words
    it stops on. `own`: the program's own flags (name -> takes a value)."""
    known = {**ABSL_FLAGS, **own}
    kept: list[int] = []
    refused: list[AbslWord] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word == "--":
            kept.extend(range(at + 1, len(words)))
            break
        if not word.startswith("-") or word == "-":
            kept.append(at)
            at += 1
            continue
        name, equals, _ = word.lstrip("-").partition("=")
        takes_value = known.get(name)
        if takes_value is None and name.startswith("no") and known.get(name[2:]) is False:
            takes_value = False
        if takes_value is None:
            refused.append(AbslWord(at, name))
        elif takes_value and not equals:
            at += 1  # `--log_dir DIR`: the value is the next word
        at += 1
    return kept, refused


def suggested_override(word: str) -> str | None:
    """`--model_config.model_source=maxtext` meant as the config override without the dashes."""
    bare = word.lstrip("-")
    return bare if "=" in bare and not bare.startswith("=") else None


class TunixLaunches:
    """Tunix's launches as the bash evaluator is told of them (render.bash.types.LaunchRecogniser)
    for the variables: the program reads T_<KEY> and HF_TOKEN from its environment."""

    def reads_variable(self, name: str) -> bool:
        return name.startswith(ENV_PREFIX) or name == HF_TOKEN


def is_tunix_argv(args: tuple[str, ...], base_names: Callable[[], frozenset[str]]) -> bool:
    """Whether `flaglint check ARGS` names a Tunix command line: a program that runs tunix.cli, or
    a Tunix base YAML first (`BASE.yaml k=v …`): one of the pin's base files by name, or a file
    with a top-level `model_config:` section. Another `.yaml` is left to MaxText's argv, which
    says that MaxText reads only a `.yml`. `base_names` is called only for a `.yaml` first (it
    loads the Tunix pin)."""
    if not args:
        return False
    if recognise_tunix(list(args)) is not None:
        return True
    first = Path(args[0])
    if not args[0].endswith(TUNIX_BASE_SUFFIX):
        return False
    if first.name in base_names():
        return True
    try:
        return os.path.isfile(first) and re.search(r"^model_config:", read_file(first, CONFIG_FILE).decode("utf-8", "replace"), re.M) is not None
    except Unreadable:
        return False

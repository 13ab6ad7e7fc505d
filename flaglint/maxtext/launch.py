"""MaxText command lines: which words of a command run one of MaxText's entry points, its config
argument, the key=value words pyconfig reads, and the M_<KEY> variables of its environment.

Recognised: `python3 -m maxtext.<module>` (also `MaxText.<module>`, the older package name), a
script path ending in `maxtext/<module path>.py` or `MaxText/train.py`, after wrappers such as
`env K=V`, `uv run`, `timeout 1h` or `numactl …`. The entry points are the modules of the pin
that hand their argv to pyconfig (schema/config_index.py); argv[1] is the config only when it ends
in `.yml`, otherwise the module's own default config (rl.yml, sft.yml, …) is used. An XPK
`--command "…"` string holds such a command line: its text is split into shell words again.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from flaglint.core.python_command import is_python, python_target
from flaglint.schema.config_index import ConfigIndex, EntryPoint

_PACKAGES = ("maxtext", "MaxText")
TRAIN = "maxtext.trainers.pre_train.train"  # what the older `MaxText.train` / MaxText/train.py became
# Programs whose command line may start MaxText: python itself, XPK, and wrappers that run a command.
_LAUNCHERS = {"xpk", "xpk.py", "env", "uv", "timeout", "nohup", "numactl", "sudo", "time", "taskset", "srun", "mpirun",
              "docker", "podman"}
KEY_VARIABLE_PREFIX = "M_"  # pyconfig reads M_<KEY> of its environment as the key's value


def may_launch(program: str) -> bool:
    name = posixpath.basename(program)
    return name in _LAUNCHERS or is_python(name)


def is_key_variable(name: str) -> bool:
    """Whether MaxText reads this variable of its environment (as a key's value)."""
    return name.startswith(KEY_VARIABLE_PREFIX)


class MaxTextLaunches:
    """MaxText's launches as the bash evaluator is told of them (render.bash.types.LaunchRecogniser):
    python or a launcher may start MaxText, which reads the M_<KEY> variables of its environment."""

    def may_launch(self, program: str) -> bool:
        return may_launch(program)

    def reads_variable(self, name: str) -> bool:
        return is_key_variable(name)


MAXTEXT_LAUNCHES = MaxTextLaunches()


@dataclass(frozen=True)
class MaxTextCommand:
    module: str  # as the pin names it
    start: int  # index of the first argv word after the module (argv[1])
    entry: EntryPoint | None  # None: the pin has no such entry point
    config: str | None  # argv[1] when it ends in .yml
    args: tuple[int, ...]  # indices of the words pyconfig reads as key=value

    @property
    def default_config(self) -> str:
        return self.entry.config if self.entry is not None else "base.yml"


def recognise(words: list[str], index: ConfigIndex | None) -> MaxTextCommand | None:
    """The MaxText entry point these words run, or None (another program: ignored)."""
    target = python_target(words)
    if target is None:
        return None
    kind, name, start = target
    module = _module_name(name) if kind == "module" else _module_of_path(name)
    if module is None:
        return None
    entries = index.entry_points if index is not None else {}
    entry = entries.get(module)
    if entry is None and entries:
        return None  # a module of MaxText that does not read a config from argv
    config = words[start] if start < len(words) and words[start].endswith(".yml") else None
    first = start + (1 if config is not None else 0)
    return MaxTextCommand(module, start, entry, config, tuple(range(first, len(words))))


def _module_name(name: str) -> str | None:
    package, _, rest = name.partition(".")
    if package not in _PACKAGES or not rest:
        return None
    return TRAIN if rest == "train" else f"maxtext.{rest}"


def _module_of_path(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    parts = path.removesuffix(".py").split("/")
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] in _PACKAGES:
            return _module_name(".".join(parts[at:]))
    return None


def xpk_command(words: list[str]) -> str | None:
    """The text of `--command` (or `--command=…`) in an `xpk workload create` command line."""
    if "xpk" not in (posixpath.basename(w) for w in words[:3]) and not any(w.endswith("xpk.py") for w in words[:3]):
        return None
    for at, word in enumerate(words):
        if word == "--command" and at + 1 < len(words):
            return words[at + 1]
        if word.startswith("--command="):
            return word.split("=", 1)[1]
    return None

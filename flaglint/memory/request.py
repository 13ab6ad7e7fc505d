"""What to compile: the pinned MaxText's ahead-of-time compile module, with the argv of the config
flaglint resolved, for a topology and a number of slices.

The argv is the config file MaxText starts from (the user's, whose base_config chain MaxText
follows itself, or one of MaxText's own) and, as key=value words, every key the flags, Tunix's
variables, an `M_` variable or `--model` set; the keys the config files and the model file set are
left to MaxText, which reads those files. The key of a verdict is all of it, with the effective
value of every key set anywhere, the versions of the compile environment and the runner.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import asdict, dataclass
from typing import Any

from flaglint.core.findings import InputError
from flaglint.core.reading import CONFIG_FILE, read_file
from flaglint.maxtext.values import format_value
from flaglint.read.config_chain import PIN_LABEL
from flaglint.resolve.resolver import Config

# MaxText's own compile module: it moved into maxtext.trainers.pre_train in 0.2.2 (0.2.0 and 0.2.1
# ship both)
_MODULE_BEFORE_022 = "MaxText.train_compile"
_MODULE = "maxtext.trainers.pre_train.train_compile"
# Variables of the job's environment the compiler reads
COMPILER_VARIABLES = ("LIBTPU_INIT_ARGS", "XLA_FLAGS")
_ORIGINS_ON_ARGV = ("flags", "tunix:", "env:")


@dataclass(frozen=True)
class CompileRequest:
    module: str
    argv: tuple[str, ...]  # argv[1:] of the module: the config file, then key=value words
    topology: str
    slices: int
    env: tuple[tuple[str, str], ...]  # the compiler's variables the job sets
    effective: str  # the effective value of every key set anywhere, as JSON: part of the verdict's key

    runner = "compile_runner.py"

    def runner_input(self) -> dict[str, Any]:
        return {"module": self.module, "argv": [*self.argv, f"compile_topology={self.topology}",
                                                f"compile_topology_num_slices={self.slices}"], "env": dict(self.env)}

    def key(self, pin: str, environment: dict[str, str], runner: str) -> str:
        """The verdict's key: this request at PIN, compiled in ENVIRONMENT (its versions) by RUNNER (its text)."""
        text = json.dumps([pin, asdict(self), sorted(environment.items()), zlib.crc32(runner.encode())], sort_keys=True)
        return f"{zlib.crc32(text.encode()):08x}{zlib.adler32(text.encode()):08x}"


def compile_module(release: str) -> str:
    parts = tuple(int(p) for p in release.split(".")[:3] if p.isdigit())
    return _MODULE if parts >= (0, 2, 2) else _MODULE_BEFORE_022


def compile_request(config: Config, release: str, topology: str, slices: int, env: dict[str, str]) -> CompileRequest:
    """The compile of CONFIG (resolved at the pin of RELEASE) for SLICES slices of TOPOLOGY."""
    first = config.chain.files[0] if config.chain is not None else f"{PIN_LABEL}/base.yml"
    # MaxText's own config is named by its place in the installed package (compile_runner.py finds it)
    config_file = first if first.startswith(f"{PIN_LABEL}/") else os.path.abspath(first)
    words = [f"{key}={_written(assignment)}" for key, assignment in config.explicit.items()
             if assignment.origin.startswith(_ORIGINS_ON_ARGV)]
    if config.model is not None and "model_name" not in {word.partition("=")[0] for word in words}:
        words.append(f"model_name={config.model}")
    effective = {key: format_value(assignment.value) for key, assignment in sorted(config.explicit.items())}
    own = [path for path in (config.chain.files if config.chain is not None else []) if not path.startswith(f"{PIN_LABEL}/")]
    if own:  # their text as well: a key MaxText reads that flaglint's schema lacks (MaxText's own files are the pin's)
        effective["config files"] = [_crc(path) for path in own]
    return CompileRequest(compile_module(release), (config_file, *words), topology, slices,
                          tuple((name, env[name]) for name in COMPILER_VARIABLES if name in env),
                          json.dumps(effective, sort_keys=True, default=str))


def _written(assignment) -> str:
    return assignment.token.value if assignment.token is not None and assignment.token.value is not None else format_value(assignment.value)


def _crc(path: str) -> str:
    try:
        return f"{path}:{zlib.crc32(read_file(path, CONFIG_FILE)):08x}"
    except InputError:
        return path  # a file the script writes: its keys are in the effective values

"""The bundled log-prob head at a launch's per-device sizes: the program the recipe's head settings
select (TUNIX_LOGPS_SHARDED_HEAD, COMPUTE_LOGPS_CHUNK_SIZE) and the other one, compiled for one
chip of the launch's generation (jax and libtpu only: flaglint/memory/head_runner.py).

Tokens per chip are MaxText's per_device_batch_size times max_target_length; the hidden size and
vocabulary are the model's (base_emb_dim, vocab_size), in its activation dtype.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path

from flaglint.core.findings import InputError
from flaglint.core.reading import DATA_FILE, read_file
from flaglint.resolve.resolver import Config
from flaglint.trainer.settings import (
    DEFAULT_CHUNK_SIZE,
    parse_head_mode,
    parse_positive_int,
    scoring_mode,
)

# One chip of each generation, as jax.experimental.topologies names it
_ONE_CHIP = {"v4": "v4:1x1x1", "v5e": "v5e:1x1", "v5litepod": "v5e:1x1", "v5p": "v5p:1x1x1", "v6e": "v6e:1x1",
             "tpu7x": "tpu7x:1x1x1"}
_OTHER = {"local": "fused", "fused": "local"}
HEAD_VARIABLES = ("TUNIX_LOGPS_SHARDED_HEAD", "COMPUTE_LOGPS_CHUNK_SIZE")
HEAD_FILE = Path(__file__).resolve().parents[1] / "trainer" / "head.py"


@dataclass(frozen=True)
class HeadRequest:
    mode: str  # "local" or "fused"
    chunk_size: int
    tokens: int  # per chip
    hidden: int
    vocab: int
    dtype: str
    chip: str

    runner = "head_runner.py"

    def runner_input(self) -> dict:
        return {**asdict(self), "flaglint_root": str(HEAD_FILE.parents[2])}

    def key(self, pin: str, environment: dict[str, str], runner: str) -> str:
        # the head's code, not the pin, decides the program
        text = json.dumps([asdict(self), sorted(environment.items()), zlib.crc32(runner.encode() + read_file(HEAD_FILE, DATA_FILE))])
        return f"head-{zlib.crc32(text.encode()):08x}{zlib.adler32(text.encode()):08x}"

    @property
    def described(self) -> str:
        return (f"the {self.mode} log-prob head (chunks of {self.chunk_size}) at {self.tokens:,} tokens a chip, hidden "
                f"{self.hidden:,}, vocabulary {self.vocab:,}, {self.dtype}")


def head_requests(config: Config, env: dict[str, str], topology: str) -> list[HeadRequest]:
    """The recipe's head program first, then the other mode's, at CONFIG's sizes on one chip of TOPOLOGY."""
    try:
        mode = scoring_mode(parse_head_mode(env.get(HEAD_VARIABLES[0])))
        chunk = parse_positive_int(HEAD_VARIABLES[1], env.get(HEAD_VARIABLES[1]), DEFAULT_CHUNK_SIZE)
    except ValueError as err:
        raise InputError(str(err)) from None
    generation = topology.split(":")[0].split("-")[0]
    chip = _ONE_CHIP.get(generation)
    if chip is None:
        raise InputError(f"--head: no single chip of {topology!r} is known here (TPU generations: {', '.join(sorted(_ONE_CHIP))})")
    tokens = int(config.lookup("per_device_batch_size") * config.lookup("max_target_length"))
    if tokens < 1:
        raise InputError(f"--head: per_device_batch_size x max_target_length is {tokens} tokens a chip; the head needs at least one")
    sizes = dict(tokens=tokens, hidden=int(config.lookup("base_emb_dim")), vocab=int(config.lookup("vocab_size")),
                 dtype=str(config.lookup("dtype")), chip=chip, chunk_size=chunk)
    return [HeadRequest(mode=mode, **sizes), HeadRequest(mode=_OTHER[mode], **sizes)]

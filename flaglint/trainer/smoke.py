"""Run the trainer core at toy sizes with exactly the settings a recipe renders.

`run_smoke` reads the Tunix variables, runs the log-prob head and the packer on CPU, and returns
why a setting would fail or silently do nothing, each with the variable to change (an empty list
when everything passes). Reading the settings needs no jax (settings.read_settings).
"""

from __future__ import annotations

from typing import Mapping

import jax
import jax.numpy as jnp
import numpy as np

from flaglint.trainer.head import per_token_logps
from flaglint.trainer.packing import Item, pack
from flaglint.trainer.settings import (
    Problem,
    SmokeSettings,
    assembler_problems,
    check_pad_settings,
    read_settings,
    scoring_mode,
)

# google/tunix#2884: without the sharded head, the log-prob program failed to compile on TPU at chunks of
# 2,048 and 4,096, which is why the recipe falls back to 1,024 when the head is off.
UNSHARDED_MAX_CHUNK = 1024
# The head runs on chunk_size / TOY_SCALE tokens per chunk, over two and a half chunks.
TOY_SCALE = 64
TOY_HIDDEN, TOY_VOCAB = 16, 384


def run_smoke(env: Mapping[str, str]) -> list[Problem]:
    """Why these settings would fail or do nothing; empty when the core runs and checks out."""
    settings, problems = read_settings(env)
    if settings is None:
        return problems
    packed = settings.row_length != 0
    problems += assembler_problems(settings.pad_position, settings.pad_align, packed=packed, row_length=settings.row_length)
    try:
        check_pad_settings(settings.pad_position, settings.pad_align, settings.segment_align_multiple)
    except ValueError as error:
        problems.append(Problem("PACK_PAD_ALIGN", f"PACK_PAD_ALIGN={settings.pad_align}: {error}"))
        return problems
    if settings.head_mode == "off" and settings.chunk_size > UNSHARDED_MAX_CHUNK:
        problems.append(Problem("COMPUTE_LOGPS_CHUNK_SIZE",
            f"COMPUTE_LOGPS_CHUNK_SIZE={settings.chunk_size} with the sharded head off "
            f"(TUNIX_LOGPS_SHARDED_HEAD unset or off): the unsharded log-prob program failed to compile on TPU "
            f"at chunks of 2048 and 4096; use {UNSHARDED_MAX_CHUNK} or turn the head on"
        ))
    with jax.default_device(jax.devices("cpu")[0]):
        problems += [Problem("TUNIX_LOGPS_SHARDED_HEAD", reason) for reason in _smoke_head(settings)]
    if packed and not problems:
        problems += [Problem("PACK_PAD_POSITION", reason) for reason in _smoke_packer(settings)]
    return problems


def _smoke_head(settings: SmokeSettings) -> list[str]:
    """The recipe's scoring program against the local one on a toy head, values and gradients."""
    chunk = max(1, settings.chunk_size // TOY_SCALE)
    n = 2 * chunk + max(1, chunk // 2)
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    hidden = jax.random.normal(keys[0], (n, TOY_HIDDEN)) * 2.0
    weight = jax.random.normal(keys[1], (TOY_HIDDEN, TOY_VOCAB)) / np.sqrt(TOY_HIDDEN)
    targets = jax.random.randint(keys[2], (n,), 0, TOY_VOCAB)
    advantages = jnp.linspace(-1.0, 1.0, n)
    mode = scoring_mode(settings.head_mode)

    def run(program):
        def loss(h, w):
            logps, entropy = per_token_logps(h, w, targets, mode=program, chunk_size=chunk, temperature=0.7,
                                             return_entropy=True)
            return jnp.sum(advantages * logps), (logps, jax.lax.stop_gradient(entropy))

        (_, (logps, entropy)), grads = jax.jit(jax.value_and_grad(loss, argnums=(0, 1), has_aux=True))(hidden, weight)
        return [np.asarray(x) for x in (logps, entropy, *grads)]

    reference = run("local")
    ours = run(mode) if mode != "local" else reference
    names = ("log-probs", "entropy", "hidden gradient", "weight gradient")
    reasons = []
    for name, want, got in zip(names, reference, ours):
        if not np.all(np.isfinite(got)):
            reasons.append(f"the {mode} head gave non-finite {name} at COMPUTE_LOGPS_CHUNK_SIZE={settings.chunk_size}")
        elif np.max(np.abs(want - got)) > 1e-5 * max(1.0, np.max(np.abs(want))):
            reasons.append(f"the {mode} head's {name} differ from the local head's")
    return reasons


def _smoke_packer(settings: SmokeSettings) -> list[str]:
    """Pack random items at the recipe's row length both ways; check "start" is "end" moved, and that it moves."""
    row_length = settings.row_length or 4 * settings.pad_align
    align = settings.segment_align_multiple
    rng = np.random.default_rng(0)
    lengths = [row_length - settings.pad_align - 1 if settings.pad_align + 1 < row_length else row_length // 2]
    lengths += list(rng.integers(1, max(2, row_length // 3), size=7))
    items = [
        Item(rng.integers(1, 1000, size=length // 2).astype(np.int32),
             rng.integers(1, 1000, size=length - length // 2).astype(np.int32),
             np.ones(length - length // 2, np.int32), float(rng.normal()),
             rng.normal(size=length - length // 2).astype(np.float32),
             rng.integers(0, 64, size=(length, 2)).astype(np.int32))
        for length in lengths
    ]
    common = dict(row_length=row_length, segment_align_multiple=align)
    end = pack(items, **common)
    if settings.pad_position == "end":
        return []
    start = pack(items, pad_position="start", pad_align=settings.pad_align, **common)
    moved = False
    for r in range(end.ids.shape[0]):
        tokens = np.flatnonzero(end.segment_ids[r])
        shift = (row_length - 1 - tokens[-1]) // settings.pad_align * settings.pad_align
        moved |= shift > 0
        for name, array in end.token_arrays().items():
            if not np.array_equal(start.token_arrays()[name][r], np.roll(array[r], shift, axis=0)):
                return [f"PACK_PAD_POSITION=start: row {r}'s {name} is not the end-padded row moved by {shift}"]
    if not moved:
        return [
            f"PACK_PAD_POSITION=start with PACK_PAD_ALIGN={settings.pad_align} and rows of {row_length} tokens: "
            "no row of a random batch carries that much trailing padding, so it would (almost) never move a row"
        ]
    return []

"""Benchmark the trainer core: the log-prob head's compiled memory, cost and wall time, and the packer's throughput.

    python bench/trainer_bench.py            # the full grid (compile-only where running would be too heavy)
    python bench/trainer_bench.py --quick    # vocab 32,768 timed, and the scan comparison at 248,320

The head is measured as a GRPO step differentiates it: value_and_grad of sum(advantages * log-probs)
with the entropy returned but not differentiated. "one" is a single chunk of C tokens; "scan" is
lax.scan over 4 chunks. Temp is compiled.memory_analysis().temp_size_in_bytes. XLA's cost analysis
counts a loop body once, so flops and transcendentals are per chunk. Targets: fused temp <= 0.67 x
local for one chunk, and fused <= local+remat inside the scan.
"""

from __future__ import annotations

import argparse
import itertools
import time

import jax
import jax.numpy as jnp
import numpy as np

from flaglint.trainer.head import per_token_logps
from flaglint.trainer.packing import Item, pack

HIDDEN = 256
SCAN_CHUNKS = 4
MODES = (("local", False), ("local+remat", True), ("fused", False))
# Run (not only compile) a program when its largest [C, V] f32 buffer stays under this.
RUN_LIMIT_BYTES = 600 * 2**20


def head_step(mode, remat, chunk):
    program = "fused" if mode == "fused" else "local"

    def loss(hidden, weight, targets, advantages):
        logps, entropy = per_token_logps(hidden, weight, targets, mode=program, chunk_size=chunk, remat=remat,
                                         return_entropy=True)
        return jnp.sum(advantages * logps), jax.lax.stop_gradient(entropy)

    return jax.jit(jax.value_and_grad(loss, argnums=(0, 1), has_aux=True))


def measure(mode, remat, vocab, chunk, dtype, chunks, timed):
    n = chunk * chunks
    shapes = (jax.ShapeDtypeStruct((n, HIDDEN), dtype), jax.ShapeDtypeStruct((HIDDEN, vocab), dtype),
              jax.ShapeDtypeStruct((n,), jnp.int32), jax.ShapeDtypeStruct((n,), jnp.float32))
    step = head_step(mode, remat, chunk)
    compiled = step.lower(*shapes).compile()
    cost = compiled.cost_analysis()
    row = dict(temp=compiled.memory_analysis().temp_size_in_bytes, flops=cost.get("flops", 0.0),
               trans=cost.get("transcendentals", 0.0), wall=None)
    if timed:
        keys = jax.random.split(jax.random.PRNGKey(0), 3)
        args = (jax.random.normal(keys[0], (n, HIDDEN)).astype(dtype),
                (jax.random.normal(keys[1], (HIDDEN, vocab)) / 16).astype(dtype),
                jax.random.randint(keys[2], (n,), 0, vocab), jnp.linspace(-1, 1, n))
        jax.block_until_ready(compiled(*args))
        start = time.perf_counter()
        jax.block_until_ready(compiled(*args))
        row["wall"] = time.perf_counter() - start
    return row


def head_table(grid):
    print(f"{'layout':6} {'vocab':>7} {'chunk':>5} {'dtype':8} {'mode':12} {'temp MiB':>9} {'ratio':>6} "
          f"{'GFLOP':>8} {'Gtrans':>7} {'wall s':>7}")
    for layout, vocab, chunk, dtype in grid:
        chunks = 1 if layout == "one" else SCAN_CHUNKS
        timed = chunk * vocab * 4 <= RUN_LIMIT_BYTES
        rows = {mode: measure(mode, remat, vocab, chunk, dtype, chunks, timed) for mode, remat in MODES}
        # One chunk: fused against local. Scan: fused against local+remat (and each against local).
        base = rows["local"]["temp"] if layout == "one" else rows["local+remat"]["temp"]
        for mode, _ in MODES:
            r = rows[mode]
            wall = f"{r['wall']:7.2f}" if r["wall"] is not None else "      -"
            print(f"{layout:6} {vocab:7d} {chunk:5d} {jnp.dtype(dtype).name:8} {mode:12} {r['temp'] / 2**20:9.0f} "
                  f"{r['temp'] / base:6.3f} {r['flops'] / 1e9:8.1f} {r['trans'] / 1e9:7.3f} {wall}")


def packer_throughput(total_tokens=1_000_000, row_length=65536, align=64):
    rng = np.random.default_rng(0)
    items, tokens = [], 0
    while tokens < total_tokens:
        prompt, completion = int(rng.integers(64, 2048)), int(rng.integers(64, 8192))
        items.append(Item(rng.integers(0, 248320, prompt, dtype=np.int32),
                          rng.integers(0, 248320, completion, dtype=np.int32),
                          rng.integers(0, 2, completion, dtype=np.int32), float(rng.normal()),
                          rng.normal(size=completion).astype(np.float32),
                          rng.integers(0, 512, (prompt + completion, 8), dtype=np.int32)))
        tokens += prompt + completion
    print(f"\npacker: {len(items)} items, {tokens} tokens, rows of {row_length}, segment alignment {align}")
    for position in ("end", "start"):
        start = time.perf_counter()
        rows = pack(items, row_length=row_length, segment_align_multiple=align, pad_position=position)
        elapsed = time.perf_counter() - start
        print(f"  {position:5}: {rows.ids.shape[0]} rows in {elapsed:.3f} s, {tokens / elapsed / 1e6:.2f} M tokens/s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="vocab 32,768 timed, plus the scan at 248,320")
    parser.add_argument("--skip-packer", action="store_true")
    args = parser.parse_args()
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}, hidden {HIDDEN}")
    if args.quick:
        grid = [(layout, 32768, 1024, dtype) for layout in ("one", "scan") for dtype in (jnp.float32, jnp.bfloat16)]
        grid += [("scan", 248320, 1024, dtype) for dtype in (jnp.float32, jnp.bfloat16)]
    else:
        grid = list(itertools.product(("one", "scan"), (32768, 248320), (1024, 4096), (jnp.float32, jnp.bfloat16)))
    head_table(grid)
    if not args.skip_packer:
        packer_throughput()


if __name__ == "__main__":
    main()

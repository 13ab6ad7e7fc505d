"""The bundled log-prob head's memory on a real TPU chip against what `flaglint memory --head` predicts.

    python bench/head_chip.py chip                 # on a machine with a TPU: compile, run, read the chip
    python bench/head_chip.py predict v5e:1x1      # anywhere libtpu is (the compile environment): compile only
    python bench/head_chip.py table CHIP.json PREDICTED.json   # the markdown table of the two

The program is the one `flaglint memory --head` compiles (flaglint/memory/head_runner.py):
value_and_grad of -sum(log-probs) with respect to the hidden states and the head's weight, bf16,
hidden 4,096, vocabulary 151,936, chunks of 4,096 tokens. Each case runs in a process of its own,
so that the chip's peak is that case's alone. Writes one JSON object per case to stdout.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

HIDDEN, VOCAB, CHUNK = 4096, 151936, 4096
TOKENS = (4096, 8192, 16384, 32768)
MODES = ("local", "fused")
GIB = 2**30


def one_case(where: str, mode: str, tokens: int) -> dict:
    import time  # noqa: PLC0415 this process runs one case only

    import jax  # noqa: PLC0415 the same
    import jax.numpy as jnp  # noqa: PLC0415 the same

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from flaglint.trainer.head import per_token_logps  # noqa: PLC0415 the same

    def loss(h, w, t):
        return -jnp.sum(per_token_logps(h, w, t, mode=mode, chunk_size=CHUNK))

    step = jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))
    found = {"mode": mode, "tokens": tokens, "jax": jax.__version__, "libtpu": _libtpu_version()}
    if where == "chip":
        device = jax.devices()[0]
        found["device"] = device.device_kind
        keys = jax.random.split(jax.random.key(0), 3)
        args = (jax.random.normal(keys[0], (tokens, HIDDEN), jnp.bfloat16),
                (jax.random.normal(keys[1], (HIDDEN, VOCAB), jnp.float32) * HIDDEN**-0.5).astype(jnp.bfloat16),
                jax.random.randint(keys[2], (tokens,), 0, VOCAB, jnp.int32))
        jax.block_until_ready(args)
        before = device.memory_stats() or {}
        found["in_use_before"] = before.get("bytes_in_use")
    else:
        from jax.experimental import topologies  # noqa: PLC0415 the same

        device = topologies.get_topology_desc(platform="tpu", topology_name=where, chip_config_name="default",
                                              chips_per_host_bounds=(1, 1, 1), num_slices=1).devices[0]
        on_chip = jax.sharding.SingleDeviceSharding(device)
        args = (jax.ShapeDtypeStruct((tokens, HIDDEN), jnp.bfloat16, sharding=on_chip),
                jax.ShapeDtypeStruct((HIDDEN, VOCAB), jnp.bfloat16, sharding=on_chip),
                jax.ShapeDtypeStruct((tokens,), jnp.int32, sharding=on_chip))
    try:
        compiled = step.lower(*args).compile()
    except Exception as err:  # the compiler's refusal is the measurement
        found["error"] = str(err).splitlines()[0][:300]
        return found
    stats = compiled.memory_analysis()
    found["peak_memory_in_bytes"] = int(getattr(stats, "peak_memory_in_bytes", 0) or 0)
    found["temp_size_in_bytes"] = int(stats.temp_size_in_bytes)
    if where == "chip":
        try:
            value, grads = compiled(*args)
            jax.block_until_ready(grads)
            times = []
            for _ in range(5):
                started = time.perf_counter()
                jax.block_until_ready(compiled(*args))
                times.append(time.perf_counter() - started)
            found["step_ms"] = round(sorted(times)[2] * 1000, 2)
            found["loss"] = float(value)
        except Exception as err:  # the chip's refusal is the measurement
            found["error"] = str(err).splitlines()[0][:300]
        stats_after = device.memory_stats() or {}
        found["chip_limit_bytes"] = stats_after.get("bytes_limit")
        if "error" not in found and found["chip_limit_bytes"]:
            found["chip_need_bytes"] = _chip_need(compiled, args, device, found["chip_limit_bytes"])
    return found


def _chip_need(compiled, args, device, limit: int) -> int:
    """What one step needs of the chip beyond the arguments already on it: the chip's limit less
    what is in use and less the largest ballast beside which the step still runs (64 MiB steps)."""
    import jax  # noqa: PLC0415 the same
    import jax.numpy as jnp  # noqa: PLC0415 the same

    in_use = device.memory_stats()["bytes_in_use"]
    step, low, high = 64 * 2**20, 0, (limit - in_use) // (64 * 2**20)
    while low < high:
        middle = (low + high + 1) // 2
        try:
            ballast = jax.device_put(jnp.zeros((middle * step,), jnp.int8), device)
            jax.block_until_ready(compiled(*args))
            low = middle
        except Exception:  # the chip's refusal: the step does not run beside this much
            high = middle - 1
        finally:
            ballast = None  # noqa: F841 freed before the next try
    return limit - in_use - low * step


def _libtpu_version() -> str | None:
    from importlib import metadata  # noqa: PLC0415 the same

    for name in ("libtpu", "libtpu-nightly"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return None


def table(chip_path: str, predicted_path: str) -> str:
    def load(path):
        return {(r["mode"], r["tokens"]): r for r in map(json.loads, Path(path).read_text().splitlines()) if r}

    chip, predicted = load(chip_path), load(predicted_path)

    def cell(r, key):
        if "error" in r and not r.get(key):
            found = re.search(r"\(([\d.]+G)\) exceeds available HBM \(([\d.]+G)\)", r["error"])
            return f"out of memory: {found[1]} of {found[2]}" if found else "refused"
        value = r.get(key)
        return "" if value is None else f"{value / GIB:.2f}"

    rows = ["| head | tokens | predicted peak (GiB) | chip: compiled peak (GiB) | chip: compiled peak less the inputs "
            "(GiB) | chip: step needs beside the inputs (GiB) | chip: step (ms) |", "|---|---|---|---|---|---|---|"]
    for mode in MODES:
        for tokens in TOKENS:
            c, p = chip.get((mode, tokens), {}), predicted.get((mode, tokens), {})
            less = {"less": c["peak_memory_in_bytes"] - c["in_use_before"]} if c.get("peak_memory_in_bytes") else c
            rows.append(f"| {mode} | {tokens:,} | {cell(p, 'peak_memory_in_bytes')} | {cell(c, 'peak_memory_in_bytes')} "
                        f"| {cell(less, 'less')} | {cell(c, 'chip_need_bytes')} | {c.get('step_ms', '')} |")
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    if argv[0] == "table":
        print(table(argv[1], argv[2]))
        return
    if argv[0] == "case":
        print(json.dumps(one_case(argv[1], argv[2], int(argv[3]))))
        return
    where = "chip" if argv[0] == "chip" else argv[1]
    for mode in MODES:
        for tokens in TOKENS:
            done = subprocess.run([sys.executable, __file__, "case", where, mode, str(tokens)], capture_output=True,
                                  text=True, timeout=300)
            lines = done.stdout.strip().splitlines()
            print(lines[-1] if lines else json.dumps({"mode": mode, "tokens": tokens, "error": done.stderr[-300:]}),
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

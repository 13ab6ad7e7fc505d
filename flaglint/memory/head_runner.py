"""Run inside the compile environment (jax and libtpu; no MaxText), never imported by flaglint:
`python head_runner.py REQUEST.json ANSWER.json`.

It compiles the bundled log-prob head (flaglint/trainer/head.py: the loss over per-token log-probs
and its gradient with respect to the hidden states and the head's weight) ahead of time for one
compile-only chip, in the mode asked for, at the request's per-device sizes, and writes the
program's CompiledMemoryStats, or the compiler's refusal, as compile_runner.py does.
"""

import json
import sys
import traceback

from compile_runner import capacity_message, memory_of, versions


def main():
    given, answer_path = sys.argv[1:3]
    with open(given) as f:
        request = json.load(f)
    sys.path.insert(0, request["flaglint_root"])
    import jax  # noqa: PLC0415 the compile environment's: only a run of this script needs it
    import jax.numpy as jnp  # noqa: PLC0415 the same
    from jax.experimental import topologies  # noqa: PLC0415 the same

    from flaglint.trainer.head import per_token_logps  # noqa: PLC0415 found through flaglint_root, in this environment

    device = topologies.get_topology_desc(platform="tpu", topology_name=request["chip"], chip_config_name="default",
                                          chips_per_host_bounds=(1, 1, 1), num_slices=1).devices[0]
    on_chip = jax.sharding.SingleDeviceSharding(device)
    dtype = jnp.dtype(request["dtype"])
    tokens, hidden, vocab = request["tokens"], request["hidden"], request["vocab"]
    shapes = (jax.ShapeDtypeStruct((tokens, hidden), dtype, sharding=on_chip),
              jax.ShapeDtypeStruct((hidden, vocab), dtype, sharding=on_chip),
              jax.ShapeDtypeStruct((tokens,), jnp.int32, sharding=on_chip))
    answer = {"versions": versions()}

    def loss(h, w, t):
        return -jnp.sum(per_token_logps(h, w, t, mode=request["mode"], chunk_size=request["chunk_size"]))

    try:
        answer["memory"] = memory_of(jax.jit(jax.value_and_grad(loss, argnums=(0, 1))).lower(*shapes).compile())
        answer["capacity_message"] = capacity_message(device)
    except Exception as err:  # the compiler's refusal is the answer
        answer["error"] = "".join(traceback.format_exception_only(type(err), err)).strip()
    with open(answer_path, "w") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()

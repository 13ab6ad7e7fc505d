"""Run inside the compile environment (Python 3.12, MaxText with jax and libtpu), never imported by
flaglint: `python compile_runner.py REQUEST.json ANSWER.json`.

It runs the pinned MaxText's own ahead-of-time compile module as `python -m` would, with the argv
of the request, and keeps the compiled train step: its CompiledMemoryStats (peak_memory_in_bytes
included, which MaxText's printout leaves out) and the HBM one chip of the topology has, which
the compiler states when a program does not fit. What went wrong is written as the exception's
text; flaglint reads the compiler's message from it.
"""

import importlib.util
import json
import os
import runpy
import sys
import traceback
from importlib import metadata

_FIELDS = ("peak_memory_in_bytes", "temp_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes",
           "alias_size_in_bytes", "generated_code_size_in_bytes")
# A program no chip holds: the compiler refuses it, stating the chip's HBM.
_TOO_LARGE = 1 << 46
_OWN_CONFIGS = "maxtext/configs/"  # a config of MaxText's own, named by its place in the package


def versions():
    found = {}
    for name in ("maxtext", "jax", "jaxlib", "libtpu"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return found


def memory_of(compiled):
    stats = compiled.memory_analysis()
    return {name: int(getattr(stats, name)) for name in _FIELDS if getattr(stats, name, None) is not None}


def capacity_message(device):
    """The compiler's out-of-memory message for one chip of the topology (its HBM in it)."""
    import jax  # noqa: PLC0415 the compile environment's, after the job's compiler variables are set
    import jax.numpy as jnp  # noqa: PLC0415 the same

    sharding = jax.sharding.SingleDeviceSharding(device)
    try:
        jax.jit(lambda: jnp.zeros((_TOO_LARGE,), jnp.int8), out_shardings=sharding).lower().compile()
    except Exception as err:  # the compiler's refusal is the answer
        return str(err)
    return None


def _config_path(module, config):
    if not config.startswith(_OWN_CONFIGS):
        return config
    package = os.path.dirname(importlib.util.find_spec(module.split(".")[0]).origin)
    return os.path.join(package, "configs", config[len(_OWN_CONFIGS):])


def main():
    given, answer_path = sys.argv[1:3]  # before sys.argv becomes the compile module's
    with open(given) as f:
        request = json.load(f)
    answer = {"versions": versions()}
    os.environ.update(request["env"])
    import jax.stages  # noqa: PLC0415 the compile environment's, after the job's compiler variables are set

    compiled = []
    original = jax.stages.Lowered.compile

    def keep(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        compiled.append(result)
        return result

    jax.stages.Lowered.compile = keep
    config, *words = request["argv"]
    sys.argv = [request["module"], _config_path(request["module"], config), *words]
    try:
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    except SystemExit as done:
        if done.code not in (None, 0):
            answer["error"] = f"exit status {done.code}"
    except BaseException as err:  # any failure of the compile is the answer, told by its text
        answer["error"] = "".join(traceback.format_exception_only(type(err), err)).strip()
    jax.stages.Lowered.compile = original
    if compiled and "error" not in answer:
        answer["memory"] = memory_of(compiled[-1])
        devices = compiled[-1].input_shardings[0]
        device = next(iter(jax.tree_util.tree_leaves(devices)[0].device_set))
        answer["capacity_message"] = capacity_message(device)
    with open(answer_path, "w") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()

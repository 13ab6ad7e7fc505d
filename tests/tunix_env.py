"""The real Tunix releases for tests that compare against them: per bundled release a Python 3.12
environment where `tunix.cli.config` imports and `HyperParameters` runs ("the oracle").

Built once under <repo>/.cache/ and reused: one base venv with what tunix.cli.config imports (the
versions measured to import on CPU, installed without dependencies so that the set stays fixed),
and per release a venv that sees the base's site-packages (a .pth file) plus the google-tunix
wheel installed without dependencies. The wheels ship no YAML: each release's base YAMLs are
written into its tunix/cli/ from the bundled pin (schemas/tunix-<version>.json: every key and
default of the release's files; comments and anchors are not kept, the values are the same).
Each helper returns None when it cannot be had here (no network, no Python 3.12); callers skip
with the reason `unavailable()` gives.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml
from maxtext_env import (
    CACHE,
    base_site_packages,
    build_steps,
    find_python312,
    locked,
)

from flaglint.tunix.pins import bundled_tunix_pins, load_tunix_pin, nested_defaults

RELEASES = tuple(pin.removeprefix("tunix-") for pin in bundled_tunix_pins())
BASE_DIR = CACHE / "tunix-oracle-base"
# What tunix.cli.config imports at 0.1.0-0.1.7 (tunix.sft, tunix.perf, tunix.utils.mesh and what
# they import: flax, optax, orbax, metrax, transformers, kagglehub, …), pinned as measured.
BASE_PACKAGES = [
    "absl-py==2.5.1", "aiofiles==25.1.0", "annotated-doc==0.0.7", "annotated-types==0.8.0", "anyio==4.16.0",
    "certifi==2026.10.19.post1", "click==8.5.1", "clu==0.0.12", "etils==1.15.0", "filelock==4.3.1", "flax==0.12.12",
    "fsspec==2026.9.0", "google_metrax==0.2.4", "h11==0.16.0", "hf-xet==1.8.0", "httpcore2==2.16.2", "httpx2==2.16.2",
    "huggingface_hub==2.4.0", "humanize==4.17.0", "idna==3.20", "jax==0.12.0.1", "jaxlib==0.12.0.1", "jaxtyping==0.3.11",
    "kagglehub==1.0.3", "kagglesdk==0.1.38", "markdown-it-py==4.3.0", "mdurl==0.1.2", "ml_dtypes==0.7.0", "msgpack==1.2.4",
    "numpy==2.5.5", "omegaconf==2.4.0", "opt_einsum==3.4.0", "optax==0.2.8", "orbax-checkpoint==0.12.8", "packaging==26.4",
    "pandas==3.1.1", "perfetto==0.59.1", "pillow==13.0.0", "prometheus_client==0.26.0", "protobuf==7.36.2", "psutil==7.2.2",
    "pydantic==2.14.4", "pydantic_core==2.50.5", "Pygments==2.21.0", "python-dateutil==4.0.0", "python-dotenv==1.2.4",
    "pytz==2026.6", "PyYAML==6.0.4", "regex==2026.11.19", "requests==2.34.2", "rich==15.0.0", "safetensors==0.8.0",
    "scipy==1.18.1", "sentencepiece==0.2.3", "shellingham==1.5.4", "simplejson==4.3.0", "tensorboardX==2.6.5",
    "tensorstore==0.1.86", "tokenizers==0.23.3", "tqdm==4.70.1", "transformers==5.24.0", "treescope==0.1.10",
    "truststore==0.10.5", "typer==0.29.2", "typing-inspection==0.4.5", "typing_extensions==4.16.0", "tzdata==2026.6",
    "urllib3==2.8.0", "uvloop==0.23.0", "wadler_lindig==0.1.8", "wrapt==2.5.2", "zipp==4.1.2",
]  # fmt: skip

_reasons: dict[str, str] = {}

_DRIVER = """
import json, runpy, sys
with open(sys.argv[2]) as f:
    given = json.load(f)
namespace = runpy.run_path(sys.argv[1], init_globals={"INPUT": given}, run_name="__oracle__")
with open(sys.argv[3], "w") as f:
    json.dump(namespace["OUTPUT"], f)
"""


def unavailable(version: str) -> str:
    return _reasons.get(version, _reasons.get("base", f"the Tunix {version} oracle is unavailable"))


def tunix_python(version: str) -> Path | None:
    """The interpreter of a Python 3.12 venv where tunix VERSION's tunix.cli.config imports, with the
    release's base YAMLs in place."""
    target = CACHE / f"tunix-oracle-{version}"
    python, marker = target / "bin" / "python", target / ".complete"
    if marker.is_file():
        return python
    base = base_site_packages(BASE_DIR, ["--no-deps", *BASE_PACKAGES], _reasons)
    if base is None:
        return None
    with locked(f"tunix-oracle-{version}"):
        if marker.is_file():
            return python
        shutil.rmtree(target, ignore_errors=True)
        steps = [[str(find_python312()), "-m", "venv", str(target)]]
        if not build_steps(steps, version, target, _reasons):
            return None
        own = next(target.glob("lib/python3.12/site-packages"))
        (own / "tunix-oracle-base.pth").write_text(f"{base.resolve()}\n")
        if not build_steps([[str(python), "-m", "pip", "install", "-q", "--no-compile", "--no-deps", f"google-tunix=={version}"]], version, target, _reasons):
            return None
        _write_bases(version, own / "tunix" / "cli")
        marker.write_text(f"google-tunix=={version} over {BASE_DIR.name}\n")
    return python


def _write_bases(version: str, folder: Path) -> None:
    for name, keys in load_tunix_pin(f"tunix-{version}").bases.items():
        (folder / name).write_text(yaml.safe_dump(nested_defaults(keys), sort_keys=False), encoding="utf-8")


# CPU devices for the meshes 0.1.0-0.1.6 build when they parse one (jax.make_mesh takes the first ones).
CPU_DEVICES = 256


def run_in_tunix(version: str, code: str, input_json: Any, timeout: float = 900) -> Any:
    """Run CODE in the oracle of tunix VERSION (INPUT in, OUTPUT out, as JSON), on CPU_DEVICES CPU
    devices, with a fixed hash seed (Tunix's messages print sets) and an environment without T_
    variables or HF_TOKEN."""
    python = tunix_python(version)
    if python is None:
        raise RuntimeError(unavailable(version))
    env = {k: v for k, v in os.environ.items() if not k.startswith("T_") and k != "HF_TOKEN"}
    env.update(JAX_PLATFORMS="cpu", PYTHONHASHSEED="0", XLA_FLAGS=f"--xla_force_host_platform_device_count={CPU_DEVICES}")
    with tempfile.TemporaryDirectory() as tmp:
        script, source, result = Path(tmp, "script.py"), Path(tmp, "input.json"), Path(tmp, "output.json")
        script.write_text(code)
        source.write_text(json.dumps(input_json))
        done = subprocess.run([str(python), "-c", _DRIVER, str(script), str(source), str(result)],
                              capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp)
        if done.returncode != 0:
            raise RuntimeError(f"oracle script failed (exit {done.returncode}): {done.stderr[-3000:]}")
        return json.loads(result.read_text())

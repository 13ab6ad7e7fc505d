"""`--confirm-with PYTHON`: the pinned MaxText's own pyconfig, run in another interpreter.

The interpreter runs `pyconfig_runner.py` as a long-lived subprocess with the network blocked:
one JSON argv in, one JSON verdict out, so many configs share one MaxText import (the
differential tests and the agreement bench use it the same way).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from flaglint.maxtext.pyconfig import HF_TOKEN_VARIABLE, is_key_variable
from flaglint.maxtext.values import format_value
from flaglint.pins.pins import PinSchema, load_pin
from flaglint.read.flags import FlagSource
from flaglint.resolve.resolver import resolve
from flaglint.tunix.variables import bindings, load_tunix

RUNNER = Path(__file__).with_name("pyconfig_runner.py")
START_TIMEOUT = 120.0  # importing MaxText takes ~2.6 s cold; a cold jax on a slow disk, much more
CONFIG_TIMEOUT = 60.0  # one config takes ~0.2 s
_UNREACHABLE_PROXY = "http://127.0.0.1:9"
# Not `python RUNNER`: that would put flaglint/ first on sys.path, where config.py, data.py, ... shadow.
_START = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


class RunnerUnavailable(Exception):
    """The interpreter cannot run MaxText's pyconfig; the message is one line."""


@dataclass(frozen=True)
class Verdict:
    ok: bool
    error: str | None = None
    message: str | None = None

    def describe(self) -> str:
        return "accepts" if self.ok else f"rejects: {self.error}: {self.message}"


def _runner_env(extra: Mapping[str, str]) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items()
        if not is_key_variable(k) and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy") and k != "XLA_FLAGS"
    }  # fmt: skip
    env.update({
        "HTTP_PROXY": _UNREACHABLE_PROXY, "HTTPS_PROXY": _UNREACHABLE_PROXY, "ALL_PROXY": _UNREACHABLE_PROXY,
        "JAX_PLATFORMS": "cpu", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "NO_GCE_CHECK": "true",
    })  # fmt: skip
    env.update(extra)
    return env


class PyconfigRunner:
    """One runner process in `python`. `installed` describes its MaxText (version, commit, python).
    `environment`: variables pyconfig reads itself (HF_TOKEN), as the trainer would have them."""

    def __init__(self, python: str | os.PathLike[str], start_timeout: float = START_TIMEOUT, config_timeout: float = CONFIG_TIMEOUT,
                 environment: Mapping[str, str] | None = None):
        # A path is taken from the caller's directory (the runner works in its own); a bare name from PATH.
        self.python = os.path.abspath(python) if os.sep in str(python) else str(python)
        self.config_timeout = config_timeout
        self._cwd = tempfile.TemporaryDirectory(prefix="flaglint-pyconfig-")  # MaxText may write maxtext_output/ here
        self._stderr = tempfile.TemporaryFile()
        try:
            self._process = subprocess.Popen(
                [self.python, "-c", _START, str(RUNNER)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                cwd=self._cwd.name, env=_runner_env(environment or {}), text=True, bufsize=1,
            )  # fmt: skip
        except OSError as err:
            self._cleanup()
            raise RunnerUnavailable(f"cannot run {self.python} ({err.strerror or err})") from None
        hello = self._read(start_timeout)
        if hello is None or "unavailable" in hello:
            reason = hello["unavailable"] if hello else self._failure()
            self.close()
            raise RunnerUnavailable(f"{self.python} cannot run MaxText's pyconfig ({reason})")
        self.installed: dict[str, Any] = hello

    def check(self, argv: Sequence[str], config: str | None = None, env: Mapping[str, str] | None = None,
              config_class: str | None = None) -> Verdict:
        """MaxText's verdict on `pyconfig.initialize` with these key=value arguments (after the
        config file `config`, with the variables `env` set, such as M_<KEY>), validated with
        `config_class` (a class of maxtext.configs.types, as train_rl gives RLConfig) or pyconfig's default."""
        request: dict[str, Any] = {"argv": list(argv)}
        if config_class:
            request["config_class"] = config_class
        if config:  # a path the runner's own directory cannot see, unless MaxText maps it (src/maxtext/configs/…)
            request["config"] = os.path.abspath(config) if os.path.isfile(config) else config
        if env:
            request["env"] = dict(env)
        try:
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise RunnerUnavailable(f"the pyconfig runner in {self.python} stopped ({self._failure()})") from None
        answer = self._read(self.config_timeout)
        if answer is None:
            raise RunnerUnavailable(f"the pyconfig runner in {self.python} gave no verdict ({self._failure()})")
        return Verdict(answer["ok"], answer.get("error"), answer.get("message"))

    def _read(self, timeout: float) -> dict[str, Any] | None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout):
                self._process.kill()
                return None
        line = self._process.stdout.readline()
        return json.loads(line) if line.strip() else None

    def _failure(self) -> str:
        code = self._process.poll()
        self._stderr.seek(0)
        lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        tail = lines[-1] if lines else "no output"
        return f"exit {code}: {tail}" if code is not None else f"no answer within the timeout; {tail}"

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process.stdout.close()
        self._cleanup()

    def _cleanup(self) -> None:
        self._stderr.close()
        self._cwd.cleanup()

    def __enter__(self) -> PyconfigRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class PyconfigInput:
    """An argv with its config file, environment variables and the config class its entry point
    validates with (None: MaxTextConfig), for `verdicts`."""

    argv: tuple[str, ...]
    config: str | None = None
    env: Mapping[str, str] | None = None
    config_class: str | None = None


CONFIGS_PER_RUNNER = 24


def verdicts(python: str | os.PathLike[str], argvs: Sequence[Sequence[str] | PyconfigInput], processes: int = 2) -> list[Verdict]:
    """MaxText's verdict on each argv (or PyconfigInput), spread over up to `processes` runners (each
    imports MaxText once, 3 CPU-s or more; a config takes 0.4 to 0.7 CPU-s): another runner only for
    each CONFIGS_PER_RUNNER configs, where it saves more time than its import costs."""
    processes = max(1, min(processes, len(argvs) // CONFIGS_PER_RUNNER))
    results: list[Verdict | None] = [None] * len(argvs)
    errors: list[BaseException] = []

    def work(start: int) -> None:
        try:
            with PyconfigRunner(python) as runner:
                for index in range(start, len(argvs), processes):
                    item = argvs[index]
                    results[index] = runner.check(item.argv, item.config, item.env, item.config_class) if isinstance(item, PyconfigInput) else runner.check(item)
        except BaseException as err:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(err)

    threads = [threading.Thread(target=work, args=(start,)) for start in range(min(processes, len(argvs)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results  # type: ignore[return-value]


def maxtext_argv(flags: str, pin: PinSchema, env: Mapping[str, str] | None = None, model: str | None = None) -> list[str]:
    """The arguments the trainer hands pyconfig: the model, the keys Tunix derives, then the flags."""
    config, _ = resolve(FlagSource(flags), pin, env or {}, model)
    bound = [f"{key}={format_value(value)}" for key, (value, _var) in bindings(load_tunix(), config.tunix).items()]
    return ([f"model_name={model}"] if model else []) + bound + flags.split()


def pin_mismatch(installed: Mapping[str, Any], pin: PinSchema) -> str | None:
    """Why the installed MaxText is not the pin's, or None when it is."""
    version, commit = installed.get("maxtext"), installed.get("commit")
    if len(pin.chain) > 1:  # a fork commit: only that commit's install answers for it
        if commit and (commit.startswith(pin.pin) or pin.pin.startswith(commit)):
            return None
        found = f"git commit {commit[:12]}" if commit else f"maxtext {version} without a git commit"
        return f"the pin is fork commit {pin.pin}, but the interpreter has {found}"
    if version != pin.version:
        return f"the pin is maxtext {pin.version}, but the interpreter has maxtext {version}"
    return None


def confirm(python: str, pin: str, flags: str, env: Mapping[str, str] | None, model: str | None) -> str:
    """One line: the pinned MaxText's verdict on the flags, as its pyconfig gives it in `python`."""
    schema = load_pin(pin)
    label = f"MaxText {schema.version if len(schema.chain) == 1 else schema.pin}"
    read_by_pyconfig = {k: v for k, v in (env or {}).items() if k == HF_TOKEN_VARIABLE}
    try:
        runner = PyconfigRunner(python, environment=read_by_pyconfig)
    except RunnerUnavailable as err:
        return f"{label} ({python}): not run: {err}"
    with runner:
        label += f" (python{runner.installed.get('python', '?')})"
        mismatch = pin_mismatch(runner.installed, schema)
        if mismatch:
            return f"{label}: not run: {mismatch}"
        try:
            verdict = runner.check(maxtext_argv(flags, schema, env, model))
        except RunnerUnavailable as err:
            return f"{label}: not run: {err}"
    return f"{label}: {verdict.describe()}"

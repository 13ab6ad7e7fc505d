"""MaxText's own config check, run in another interpreter (the one with MaxText installed).

flaglint never imports this module: `flaglint.frontends.check.confirm` runs it with `PYTHON -c 'runpy.run_path(...)'`.
Protocol, one JSON object per line:
  out, first: {"maxtext": version, "commit": git commit or null, "python": "3.12"}
              or {"unavailable": reason}
  in:  {"argv": ["key=value", ...], "config": path of a .yml or absent, "env": {"M_KEY": "value"} or absent,
        "config_class": the class of maxtext.configs.types to validate with (RLConfig) or absent}
  out: {"ok": true} or {"ok": false, "error": exception type, "message": first line}
Only verdicts go to stdout; whatever MaxText prints goes to stderr.
"""

import importlib
import importlib.util
import json
import logging
import os
import sys
import types

MESSAGE_LIMIT = 300


def first_line(text):
    line = (str(text).strip().splitlines() or [""])[0]
    return line if len(line) <= MESSAGE_LIMIT else line[:MESSAGE_LIMIT] + "..."


def installed():
    from importlib import metadata  # noqa: PLC0415 this file runs alone in MaxText's interpreter; importlib.metadata only here

    dist = metadata.distribution("maxtext")
    commit = None
    direct_url = dist.read_text("direct_url.json")
    if direct_url:
        commit = (json.loads(direct_url).get("vcs_info") or {}).get("commit_id")
    return {"maxtext": dist.version, "commit": commit, "python": "%d.%d" % sys.version_info[:2]}


def describe(err):
    if type(err).__name__ == "ValidationError" and callable(getattr(err, "errors", None)):
        first = err.errors(include_url=False)[0]
        cause = (first.get("ctx") or {}).get("error")
        if isinstance(cause, BaseException):
            return {"error": type(cause).__name__, "message": first_line(cause)}
        where = ".".join(str(part) for part in first["loc"])
        return {"error": "ValidationError", "message": first_line("%s: %s" % (where, first["msg"]))}
    return {"error": type(err).__name__, "message": first_line(err)}


def block_network():
    import socket  # noqa: PLC0415 this file runs alone in MaxText's interpreter: socket only to block it

    def refuse(*args, **kwargs):
        raise OSError("no network while MaxText checks a config")

    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex
    socket.socket.connect = lambda self, address: connect(self, address) if self.family == socket.AF_UNIX else refuse()
    socket.socket.connect_ex = lambda self, address: connect_ex(self, address) if self.family == socket.AF_UNIX else refuse()
    socket.getaddrinfo = socket.create_connection = refuse


def default_config(pyconfig, version):
    """MaxText 0.2.3 and later find base.yml themselves; 0.2.0 takes it as argv[1], and so does
    the MaxText/ package before it (its configs/base.yml)."""
    parts = tuple(int(p) if p.isdigit() else 0 for p in version.split(".")[:3])
    if parts >= (0, 2, 3):
        return None
    return os.path.join(os.path.dirname(pyconfig.__file__), *(("configs",) if parts < (0, 2, 0) else ()), "base.yml")


def load_pyconfig():
    """maxtext.configs.pyconfig; before 0.2.0, MaxText.pyconfig. The package's __init__ is not run:
    it loads the models and the data pipeline for the library's API (tensorflow and transformers
    in 0.2.2: 13 s of the 16 s an import takes), and pyconfig reads none of it. Its modules are
    found through the package's path."""
    for package_name, module in (("maxtext", "maxtext.configs.pyconfig"), ("MaxText", "MaxText.pyconfig")):
        spec = importlib.util.find_spec(package_name)
        if spec is not None and spec.submodule_search_locations:
            package = types.ModuleType(package_name)
            package.__path__ = list(spec.submodule_search_locations)
            package.__file__ = spec.origin
            sys.modules[package_name] = package
            try:
                return importlib.import_module(module)
            except ModuleNotFoundError as err:
                if err.name != module.rpartition(".")[0]:
                    raise
                del sys.modules[package_name]
    raise ModuleNotFoundError("neither maxtext.configs.pyconfig nor MaxText.pyconfig", name="maxtext")


def verdict(pyconfig, argv, environment, config=None, extra=None, config_class=None):
    # pyconfig sets XLA_FLAGS (and may set more) as a side effect: every case starts from the same env.
    os.environ.clear()
    os.environ.update(environment)
    os.environ.update(extra or {})
    try:
        # as train_rl hands it over (`config_class=types.RLConfig`); pyconfig's default otherwise
        chosen = {"config_class": getattr(importlib.import_module("maxtext.configs.types"), config_class)} if config_class else {}
        pyconfig.initialize(["", *([config] if config else []), "skip_jax_distributed_system=True", *argv], **chosen)
    except (Exception, SystemExit) as err:  # noqa: BLE001 - any exception is MaxText's verdict
        return {"ok": False, **describe(err)}
    return {"ok": True}


def main():
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    logging.disable(logging.CRITICAL)
    block_network()
    # pyconfig exits the process on a bad config unless a test framework is loaded; with one it re-raises.

    try:
        hello = installed()
        pyconfig = load_pyconfig()  # after the hello line, so its import error is reported
    except Exception as err:  # noqa: BLE001 - reported to the caller as one line
        out.write(json.dumps({"unavailable": "%s: %s" % (type(err).__name__, first_line(err))}) + "\n")
        return
    out.write(json.dumps(hello) + "\n")
    environment = dict(os.environ)
    base = default_config(pyconfig, hello["maxtext"])
    for line in sys.stdin:
        request = json.loads(line)
        out.write(json.dumps(verdict(pyconfig, request["argv"], environment, request.get("config") or base, request.get("env"),
                                     request.get("config_class"))) + "\n")


if __name__ == "__main__":
    main()

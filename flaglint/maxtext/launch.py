"""MaxText command lines: which words of a command run one of MaxText's entry points, its config
argument, the key=value words pyconfig reads, and the M_<KEY> variables of its environment; and
the wrappers a command line runs its program through (`nice -n 5`, `timeout 1h`, `env K=V`, …).

Recognised: `python3 -m maxtext.<module>` (also `MaxText.<module>`, the older package name, and
`src.maxtext.<module>`), a script path ending in `maxtext/<module path>.py` or
`MaxText/<module>.py`, after the wrappers of WRAPPERS (`uv run -m <module>` is python's `-m`) and
inside launchers such as `docker run`, `srun` or `kubectl exec`. The entry points are the modules of the pin that
hand their argv to pyconfig (schema/config_index.py); an older short name (`MaxText.decode`,
`MaxText/train.py`) is the pin's module that ends with it (maxtext.inference.decode,
maxtext.trainers.pre_train.train). argv[1] is the config as the pin's pyconfig finds it (when it
ends in `.yml`; at 0.2.0 whatever its name), otherwise the module's own default config (rl.yml,
sft.yml, …) is used. An XPK `--command "…"` string (also gcloud's `tpu-vm ssh --command`, MaxText's
multihost_runner.py `--COMMAND`) holds such a command line: its text is split into shell words again.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from flaglint.core.python_command import is_python, python_targets
from flaglint.maxtext.pyconfig import is_key_variable
from flaglint.schema.config_index import ConfigIndex, EntryPoint
from flaglint.schema.index_files import CONFIG_SUFFIX

_PACKAGES = ("maxtext", "MaxText")
_SOURCE_ROOT = "src"  # a checkout's source folder: `-m src.maxtext.<module>` run from its root
TRAIN = "maxtext.trainers.pre_train.train"  # what the older `MaxText.train` / MaxText/train.py became
# Where the configs were before 0.2.0 moved them to src/maxtext/configs/ (the MaxText/ package)
OLD_LAYOUT_CONFIGS = "MaxText/configs/"
# Entry points that cut their argv in two at max_utils.parse_custom_args (the training config and
# its overrides, then the inference config and its own) and hand each half to pyconfig
TWO_CONFIGS = frozenset({"maxtext.experimental.rl.grpo_trainer"})


@dataclass(frozen=True)
class Wrapper:
    """A program that runs the command after its own options and operands, as its option parser
    reads them (GNU getopt: `-n 5` and `-n5`, `--opt value` and `--opt=value`, `--` ends them)."""

    short_values: str = ""  # the short options that take a value
    long_values: frozenset[str] = frozenset()  # the long options that take a value
    operands: int = 0  # words between the options and the command (timeout's duration, taskset's mask)
    subcommand: str = ""  # the word the command line must start with (`uv run`)
    numeric_option: bool = False  # `-N` is an option (nice's old `-10`)
    environment: bool = False  # env: NAME=VALUE words before the command, -u NAME, -i
    refused: frozenset[str] = frozenset()  # options that make the command something else (env -S splits a string)
    # options one of which must be given for the command's words to be known (xargs appends the
    # words it reads to the command otherwise); empty: none is needed
    placed: frozenset[str] = frozenset()


# The wrappers a launch is written behind, each with the options its parser reads.
WRAPPERS: dict[str, Wrapper] = {
    "nice": Wrapper("n", frozenset({"--adjustment"}), numeric_option=True),
    "nohup": Wrapper(),
    "stdbuf": Wrapper("ioe", frozenset({"--input", "--output", "--error"})),
    "timeout": Wrapper("sk", frozenset({"--signal", "--kill-after"}), operands=1),
    "time": Wrapper("fo", frozenset({"--format", "--output"})),
    "numactl": Wrapper("ipPwcNCmSfoLM", frozenset({
        "--interleave", "--preferred", "--preferred-many", "--weighted-interleave", "--cpubind", "--cpunodebind",
        "--physcpubind", "--membind", "--shm", "--file", "--offset", "--length", "--shmmode", "--shmid"})),
    "taskset": Wrapper(operands=1, refused=frozenset({"-p", "--pid"})),
    # xargs appends what it reads to the command unless it puts it in place of a word (-I, -i)
    "xargs": Wrapper("adEILnPs", frozenset({"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars",
                                            "--process-slot-var"}), placed=frozenset({"-I", "-i", "--replace"})),
    "env": Wrapper("uCS", frozenset({"--unset", "--chdir", "--split-string"}), environment=True,
                   refused=frozenset({"-S", "--split-string"})),
    "uv": Wrapper("p", frozenset({
        "--with", "--with-editable", "--with-requirements", "--python", "--project", "--directory", "--package",
        "--extra", "--group", "--only-group", "--no-group", "--env-file", "--index", "--default-index",
        "--index-url", "--extra-index-url", "--find-links", "--config-file", "--cache-dir", "--python-platform"}),
        subcommand="run", refused=frozenset({"-m", "--module", "-s", "--script", "--gui-script"})),
}
# Programs whose command line may hold a MaxText launch somewhere in its words: python itself,
# the wrappers, XPK, and launchers whose own syntax is not followed (the python in their words is).
_LAUNCHERS = {"xpk", "xpk.py", "gcloud", "kubectl", "sudo", "srun", "mpirun", "docker", "podman"} | set(WRAPPERS)


@dataclass(frozen=True)
class Unwrapped:
    """What a wrapper at the start of a command line does: the index of the word its command
    starts at, and how it changes the command's environment."""

    start: int
    assigned: tuple[int, ...] = ()  # the indices of the NAME=VALUE words it sets (env)
    unset: tuple[str, ...] = ()  # the names it removes (env -u)
    cleared: bool = False  # it starts the command with an empty environment (env -i)


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def unwrap(words: Sequence[str | None]) -> Unwrapped | None:
    """The command a wrapper at words[0] runs; None when words[0] is no wrapper, when a word it
    must read is not known (None: an option, a name it sets or unsets), or when it runs no command
    (an option that makes it something else, nothing after its options)."""
    return _unwrapped(words, needs_placed=True)


def _unwrapped(words: Sequence[str | None], needs_placed: bool) -> Unwrapped | None:
    """unwrap's answer; without `needs_placed`, also where the wrapper adds words of its own to
    the command's (xargs without -I: the command's program and first words are still known)."""
    spec = WRAPPERS.get(posixpath.basename(words[0] or "")) if words else None
    if spec is None:
        return None
    at = 1
    if spec.subcommand:
        if at >= len(words) or words[at] != spec.subcommand:
            return None
        at += 1
    assigned: list[int] = []
    unset: list[str] = []
    cleared, placed = False, not spec.placed
    while at < len(words):
        word = words[at]
        if word is None:
            return None
        if word == "--":
            at += 1
            break
        if spec.environment and word == "-":
            cleared, assigned, at = True, [], at + 1
            continue
        if not word.startswith("-") or word == "-":
            break
        name, equals, inline = word.partition("=")
        if name in spec.refused or word in spec.refused:
            return None
        placed = placed or name in spec.placed or (not word.startswith("--") and f"-{word[1:2]}" in spec.placed)
        if word.startswith("--"):
            taken = name in spec.long_values and not equals
            if spec.environment and name == "--ignore-environment":
                cleared, assigned = True, []
            if taken and at + 1 >= len(words):
                return None
            if spec.environment and name == "--unset":
                value = inline if equals else words[at + 1]
                if value is None:
                    return None
                unset.append(value)
            at += 2 if taken else 1
            continue
        if spec.numeric_option and word[1:].isdigit():
            at += 1
            continue
        letters, taken = word[1:], False
        for index, letter in enumerate(letters):
            if f"-{letter}" in spec.refused:
                return None
            if spec.environment and letter == "i":
                cleared, assigned = True, []
            if letter in spec.short_values:
                rest = letters[index + 1:]
                taken = not rest
                if taken and at + 1 >= len(words):
                    return None
                value = rest or words[at + 1]
                if spec.environment and letter == "u":
                    if value is None:
                        return None
                    unset.append(value)
                break
        at += 2 if taken else 1
    while spec.environment and at < len(words) and words[at] is not None and _ASSIGNMENT.match(words[at]):
        assigned.append(at)
        at += 1
    at += spec.operands
    if at >= len(words) or needs_placed and not placed:
        return None
    return Unwrapped(at, tuple(assigned), tuple(unset), cleared)


# Launchers that start a command only under some of their subcommands (`kubectl exec -- CMD`): one
# whose first argument is another of theirs (`kubectl delete`, `get`, `apply -f -`) starts nothing.
_QUIET_SUBCOMMANDS = {"kubectl": frozenset({
    "delete", "get", "apply", "create", "describe", "logs", "wait", "patch", "label", "annotate", "scale", "rollout",
    "config", "cp", "port-forward", "top", "edit", "replace", "set", "auth", "api-resources", "cluster-info", "version"}),
    "docker": frozenset({"build", "push", "pull", "tag", "images", "image", "login", "logout", "rm", "rmi", "ps", "logs",
                         "inspect", "network", "volume", "stop", "kill", "cp", "buildx"})}
# gcloud starts a command only over `compute … ssh` (`compute tpus tpu-vm ssh --command`): one whose
# group, its first word after a release track, is another (`gcloud storage cp …`) starts nothing
_GCLOUD_TRACKS = frozenset({"alpha", "beta"})


def may_launch(program: str, arguments: Sequence[str | None] = ()) -> bool:
    """Whether a command that runs `program` with `arguments` (None: a word not known here) may
    start MaxText; without its arguments, whether the program may."""
    name = posixpath.basename(program)
    if arguments and arguments[0] in _QUIET_SUBCOMMANDS.get(name, ()):
        return False
    if name == "gcloud":
        group = next((word for word in arguments if word not in _GCLOUD_TRACKS), "compute")
        if group is not None and not group.startswith("-") and group != "compute":
            return False
    if name in WRAPPERS:
        # the command a wrapper runs decides (`xargs -r kubectl delete …` starts nothing)
        inner = _unwrapped([program, *arguments], needs_placed=False)
        command = arguments[inner.start - 1] if inner is not None else None
        if command is not None:
            return may_launch(command, arguments[inner.start:])
    return name in _LAUNCHERS or is_python(name)


class MaxTextLaunches:
    """MaxText's launches as the bash evaluator is told of them (render.bash.types.LaunchRecogniser):
    python or a launcher may start MaxText, which reads the M_<KEY> variables of its environment;
    a wrapper runs the command after its options."""

    def may_launch(self, program: str, arguments: Sequence[str | None] = ()) -> bool:
        return may_launch(program, arguments)

    def reads_variable(self, name: str) -> bool:
        return is_key_variable(name)

    def has_default(self, name: str) -> bool:
        return is_key_variable(name)

    def unwrap(self, words: Sequence[str | None]) -> Unwrapped | None:
        return unwrap(words)


MAXTEXT_LAUNCHES = MaxTextLaunches()


@dataclass(frozen=True)
class MaxTextCommand:
    module: str  # as the pin names it
    start: int  # index of the first argv word after the module (argv[1])
    entry: EntryPoint | None  # None: the pin has no such entry point
    config: str | None  # argv[1] when the pin's pyconfig takes it as the config file
    args: tuple[int, ...]  # indices of the words pyconfig reads as key=value

    @property
    def default_config(self) -> str:
        return self.entry.config if self.entry is not None else "base.yml"

    @property
    def old_layout(self) -> bool:
        """Whether its config is one of the MaxText/ package's (MaxText 0.1.0 and before)."""
        return self.config is not None and f"/{OLD_LAYOUT_CONFIGS}" in f"/{self.config}"


def recognise(words: list[str], index: ConfigIndex | None) -> MaxTextCommand | None:
    """The MaxText entry point these words run, or None (another program: ignored)."""
    for kind, target, start in python_targets(words):
        found = _command(words, kind, target, start, index)
        if found is not None:  # else a script python runs may run the rest (`python3 meter.py python3 -m …`)
            return found
    module_at = _uv_module(words)
    if module_at is not None and module_at + 1 < len(words):  # `uv run -m MODULE` is `python -m MODULE`
        return _command(words, "module", words[module_at + 1], module_at + 2, index)
    return None


def _uv_module(words: list[str]) -> int | None:
    """Where `-m` (or `--module`) is among the options of `uv run`, if it is."""
    if len(words) < 3 or posixpath.basename(words[0]) != "uv" or words[1] != "run":
        return None
    spec, at = WRAPPERS["uv"], 2
    while at < len(words) and words[at].startswith("-"):
        if words[at] in ("-m", "--module"):
            return at
        takes_value = words[at] in spec.long_values or (len(words[at]) == 2 and words[at][1] in spec.short_values)
        at += 2 if takes_value else 1
    return None


def _command(words: list[str], kind: str, target: str, start: int, index: ConfigIndex | None) -> MaxTextCommand | None:
    """The MaxText command python runs when it runs TARGET (a module or a script path) with the
    words from START as its argv."""
    written = _module_name(target) if kind == "module" else _module_of_path(target)
    if written is None:
        return None
    entries = index.entry_points if index is not None else {}
    module = entry_module(written, entries)
    if module is None:
        return None  # a module of MaxText that does not read a config from argv
    first = words[start] if start < len(words) else ""
    takes_config = index.is_config_argument(first) if index is not None else first.endswith(CONFIG_SUFFIX)
    config = first if first and takes_config else None
    first = start + (1 if config is not None else 0)
    return MaxTextCommand(module, start, entries.get(module), config, _pyconfig_args(module, words, first, index))


@dataclass(frozen=True)
class OwnWords:
    """The words a module takes off its argv before it hands the rest to pyconfig: the options its
    own argparse reads (`--name=value`, `--name value`), from a release on also written `name=value`,
    and, for a module that calls `pyconfig.initialize(argv[:-1])`, its last word."""

    options: frozenset[str] = frozenset()
    bare_since: tuple[int, ...] | None = None
    last_word: bool = False


# From each module's source at MaxText 0.2.3-0.2.5 (a module's last name: older paths map to it).
OWN_WORDS: dict[str, OwnWords] = {
    # to_maxtext's parse_known_args; 0.2.5 turns the bare `hf_model_path=…` forms into options first
    "to_maxtext": OwnWords(frozenset({"lazy_load_tensors", "eager_load_method", "hf_model_path", "revision", "save_dtype",
                                      "simulated_cpu_devices_count"}), bare_since=(0, 2, 5)),
    "reshard_checkpoint": OwnWords(frozenset({"simulated_cpu_devices_count"})),
    "save_top_k_teacher_logits": OwnWords(frozenset({"top_k", "optional_keys", "gcs_upload_path", "local_tmp_dir",
                                                     "steps_per_file", "upload_workers", "serialization_workers"})),
    "eval_sft_omni": OwnWords(frozenset({"num_examples", "tmp_results_file", "remove_tmp_results", "ckpt_type",
                                         "image_resize", "hf_eval_split", "split"})),
    # reads `hf_model_path=PATH` from its last word itself
    "llama_mistral_mixtral_orbax_to_hf": OwnWords(last_word=True),
}


def _pyconfig_args(module: str, words: list[str], first: int, index: ConfigIndex | None) -> tuple[int, ...]:
    """The indices of the words from FIRST that the module hands to pyconfig (OWN_WORDS)."""
    own = OWN_WORDS.get(module.rsplit(".", 1)[-1])
    end = len(words) - (1 if own is not None and own.last_word and len(words) > first else 0)
    if own is None or not own.options:
        return tuple(range(first, end))
    bare = own.bare_since is not None and _release(index) >= own.bare_since
    kept, at = [], first
    while at < end:
        name, equals, _ = words[at].partition("=")
        option = name.removeprefix("--") if name.startswith("--") else (name if bare and equals else None)
        if option in own.options:
            at += 1 if equals or at + 1 >= end else 2  # `--name value` takes the next word
            continue
        kept.append(at)
        at += 1
    return tuple(kept)


def _release(index: ConfigIndex | None) -> tuple[int, ...]:
    """The index's release as numbers; a pin that is no release (a commit) is taken as the newest."""
    version = index.version if index is not None else ""
    return tuple(int(n) for n in version.split(".")) if re.fullmatch(r"\d+(\.\d+)+", version or "") else (999,)


def entry_module(written: str, entries: dict[str, EntryPoint]) -> str | None:
    """The pin's entry point a module name as written (`maxtext.decode`) runs: itself, else the one
    entry point that ends with it (maxtext.inference.decode; the shortest of several). Without an
    index every module is taken as written, `maxtext.train` as TRAIN."""
    if not entries:
        return TRAIN if written == "maxtext.train" else written
    if written in entries:
        return written
    tail = "." + written.removeprefix("maxtext.")
    ending = sorted((name for name in entries if name.endswith(tail)), key=lambda name: (name.count("."), name))
    if ending:
        return ending[0]
    # a module an older release had elsewhere (MaxText.utils.ckpt_conversion.to_maxtext: the pin's
    # maxtext.checkpoint_conversion.to_maxtext) or under an older name (MaxText.sft_trainer)
    last = written.rsplit(".", 1)[-1]
    last = _RENAMED.get(last, last)
    moved = sorted((name for name in entries if name.rsplit(".", 1)[-1] == last), key=lambda name: (name.count("."), name))
    return moved[0] if moved else None


# Entry points an older release named otherwise: its module's last name, the newer one's.
_RENAMED = {"sft_trainer": "train_sft"}


def unknown_module(words: list[str], index: ConfigIndex | None) -> str | None:
    """The MaxText module these words run (as written) when the pin has no entry point of that name
    that reads its config from argv (MaxText.tests.forward_pass_logit_checker), else None."""
    if index is None or recognise(words, index) is not None:
        return None
    for kind, target, _ in python_targets(words):
        written = _module_name(target) if kind == "module" else _module_of_path(target)
        if written is not None:
            return target
    return None


def _module_name(name: str) -> str | None:
    parts = name.split(".")
    if parts[0] == _SOURCE_ROOT:
        parts = parts[1:]
    if len(parts) < 2 or parts[0] not in _PACKAGES:
        return None
    return ".".join(["maxtext", *parts[1:]])


def _module_of_path(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    parts = path.removesuffix(".py").split("/")
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] in _PACKAGES:
            return _module_name(".".join(parts[at:]))
    return None


@dataclass(frozen=True)
class HandedCommand:
    """The shell command string a launcher hands to the hosts it starts: the word at `at`, its text
    from `start` (past `--command=`); `launcher` names it for the user."""

    launcher: str
    at: int
    start: int


def _runs_xpk(words: list[str]) -> bool:
    return "xpk" in (posixpath.basename(w) for w in words[:3]) or any(w.endswith("xpk.py") for w in words[:3])


def _runs_tpu_ssh(words: list[str]) -> bool:
    """`gcloud [alpha] compute tpus tpu-vm ssh` or `… tpus queued-resources ssh`: the command runs on each worker."""
    return bool(words) and posixpath.basename(words[0]) == "gcloud" and "tpus" in words and "ssh" in words


def _runs_multihost(words: list[str]) -> bool:
    """MaxText's multihost_runner.py or multihost_job.py (or a renamed copy), which run --COMMAND on every TPU VM."""
    return any(_MULTIHOST.fullmatch(posixpath.basename(w)) for w in words[:3])


# MaxText's runners, and the copies a recipe renames (multihost_runner_orig.py)
_MULTIHOST = re.compile(r"multihost_(?:runner|job)\w*\.py")


# Each launcher that hands a command string to the hosts it starts, with the option that holds it.
_HANDING = (("XPK's --command", "--command", _runs_xpk), ("gcloud's --command", "--command", _runs_tpu_ssh),
            ("MaxText's --COMMAND", "--COMMAND", _runs_multihost))


def handed_command(words: list[str]) -> HandedCommand | None:
    """Where the command string is in an `xpk workload create`, `gcloud compute tpus tpu-vm ssh` or
    MaxText multihost_runner.py/multihost_job.py command line (`--command TEXT` or `--command=TEXT`)."""
    for launcher, option, runs in _HANDING:
        if not runs(words):
            continue
        for at, word in enumerate(words):
            if word == option and at + 1 < len(words):
                return HandedCommand(launcher, at + 1, 0)
            if word.startswith(option + "="):
                return HandedCommand(launcher, at, len(option) + 1)
    return None


def xpk_command(words: list[str]) -> str | None:
    """The text of `--command` (or `--command=…`) in an `xpk workload create` command line."""
    handed = handed_command(words) if _runs_xpk(words) else None
    return None if handed is None else words[handed.at][handed.start:]

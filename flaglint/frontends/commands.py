"""MaxText command lines, checked as MaxText's argv with their config file chain and the M_<KEY>
variables of their environment: the command lines a launched program runs (itself, or the string
it hands to XPK's `--command`, `bash -c` or `eval`), for recipe scripts (lint) and containers (gate).
An entry point that validates with another config class (train_rl: RLConfig) is checked with that
class's keys and checks; one that splits its argv into two configs (grpo_trainer) is a launch that
cannot be verified (FL011).
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from flaglint.core.findings import InputError
from flaglint.frontends.checker import Checker
from flaglint.maxtext.launch import (
    TWO_CONFIGS,
    MaxTextCommand,
    handed_command,
    may_launch,
    recognise,
    xpk_command,
)
from flaglint.maxtext.pyconfig import is_key_variable
from flaglint.maxtext.tpu import GENERATIONS, named_devices, slice_topology
from flaglint.read.argv import shell_words
from flaglint.render.bash.builtins import shell_operand
from flaglint.render.bash.expansion import token_value
from flaglint.render.bash.machine import SHELLS
from flaglint.render.bash.types import OTHER, Launch, Value
from flaglint.resolve.topology import DeviceCount
from flaglint.schema.config_index import ConfigIndex

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from flaglint.render.yaml_chain import Written

SEPARATORS = {";", "&&", "||", "|", "|&", "&"}
# A redirection word as bash reads it unquoted: an optional descriptor, the operator, and its
# target when written without a space (`2>&1`, `>/tmp/train.log`); with nothing after the
# operator, the target is the next word.
_REDIRECTION = re.compile(r"(?:[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})?(?:>>|>&|>\||&>>|&>|>|<<<|<&|<>|<)(.*)", re.S)
MAXTEXT_CONFIG_CLASS = "MaxTextConfig"
OLD_LAYOUT_PIN = "maxtext-0.1.0"  # the bundled release of the MaxText/ package


@dataclass
class CommandLine:
    """A MaxText command line found in a script: its words (with their origins) and M_ variables."""

    file: str
    line: int
    words: list[Value]
    env: dict[str, str]
    command: MaxTextCommand
    written: dict[str, Written] = field(default_factory=dict)  # the files the script wrote before it
    workload: tuple[str, ...] = ()  # the words of the XPK workload whose --command holds it

    def checker(self, checker: Checker) -> Checker:
        """The checker for the config class the entry point validates with (train_rl: RLConfig), with
        the device count of the XPK workload (--tpu-type or --device-type, and --num-slices), when
        it gives one and the caller did not (--topology)."""
        checker = class_checker(checker, self.command)
        if not self.workload or checker.devices is not None:
            return checker
        count = xpk_devices(self.workload, checker.pin.topologies)
        if count is None:
            return checker
        on_workload = copy.copy(checker)
        on_workload.devices = count
        return on_workload


def xpk_devices(words: Sequence[str], topologies: str | Path) -> DeviceCount | None:
    """The devices an XPK workload asks for: its accelerator's devices per slice times its slices."""
    options: dict[str, str] = {}
    for at, word in enumerate(words):
        name, equals, value = word.partition("=")
        if name in ("--tpu-type", "--device-type", "--num-slices"):
            options[name] = value if equals else (words[at + 1] if at + 1 < len(words) else "")
    accelerator = options.get("--tpu-type") or options.get("--device-type")
    slices = options.get("--num-slices", "1")
    if not accelerator or not slices.isdigit() or int(slices) < 1:
        return None
    # XPK names a slice <generation>-<devices> (v5litepod-16: MaxText's v5e-16) or <generation>-<shape> (tpu7x-4x8x8)
    generation, _, size = accelerator.rpartition("-")
    tpu_slice = f"{generation}:{size}" if re.fullmatch(r"\d+x\d+(?:x\d+)?", size) else f"{GENERATIONS.get(generation, generation)}-{size}"
    per_slice = named_devices(tpu_slice, topologies) or named_devices(accelerator, topologies)
    if per_slice is None:
        return None
    flags = " ".join(f"{name}={value}" for name, value in options.items())
    return DeviceCount(per_slice * int(slices), int(slices), f"the XPK workload ({flags})", slice_topology(tpu_slice, topologies))


def launched_segments(launch: Launch) -> list[tuple[list[Value], tuple[str, ...]]]:
    """The words of each command line a launched program runs: its own words, or each command of
    the string it hands over (XPK's --command, `bash -c`, `eval`), with the XPK workload's words."""
    words = list(launch.words)
    inner, handed = _handed(launch, True)
    if inner is None:
        return [(words, ())]
    workload = tuple(w.text for w in words) if xpk_command([w.text for w in words]) is not None else ()
    return [(segment, workload) for segment in _segments(handed)]


def handed_segments(launch: Launch) -> list[list[Value]]:
    """The words of each command of the string a launch hands over (XPK's --command, `bash -c`,
    `eval`); none where it hands over no string."""
    inner, handed = _handed(launch, True)
    return [] if inner is None else _segments(handed)


# Of the launches read last, by their words' id (the words kept: their id stays theirs), the
# string each hands over and its words: the checks of a launch's command lines each read them.
_HANDED: dict[int, list] = {}


def _handed(launch: Launch, words: bool = False) -> tuple[Value | None, list[Value] | None]:
    """The string the launch hands over (_command_string; None: none) and, with `words`, its words
    (_words_of), each found once for the launch's words (a tuple: a list may change)."""
    if type(launch.words) is not tuple:
        inner = _command_string(list(launch.words))
        return inner, _words_of(inner) if words and inner is not None else None
    found = _HANDED.get(id(launch.words))
    if found is None:
        if len(_HANDED) >= 256:
            _HANDED.clear()
        found = _HANDED[id(launch.words)] = [launch.words, _command_string(list(launch.words)), None]
    if words and found[1] is not None and found[2] is None:
        found[2] = _words_of(found[1])
    return found[1], found[2]


def command_lines(launch: Launch, index: ConfigIndex | None) -> list[CommandLine]:
    """The MaxText command lines of one launched program: itself, or those in its XPK --command."""
    env = {name: value.text for name, value in launch.env.items()}
    return [replace(line, workload=workload)
            for segment, workload in launched_segments(launch) for line in _found(launch, segment, env, index)]


def unknown_command_string(launch: Launch) -> str | None:
    """Why the shell command a launch hands over as a string (XPK's `--command`, `bash -c`, `eval`)
    is not known here, or None: it holds the output of a command never run here, or text the
    script reads (`read` from a file), so the command lines in it cannot be checked."""
    words = list(launch.words)
    inner, _ = _handed(launch)
    if inner is None or not inner.opaque or _opaque_only_in_values(inner):
        return None
    texts = [w.text for w in words]
    remote = handed_command(texts)
    handed = remote.launcher if remote is not None else "the eval" if posixpath.basename(texts[0]) == "eval" else "the bash -c"
    return f"{handed} string is not known here (it holds the output of a command, or text read from a file)"


def _opaque_only_in_values(inner: Value) -> bool:
    """Whether what the evaluator cannot know of a command string (a command's output, written
    OTHER) leaves its command lines known: it is only inside the values of `key=value` and
    `NAME=value` words (`run_name=$(whoami)-x`: those keys are not judged, as on a launch's own
    words), or inside a word of a command that launches nothing (`gsutil cp log gs://b/$(date)/`).
    Output that stands as a word of its own, names the program, or is in another word of a
    program that may launch MaxText could be any command line: not known."""
    if OTHER not in inner.text:
        return False  # text read from a file: nothing of it is known
    quoted: set[int] = set()
    for segment in _segments(_words_of(inner, quoted, placed=False), quoted):
        program = next((at for at, word in enumerate(segment) if not _assignment(word.text)), len(segment))
        launches = program < len(segment) and may_launch(
            segment[program].text, [None if OTHER in word.text else word.text for word in segment[program + 1:]])
        for at, word in enumerate(segment):
            if OTHER not in word.text or _opaque_value(word.text):
                continue
            # output standing as a word of its own could be any words, unless the string quotes it
            # as one argument of a command that launches nothing (`gcloud storage cp "$(…)" …`)
            if at == program or launches or not (word.text.replace(OTHER, "").strip() or id(word) in quoted):
                return False
    return True


def opaque_values(launch: Launch) -> list[tuple[str, Value]]:
    """The `key=value` words of the command string a launch hands over whose value holds a
    command's output (known only when the container runs it), each with the word."""
    inner, _ = _handed(launch)
    if inner is None or OTHER not in inner.text:
        return []
    return [(word.text.split("=", 1)[0], word) for word in _handed(launch, True)[1] if OTHER in word.text and _opaque_value(word.text)]


def _opaque_value(text: str) -> bool:
    """A `key=value` (or `NAME=value`) word whose key is known and whose value holds OTHER."""
    key, equals, value = text.partition("=")
    return bool(equals) and OTHER not in key and OTHER in value


def _assignment(text: str) -> bool:
    return re.match(r"[A-Za-z_][A-Za-z0-9_]*=", text) is not None


def _command_string(words: list[Value]) -> Value | None:
    """The shell command a launch hands over as a string: XPK's `--command` (gcloud's, MaxText's
    multihost `--COMMAND`), `bash -c` (or sh), `eval`'s words joined."""
    texts = [w.text for w in words]
    remote = handed_command(texts)
    if remote is not None:
        return _tail(words[remote.at], remote.start)
    program = posixpath.basename(texts[0]) if texts else ""
    # bash itself, or the shell a wrapper runs: `docker run … IMAGE /bin/bash -c "…"`
    shell = next((i for i, t in enumerate(texts) if posixpath.basename(t) in SHELLS), None)
    if shell is not None and (shell == 0 or may_launch(program)):
        at, command_string = shell_operand(texts[shell + 1:])
        if not command_string or at is None:
            return None
        return _positional(words[shell + 1 + at], words[shell + 2 + at:])
    if program == "eval" and len(words) > 1:
        joined = words[1]
        for word in words[2:]:
            joined = Value(f"{joined.text} {word.text}", [*joined.origins, None, *word.origins])
        return joined
    return None


# `$3`, `${3}`, `$@`, `$*` in a `bash -c` string: the words after the string ($0 first)
_PARAMETER = re.compile(r"\$(?:(\d)|\{(\d+)\}|([@*]))")
# What bash would not read again in an expanded word (quotes, operators, expansions): a string that
# reads such a parameter is not known here
_SPECIAL = re.compile(r"[\"'`$\\;&|<>()]")


def _positional(string: Value, args: list[Value]) -> Value:
    """The `bash -c` string with the positional parameters it reads (outside single quotes) put in
    as the arguments after it give them (`bash -c '… $3' _ a b "$command"` runs the command): as
    text, split again into words as bash splits them; a parameter whose value bash would read
    otherwise than its text (quotes, operators) leaves the string not known (opaque)."""
    pieces: list[tuple[str, list]] = []
    opaque, done, quoted = string.opaque, 0, False
    for at, char in enumerate(string.text):
        if char == "'" and not (at and string.text[at - 1] == "\\"):
            quoted = not quoted
        escaped = at and string.text[at - 1] == "\\"
        if char != "$" or quoted or escaped or not (match := _PARAMETER.match(string.text, at)):
            continue
        number = match[1] or match[2]
        given = args[int(number):int(number) + 1] if number is not None else args[1:]
        text = " ".join(word.text for word in given)
        opaque = opaque or any(word.opaque for word in given) or bool(_SPECIAL.search(text))
        pieces.append((string.text[done:at], list(string.origins[done:at])))
        for index, word in enumerate(given):
            pieces.append((("" if not index else " ") + word.text, ([None] if index else []) + list(word.origins)))
        done = match.end()
    if not pieces:
        return string
    pieces.append((string.text[done:], list(string.origins[done:])))
    return Value("".join(text for text, _ in pieces), [o for _, origins in pieces for o in origins], opaque)


def _found(launch: Launch, words: list[Value], env: dict[str, str], index: ConfigIndex | None) -> list[CommandLine]:
    command = recognise([w.text for w in words], index)
    if command is None:
        return []
    from flaglint.render.yaml_chain import Written  # noqa: PLC0415 yaml: only where a script runs a MaxText command line
    prefix = {w.text.split("=", 1)[0]: w.text.split("=", 1)[1] for w in words[:command.start] if is_key_variable(w.text) and "=" in w.text}
    written = {name: Written(name, value.text, tuple(value.origins)) for name, value in launch.files.items()}
    return [CommandLine(launch.file, launch.line, words, {**env, **prefix}, command, written)]


def _tail(value: Value, start: int) -> Value:
    return Value(value.text[start:], list(value.origins[start:]), value.opaque)


def _words_of(value: Value, quoted_words: set[int] | None = None, placed: bool = True) -> list[Value]:
    """The shell words of a string (an XPK --command), each with the origins of its text (`placed`
    False: its text only, for a reader of texts, as origins cost a string's length), less its
    redirections (`2>&1`, `> log`): bash takes those out before the program sees its argv; into
    `quoted_words`, the ids of those written in quotes there."""
    try:
        tokens = shell_words(value.text)
    except InputError:
        return []
    words, target_next = [], False
    for token in tokens:
        quoted = token.end_offset - token.offset != len(token.text)
        redirection = None if quoted else _REDIRECTION.fullmatch(token.text)
        if target_next:
            target_next = False
        elif redirection is not None:
            target_next = redirection[1] == ""
        else:
            words.append(token_value(value, token) if placed else Value(token.text, ()))
            if quoted and quoted_words is not None:
                quoted_words.add(id(words[-1]))
    return words


def _segments(words: list[Value], quoted_words: set[int] | None = None) -> list[list[Value]]:
    """The commands of a string's words, split at its separators (`;`, `&&`, `|`, …); a word
    quoted there (`quoted_words`, by id) stays so when a `;` is cut off it."""
    segments: list[list[Value]] = [[]]
    for word in words:
        if word.text in SEPARATORS:
            segments.append([])
        elif word.text.endswith(";"):
            segments[-1].append(_tail(Value(word.text[:-1], list(word.origins[:-1])), 0))
            if quoted_words is not None and id(word) in quoted_words:
                quoted_words.add(id(segments[-1][-1]))
            segments.append([])
        else:
            segments[-1].append(word)
    return [s for s in segments if s]


def config_path(command: MaxTextCommand, bases: list[Path], index: ConfigIndex | None,
                written: Mapping[str, Written] = {}) -> tuple[str, str | None]:
    """The config argument as a path `load_chain` reads: a file the script wrote, a file beside the
    script (or in the working directory), a file of MaxText's configs, else the entry point's own
    default config; and a note when it was not found."""
    argument, default = command.config, f"src/maxtext/configs/{command.default_config}"
    if argument is None:
        return default, None
    from flaglint.render.yaml_chain import pin_relpath, written_name  # noqa: PLC0415 yaml: only where a command line names its config
    name = written_name(argument, written)
    if name is not None:
        return name, None
    for base in bases:
        if os.path.isfile(base / argument):
            return str(base / argument), None
    relpath = pin_relpath(argument)
    parts = argument.split("/")
    known = ([relpath] if relpath else []) + ["/".join(parts[at:]) for at in range(len(parts))]  # ${MAXTEXT_CONFIGS_DIR}/x.yml rendered
    for candidate in known:
        if index is not None and index.get(posixpath.normpath(candidate)) is not None:
            return f"src/maxtext/configs/{posixpath.normpath(candidate)}", None
    # A config the script writes and then copies into place (`cp $OUT/x.yml MaxText/configs/`, a
    # volume a container mounts): the one file of that name it writes.
    same_name = [name for name in written if posixpath.basename(name) == posixpath.basename(argument)]
    if len(same_name) == 1:
        return same_name[0], f"config {argument!r} taken to be {same_name[0]!r}, the file of that name the script writes"
    return default, f"config {argument!r} not found; checked with MaxText's {command.default_config}"


def not_checked(command: MaxTextCommand) -> str | None:
    """Why a command line is not checked, or None."""
    if command.module in TWO_CONFIGS:
        return (f"{command.module} splits its argv into two configs (training, then inference, each from its own .yml), "
                "and flaglint judges one config a command line")
    return None


def not_compiled(command: MaxTextCommand) -> str | None:
    """Why the train step of a command line is not compiled (flaglint memory), or None: the step
    compiled is MaxText's pre-training step, whose config is a MaxTextConfig."""
    entry = command.entry
    if entry is not None and entry.config_class != MAXTEXT_CONFIG_CLASS:
        return f"{command.module} validates its config with {entry.config_class}; its step is not the pre-training step compiled here"
    return not_checked(command)


def class_checker(checker: Checker, command: MaxTextCommand) -> Checker:
    """The checker for the config class COMMAND's entry point validates with (MaxTextConfig unless
    it names another: train_rl's RLConfig)."""
    entry = command.entry
    return checker if entry is None else checker.for_config_class(entry.config_class)


def layout_note(checker: Checker, where: str) -> str:
    """What judged the command lines at WHERE, whose config is in the MaxText/ package (MaxText
    0.1.0 and before): the pin and what chose it; when nothing chose it, how to choose 0.1.0's."""
    pin = checker.pin
    said = f"{where}: the config is in the MaxText/ layout of MaxText 0.1.0 and before; judged by {pin.pin}"
    if checker.pin_origin != "default":
        return f"{said} ({checker.pin_origin})"
    return (f"{said}, the default pin, with its keys and checks: give --pin {OLD_LAYOUT_PIN} (or pin = "
            f"\"{OLD_LAYOUT_PIN}\" under [tool.flaglint], or maxtext=={OLD_LAYOUT_PIN.removeprefix('maxtext-')} "
            "in the requirements file) to judge it by MaxText 0.1.0")

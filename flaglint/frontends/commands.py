"""MaxText command lines, checked as MaxText's argv with their config file chain and the M_<KEY>
variables of their environment: in recipe scripts (each python or XPK `--command` line that runs
one of MaxText's entry points, on every branch; findings at the words in the script) and in
containers (gate). An entry point that validates with another config class (train_rl: RLConfig)
is noted and not checked, since flaglint knows MaxTextConfig's keys only.
"""

from __future__ import annotations

import copy
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from flaglint.frontends.checker import Checker
from flaglint.core.findings import Finding, Fix, InputError
from flaglint.frontends.lint.launch_parts import COMBINATION_CAP, Unverified, concrete_argvs
from flaglint.core.location import Location
from flaglint.read.flags import FlagSource, Token
from flaglint.read.argv import argv_source, quoted_origins, shell_words
from flaglint.render.bash.builtins import shell_operand
from flaglint.render.bash.explorer import OTHER, Exploration, ExploredPath
from flaglint.render.bash.types import Launch, Rendering, Value
from flaglint.maxtext.launch import MaxTextCommand, may_launch, recognise, xpk_command
from flaglint.render.yaml_chain import Written, config_node, load_chain, pin_relpath, written_name
from flaglint.rules.ruleset import built_in
from flaglint.schema.config_index import ConfigIndex, load_index
from flaglint.resolve.topology import DeviceCount

SEPARATORS = {";", "&&", "||", "|", "|&", "&"}
# A redirection word as bash reads it unquoted: an optional descriptor, the operator, and its
# target when written without a space (`2>&1`, `>/tmp/train.log`); with nothing after the
# operator, the target is the next word.
_REDIRECTION = re.compile(r"(?:[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})?(?:>>|>&|>\||&>>|&>|>|<<<|<&|<>|<)(.*)", re.S)
MAXTEXT_CONFIG_CLASS = "MaxTextConfig"


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
        """The checker with the device count of the XPK workload (--tpu-type or --device-type, and
        --num-slices), when it gives one and the caller did not (--topology)."""
        if not self.workload or checker.devices is not None:
            return checker
        count = xpk_devices(self.workload, checker.pin.version)
        if count is None:
            return checker
        on_workload = copy.copy(checker)
        on_workload.devices = count
        return on_workload


def xpk_devices(words: Sequence[str], version: str) -> DeviceCount | None:
    """The devices an XPK workload asks for: its accelerator's devices per slice times its slices."""
    from flaglint.resolve.topology import named_devices, slice_devices

    options: dict[str, str] = {}
    for at, word in enumerate(words):
        name, equals, value = word.partition("=")
        if name in ("--tpu-type", "--device-type", "--num-slices"):
            options[name] = value if equals else (words[at + 1] if at + 1 < len(words) else "")
    accelerator = options.get("--tpu-type") or options.get("--device-type")
    slices = options.get("--num-slices", "1")
    if not accelerator or not slices.isdigit() or int(slices) < 1:
        return None
    shaped = re.fullmatch(r"(.+)-(\d+x\d+(?:x\d+)?)", accelerator)  # tpu7x-4x8x8: a generation and a slice shape
    per_slice = named_devices(accelerator, version) or (slice_devices(f"{shaped[1]}:{shaped[2]}") if shaped else None)
    if per_slice is None:
        return None
    flags = " ".join(f"{name}={value}" for name, value in options.items())
    return DeviceCount(per_slice * int(slices), int(slices), f"the XPK workload ({flags})")


def command_lines(launch: Launch, index: ConfigIndex | None) -> list[CommandLine]:
    """The MaxText command lines of one launched program: itself, or those in its XPK --command."""
    words = list(launch.words)
    env = {name: value.text for name, value in launch.env.items()}
    inner = _command_string(words)
    if inner is not None:
        workload = tuple(w.text for w in words) if xpk_command([w.text for w in words]) is not None else ()
        return [replace(line, workload=workload)
                for segment in _segments(_words_of(inner)) for line in _found(launch, segment, env, index)]
    return _found(launch, words, env, index)


def _command_string(words: list[Value]) -> Value | None:
    """The shell command a launch hands over as a string: XPK's `--command`, `bash -c` (or sh),
    `eval`'s words joined."""
    texts = [w.text for w in words]
    if xpk_command(texts) is not None:
        at = next(i for i, t in enumerate(texts) if t == "--command" or t.startswith("--command="))
        return words[at + 1] if texts[at] == "--command" else _tail(words[at], len("--command="))
    program = posixpath.basename(texts[0]) if texts else ""
    # bash itself, or the shell a wrapper runs: `docker run … IMAGE /bin/bash -c "…"`
    shell = next((i for i, t in enumerate(texts) if posixpath.basename(t) in ("bash", "sh")), None)
    if shell is not None and (shell == 0 or may_launch(program)):
        at, command_string = shell_operand(texts[shell + 1:])
        return words[shell + 1 + at] if command_string and at is not None else None
    if program == "eval" and len(words) > 1:
        joined = words[1]
        for word in words[2:]:
            joined = Value(f"{joined.text} {word.text}", [*joined.origins, None, *word.origins])
        return joined
    return None


def _found(launch: Launch, words: list[Value], env: dict[str, str], index: ConfigIndex | None) -> list[CommandLine]:
    command = recognise([w.text for w in words], index)
    if command is None:
        return []
    prefix = {w.text.split("=", 1)[0]: w.text.split("=", 1)[1] for w in words[:command.start] if w.text.startswith("M_") and "=" in w.text}
    written = {name: Written(name, value.text, tuple(value.origins)) for name, value in launch.files.items()}
    return [CommandLine(launch.file, launch.line, words, {**env, **prefix}, command, written)]


def _tail(value: Value, start: int) -> Value:
    return Value(value.text[start:], list(value.origins[start:]))


def _words_of(value: Value) -> list[Value]:
    """The shell words of a string (an XPK --command), each with the origins of its text, less its
    redirections (`2>&1`, `> log`): bash takes those out before the program sees its argv."""
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
            words.append(_word_value(value, token))
    return words


def _word_value(value: Value, token: Token) -> Value:
    origins = list(value.origins[token.offset:token.end_offset])
    if len(origins) != len(token.text):  # quoted: each character points at the word's start
        origins = [origins[0] if origins else None] * len(token.text)
    return Value(token.text, origins)


def _segments(words: list[Value]) -> list[list[Value]]:
    segments: list[list[Value]] = [[]]
    for word in words:
        if word.text in SEPARATORS:
            segments.append([])
        elif word.text.endswith(";"):
            segments[-1].append(_tail(Value(word.text[:-1], list(word.origins[:-1])), 0))
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
    name = written_name(argument, written)
    if name is not None:
        return name, None
    for base in bases:
        if (base / argument).is_file():
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
    entry = command.entry
    if entry is not None and entry.config_class != MAXTEXT_CONFIG_CLASS:
        return (f"{command.module} validates its config with {entry.config_class}, whose own keys flaglint does not know: not checked")
    return None


def check_command(checker: Checker, words: list[str], config: str, env: dict[str, str], unknown: frozenset[str] = frozenset(),
                  index: ConfigIndex | None = None, written: Mapping[str, Written] = {}) -> list[Finding]:
    """MaxText's verdict, as flaglint judges it, on argv words after a config file. Locations in the
    argv are columns of argv_source(words).text (quoted_origins maps them back)."""
    try:
        chained = _argv(words, config, index, written)
    except InputError as err:
        return [built_in("FL010", variant="config", reason=err)]
    return checker.check(chained, env, fix=False, unknown=unknown).findings


def _argv(words: list[str], config: str, index: ConfigIndex | None, written: Mapping[str, Written] = {}) -> FlagSource:
    return replace(argv_source(words), chain=load_chain(config_node(config, index, written), index, written))


def _renderings(rendering: Rendering) -> list[Rendering]:
    return [rendering, *(r for handoff in rendering.handoffs for r in _renderings(handoff))]


def concrete_commands(exploration: Exploration, rule_names: list[frozenset], judge_for=None, unverified=None):
    """Each program every outcome (and the scripts it hands off to) launches, as concrete command
    lines: (the Launch with concrete words, the ConcreteArgv that says which findings it owns).
    `judge_for(launch)`: how the solver's answers for its words are judged (a CommandJudge);
    `unverified(launch, reason)`: told of a launch whose words cannot be decided (else it raises)."""
    for outcome in exploration.outcomes:
        for rendering in _renderings(outcome.rendering):
            for launch in rendering.launched:
                judge = judge_for(launch) if judge_for is not None else None
                for path in outcome.paths:
                    try:
                        argvs = concrete_argvs(launch.words, path, exploration.inputs, rule_names, COMBINATION_CAP, judge)
                    except Unverified as err:
                        if unverified is None:
                            raise
                        unverified(launch, err.reason)
                        continue
                    for argv in argvs:
                        yield replace(launch, words=argv.words), argv


class CommandJudge:
    """A concrete command line judged as check_commands judges it (launch_query.Judge on its words);
    a launch whose words hold more than one MaxText command line is not modelled (Unverified)."""

    def __init__(self, launch: Launch, script: Path, checker: Checker, index: ConfigIndex | None):
        self.launch, self.script, self.checker, self.index = launch, script, checker, index

    def _line(self, words: tuple) -> tuple[CommandLine, list[str], str] | None:
        lines = [line for line in command_lines(replace(self.launch, words=words), self.index) if not_checked(line.command) is None]
        if len(lines) > 1:
            raise Unverified(f"the launch at line {self.launch.line} runs {len(lines)} MaxText command lines")
        if not lines:
            return None
        (line,) = lines
        config, _ = config_path(line.command, [self.script.parent, Path.cwd()], self.index, line.written)
        return line, [line.words[i].text for i in line.command.args], config

    def config(self, words: tuple):
        from flaglint.frontends.checker import refused_keys

        found = self._line(words)
        if found is None:
            return None, frozenset()
        line, argv, config_file = found
        try:
            config, _ = line.checker(self.checker).config(_argv(argv, config_file, self.index, line.written), line.env)
        except InputError as err:
            raise Unverified(f"the config of the MaxText command line at line {line.line} cannot be read: {err}") from None
        return config, _unknown_keys(argv) | refused_keys(config)

    def rules(self, config) -> list:
        return self.checker.judgeable_rules(config)

    def broken(self, words: tuple) -> set[str]:
        found = self._line(words)
        if found is None:
            return set()
        line, argv, config_file = found
        findings = check_command(line.checker(self.checker), argv, config_file, line.env, _unknown_keys(argv), self.index, line.written)
        return {f.rule for f in findings}


def _unknown_keys(words: list[str]) -> frozenset[str]:
    """The keys whose value is built from an input's "anything else": not known, so not judged."""
    return frozenset(w.split("=", 1)[0] for w in words if OTHER in w)


@dataclass
class CommandsChecked:
    """What the MaxText command lines of a script give: findings, notes, how many lines were
    checked, and one fix (as edits of the script) for the first line with findings that has one."""

    findings: list[Finding]
    notes: set[str]
    checked: int
    fix: Fix | None = None


def check_commands(script: Path, exploration: Exploration, checker: Checker, text: bytes | None = None,
                   max_fixes: int = 0, allow_unverified: bool = False) -> CommandsChecked:
    """The findings on every MaxText command line of every outcome (one per rule and place, with
    the smallest witness), the notes, and how many command lines were checked; with `max_fixes`,
    a fix. A launch whose words cannot be decided is FL011 (a warning with `allow_unverified`).
    `text`: the script's bytes, when `script` names no file (stdin)."""
    index = load_index(checker.pin.configs)
    notes: set[str] = set()
    seen: dict[tuple, tuple[Finding, list[ExploredPath]]] = {}
    checked = 0
    results: dict[tuple, list[Finding]] = {}
    to_fix: dict[tuple, CommandLine] = {}
    from flaglint.frontends.lint.scripts import _read

    unverified: dict[tuple, Finding] = {}

    def not_verified(launch: Launch, reason: str) -> None:
        unverified.setdefault((launch.file, launch.line, reason), built_in(
            "FL011", (), Location(launch.file, launch.line, 1, end_column=2), allow_unverified=allow_unverified, reason=reason))

    rule_names = [rule.name_set for rule in checker.ruleset.rules]
    for launch, argv in concrete_commands(exploration, rule_names, lambda launch: CommandJudge(launch, script, checker, index), not_verified):
        for line in command_lines(launch, index):
            findings = _check_line(line, script, checker, index, notes, results)
            if findings is None:
                continue
            checked += 1
            owned = [f for f in findings if argv.owns(_read(f, checker), f.rule)]
            if any(f.severity != "info" for f in owned):
                to_fix.setdefault(tuple(w.text for w in line.words), line)
            for finding in owned:
                key = (finding.rule, finding.location, finding.message if finding.location is None else "")
                seen.setdefault(key, (finding, []))[1].append(argv.path)
    found = list(unverified.values())
    if seen:
        from flaglint.frontends.lint.scripts import _witness
        from flaglint.render.bash.path_conditions import PathConditions

        explored = [path for outcome in exploration.outcomes for path in outcome.paths]
        conditions = PathConditions(exploration.inputs, explored)
        for finding, paths in seen.values():
            path, matters = conditions.witness(paths)
            finding.witness = _witness(script, path, matters, text)
            for name in _unset_inputs_at(finding.location, path, exploration.inputs):
                finding.witness["env"].setdefault(name, None)
            found.append(finding)
    fix = None
    if max_fixes:
        from flaglint.frontends.lint.scripts import FIX_TRIES  # as many command lines with findings as launches are tried for a fix

        data = text if text is not None else script.read_bytes()
        fix = next((f for line in list(to_fix.values())[:FIX_TRIES]
                    if (f := _fix_line(line, script, data, checker, index, max_fixes)) is not None), None)
    return CommandsChecked(found, notes, checked, fix)


def _fix_line(line: CommandLine, script: Path, data: bytes, checker: Checker, index: ConfigIndex | None,
              max_fixes: int) -> Fix | None:
    from flaglint.fix.command_lines import command_fix  # only when fixes are asked for

    argv = [line.words[i] for i in line.command.args]
    words = [w.text for w in argv]
    if any(OTHER in word for word in words):
        return None  # a value built from an input's "anything else": not known, so not fixed
    config, _ = config_path(line.command, [script.parent, Path.cwd()], index, line.written)
    try:
        source = _argv(words, config, index, line.written)
    except InputError:
        return None
    return command_fix(line.checker(checker).check(source, line.env, max_fixes=max_fixes).fixes, argv, line.words[-1], script, data)


_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _unset_inputs_at(location: Location | None, path: ExploredPath, inputs: dict) -> list[str]:
    """The inputs the finding's word expands that are unset on the path. An input no condition
    compares has the one value `unset` (so no witness condition names it), yet it is why MaxText
    gets `key=` there."""
    if location is None or location.file is None or location.end_line is not None:
        return []
    try:
        text = Path(location.file).read_text(encoding="utf-8").splitlines()[location.line - 1]
    except (OSError, UnicodeDecodeError, IndexError):
        return []
    word = re.match(r"\S*", text[location.column - 1:]).group()  # the word as written, with its expansions
    return [name for name in _EXPANSION.findall(word)
            if (name in path.env and path.env[name] is None) or list(inputs.get(name, ())) == [None]]


def _check_line(line: CommandLine, script: Path, checker: Checker, index: ConfigIndex | None, notes: set[str],
                results: dict[tuple, list[Finding]]) -> list[Finding] | None:
    reason = not_checked(line.command)
    if reason is not None:
        notes.add(f"{line.file}:{line.line}: {reason}")
        return None
    argv = [line.words[i] for i in line.command.args]
    words = [w.text for w in argv]
    origins = Value(argv_source(words).text, quoted_origins([(w.text, w.origins) for w in argv]))
    config, note = config_path(line.command, [script.parent, Path.cwd()], index, line.written)
    if note is not None:
        notes.add(f"{line.file}:{line.line}: {note}")
    content = line.written[config].text if config in line.written else None
    judge = line.checker(checker)
    key = (origins.text, config, content, tuple(sorted(line.env.items())), judge.devices)
    if key not in results:
        results[key] = check_command(judge, words, config, line.env, _unknown_keys(words), index, line.written)
    placed = []
    for finding in results[key]:
        if OTHER in finding.message:
            continue
        related = tuple(found for where in finding.related if (found := _placed(where, origins)) is not None)
        located = _placed(finding.location, origins) or Location(line.file, line.line, 1, end_column=2)
        placed.append(replace(finding, location=located, related=related))
    return placed


def _placed(where: Location | None, origins: Value) -> Location | None:
    """A place in the command line as a place in the script (or config file) that wrote it; None
    where no character of it was written there."""
    from flaglint.frontends.lint.scripts import _location

    if where is None or where.file is not None:
        return where  # a line of a config file
    return _location(origins, where.column - 1, where.end_column - 1)

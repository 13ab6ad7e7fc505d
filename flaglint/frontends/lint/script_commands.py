"""The MaxText command lines of a recipe script, on every branch: each launch's words made concrete
for every path (launch_parts), checked as MaxText's argv (frontends.commands), each finding at the
words of the script that wrote it, with the smallest witness; and one fix, as edits of the script.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Generic, TypeVar

from flaglint.core.findings import Finding, Fix, InputError
from flaglint.core.location import Location
from flaglint.core.reading import SCRIPT, Unreadable, read_file, read_text
from flaglint.fix.command_lines import command_fix
from flaglint.frontends.checker import (
    Checker,
    argv_with_chain,
    check_command,
    refused_keys,
)
from flaglint.frontends.commands import (
    CommandLine,
    command_lines,
    config_path,
    launched_segments,
    layout_note,
    not_checked,
    opaque_values,
    unknown_command_string,
)
from flaglint.frontends.lint.launch_parts import (
    COMBINATION_CAP,
    SharedParts,
    concrete_argvs,
)
from flaglint.frontends.lint.unknown_values import UnknownKeys, callers
from flaglint.frontends.lint.unverified import Unverified
from flaglint.frontends.lint.witnesses import (
    FIX_TRIES,
    Witnesses,
    keys_read,
    script_location,
)
from flaglint.maxtext.launch import unknown_module
from flaglint.read.argv import argv_source, quoted_origins
from flaglint.render.bash.explorer import OTHER, Exploration, ExploredPath
from flaglint.render.bash.types import Launch, Rendering, Value
from flaglint.rules.ruleset import built_in
from flaglint.schema.config_index import ConfigIndex, load_index

T = TypeVar("T")


def renderings(rendering: Rendering) -> list[Rendering]:
    """The rendering and those of the scripts it hands off to (`bash other.sh`), in order."""
    return [rendering, *(r for handoff in rendering.handoffs for r in renderings(handoff))]


def concrete_commands(exploration: Exploration, rule_names: list[frozenset], judge_for=None, unverified=None,
                      shared: SharedParts | None = None):
    """Each program every outcome (and the scripts it hands off to) launches, as concrete command
    lines: (the Launch with concrete words, the ConcreteArgv that says which findings it owns).
    `judge_for(launch)`: how the solver's answers for its words are judged (a CommandJudge);
    `unverified(launch, reason)`: told of a launch whose words cannot be decided (else it raises);
    `shared`: what the script's other checks find alike (launch_parts.SharedParts)."""
    shared = shared if shared is not None else SharedParts()  # the paths of one launch site find much alike
    for outcome in exploration.outcomes:
        for rendering in renderings(outcome.rendering):
            for launch in rendering.launched:
                judge = judge_for(launch) if judge_for is not None else None
                for path in outcome.paths:
                    try:
                        argvs = concrete_argvs(launch.words, path, exploration.inputs, rule_names, COMBINATION_CAP, judge, shared)
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
        self.answers = checker.answers
        self.undecided_rules: dict[tuple, str] = {}  # (rule, place) -> why it is not decided

    def undecided(self, rule: str, reason: str, place: Location | None) -> None:
        self.undecided_rules.setdefault((rule, place), reason)

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
        found = self._line(words)
        if found is None:
            return None, frozenset()
        line, argv, config_file = found
        try:
            config, _ = line.checker(self.checker).config(argv_with_chain(argv, config_file, self.index, line.written), line.env)
        except InputError as err:
            raise Unverified(f"the config of the MaxText command line at line {line.line} cannot be read: {err}") from None
        return config, _unknown_keys(argv) | refused_keys(config)

    def rules(self, config) -> list:
        return self.checker.for_config_class(config.pin.config_class).judgeable_rules(config)

    def broken(self, words: tuple) -> set[tuple[str, Location | None]]:
        found = self._line(words)
        if found is None:
            return set()
        line, argv, config_file = found
        findings = check_command(line.checker(self.checker), argv, config_file, line.env, _unknown_keys(argv), self.index, line.written)
        origins = _argv_origins(line)
        return {(f.rule, placed(f.location, origins)) for f in findings}

    def place(self, words: tuple, location: Location) -> Location | None:
        """Where the script (or a config file) wrote what the command line has at `location`."""
        found = self._line(words)
        return None if found is None else placed(location, _argv_origins(found[0]))


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
    judged: int = 0  # the distinct concrete launches judged (Judged)


def check_commands(script: Path, exploration: Exploration, checker: Checker, text: bytes | None = None,
                   max_fixes: int = 0, allow_unverified: bool = False, witnesses: Witnesses | None = None,
                   shared: SharedParts | None = None) -> CommandsChecked:
    """The findings on every MaxText command line of every outcome (one per rule and place, with
    the smallest witness), the notes, and how many command lines were checked; with `max_fixes`,
    a fix. A launch whose words cannot be decided is FL011 (a warning with `allow_unverified`).
    `text`: the script's bytes, when `script` names no file (stdin); `witnesses`: the script's
    (Witnesses), shared with its other checks, as `shared` is (launch_parts.SharedParts)."""
    index = load_index(checker.pin.configs)
    notes: set[str] = set()
    seen: dict[tuple, tuple[Finding, list[ExploredPath]]] = {}
    checked = 0
    results: dict[tuple, list[Finding]] = {}
    to_fix: dict[tuple, CommandLine] = {}
    unverified: dict[tuple, Finding] = {}
    old_layout: dict[str, set[int]] = {}  # the lines of each file whose config is in the MaxText/ layout

    def not_verified(launch: Launch | CommandLine, reason: str) -> None:
        unverified.setdefault((launch.file, launch.line, reason), built_in(
            "FL011", (), Location(launch.file, launch.line, 1, end_column=2), allow_unverified=allow_unverified, reason=reason))

    rule_names = [rule.name_set for rule in checker.ruleset.rules]
    unknown_keys = UnknownKeys(callers(exploration.inputs))
    judges: list[CommandJudge] = []

    def judge_for(launch: Launch) -> CommandJudge:
        judges.append(CommandJudge(launch, script, checker, index))
        return judges[-1]

    def judged_lines(launch: Launch) -> tuple[list[tuple[CommandLine, list[Finding]]], bool]:
        """The command lines of a concrete launch that are checked, each with its findings, and
        whether a finding or note is placed where the script wrote its words; what is not verified
        and the notes are told as they are found."""
        unknown = unknown_command_string(launch)
        if unknown is not None:
            not_verified(launch, unknown)
            return [], False
        opaque = _opaque_notes(launch)
        notes.update(opaque)
        placed = bool(opaque)
        lines = command_lines(launch, index)
        if not lines:  # a module of MaxText's the pin has no entry point for: said, never silent
            release = checker.pin.pin.removeprefix("maxtext-")
            notes.update(f"{launch.file}:{launch.line}: {module} is no module of MaxText {release} that reads its config"
                         " from the command line: its command line is not checked"
                         for words, _ in launched_segments(launch) if (module := unknown_module([w.text for w in words], index)))
        checked_lines = []
        for line in lines:
            reason = not_checked(line.command)
            if reason is not None:
                not_verified(line, reason)
                continue
            checked_lines.append((line, _check_line(line, script, checker, index, notes, results)))
            unknown = unknown_keys.notes(line.words[i] for i in line.command.args)
            notes.update(unknown)
            placed = placed or bool(unknown) or bool(checked_lines[-1][1])
            if line.command.old_layout:
                old_layout.setdefault(line.file, set()).add(line.line)
        return checked_lines, placed

    judged = Judged(judged_lines)
    for launch, argv in concrete_commands(exploration, rule_names, judge_for, not_verified, shared):
        for line, findings in judged(launch):
            checked += 1
            owned = [f for f in findings if argv.owns(keys_read(f, checker), f.rule) and argv.owns_at(f.location)]
            if any(f.severity != "info" for f in owned):
                to_fix.setdefault(tuple(w.text for w in line.words), line)
            for finding in owned:
                key = (finding.rule, finding.location, finding.message if finding.location is None else "")
                seen.setdefault(key, (finding, []))[1].append(argv.path)
    for judge in judges:  # a rule the solver cannot decide: FL011 for it alone, where its names are written
        for (_, place), reason in judge.undecided_rules.items():
            at = place or Location(judge.launch.file, judge.launch.line, 1, end_column=2)
            unverified.setdefault((at.file, at.line, reason), built_in(
                "FL011", (), at, allow_unverified=allow_unverified, reason=reason))
    for file, lines in old_layout.items():
        numbers = sorted(lines)
        notes.add(layout_note(checker, f"{file}:{numbers[0]}" if len(numbers) == 1 else f"{file}: lines {', '.join(map(str, numbers))}"))
    found = list(unverified.values()) + with_witnesses(seen, exploration, witnesses or Witnesses(script, text))
    fix = None
    if max_fixes:
        data = text if text is not None else read_file(script, SCRIPT)
        fix = next((f for line in list(to_fix.values())[:FIX_TRIES]
                    if (f := _fix_line(line, script, data, checker, index, max_fixes)) is not None), None)
    return CommandsChecked(found, notes, checked, fix, judged.count)


class Judged(Generic[T]):
    """What `judge` gives for a concrete launch, once for launches alike: at one place, with the same
    words, environment and files written before it, as text. `judge(launch)` gives its judgement and
    whether it read where the script wrote the words (a finding or note placed there); only then do
    launches of the same text with other origins get judgements of their own (origins compared,
    never hashed: a word's are hundreds of runs). So the paths that give a launch site the same
    command line share one judgement. `count`: the launches judged."""

    def __init__(self, judge: Callable[[Launch], tuple[T, bool]]):
        self.judge = judge
        self.count = 0
        self._found: dict[tuple, list[tuple[list, T, bool]]] = {}
        self._objects: dict[tuple, tuple] = {}  # the same words, environment and files again (kept: their ids stay theirs)

    def __call__(self, launch: Launch) -> T:
        objects = (id(launch.words), id(launch.env), id(launch.files))
        if objects not in self._objects:
            self._objects[objects] = ((launch.words, launch.env, launch.files), self._alike(launch))
        return self._objects[objects][1]

    def _alike(self, launch: Launch) -> T:
        key = (launch.file, launch.line, tuple([(w.text, w.opaque) for w in launch.words]),
               tuple([(name, value.text) for name, value in launch.env.items()]),
               tuple([(name, value.text) for name, value in launch.files.items()]))
        origins = [w.origins for w in launch.words] + [value.origins for value in launch.files.values()]
        alike = self._found.setdefault(key, [])
        for seen, judged, placed in alike:
            if not placed or all(a is b or a == b for a, b in zip(seen, origins)):
                return judged
        judged, placed = self.judge(launch)
        alike.append((origins, judged, placed))
        self.count += 1
        return judged


def _opaque_notes(launch: Launch) -> list[str]:
    """A note for each key of a handed command string whose value holds a command's output: not
    judged, and spliced into the string, so a space in that output splits the word there."""
    notes = []
    for key, word in opaque_values(launch):
        origin = next((o for o in word.origins if o is not None), None)
        where = f"{origin.file}:{origin.line}" if origin is not None else f"{launch.file}:{launch.line}"
        notes.append(f"{where}: {key}'s value in the command string holds a command's output, not known here: {key} is not judged"
                     " (the output is spliced into the string, so where it holds a space, tab or newline the word splits there)")
    return notes


def with_witnesses(seen: dict[tuple, tuple[Finding, list[ExploredPath]]], exploration: Exploration,
                   witness: Witnesses) -> list[Finding]:
    """Each finding of the command lines with its smallest witness over the paths it occurs on."""
    if not seen:
        return []
    explored = [path for outcome in exploration.outcomes for path in outcome.paths]
    from flaglint.render.bash.path_conditions import PathConditions  # noqa: PLC0415 z3: only where a finding needs a witness
    conditions = PathConditions(exploration.inputs, explored)
    found = []
    lines: dict[str, list[str] | None] = {}  # each file's lines, read once for all its findings
    for finding, paths in seen.values():
        path, matters = conditions.witness(paths)
        finding.witness = witness(path, matters, paths)
        for name in _unset_inputs_at(finding.location, path, exploration.inputs, lines):
            finding.witness["env"].setdefault(name, None)
        found.append(finding)
    return found


def _fix_line(line: CommandLine, script: Path, data: bytes, checker: Checker, index: ConfigIndex | None,
              max_fixes: int) -> Fix | None:
    argv = [line.words[i] for i in line.command.args]
    words = [w.text for w in argv]
    if any(OTHER in word for word in words):
        return None  # a value built from an input's "anything else": not known, so not fixed
    config, _ = config_path(line.command, [script.parent, Path.cwd()], index, line.written)
    try:
        source = argv_with_chain(words, config, index, line.written)
    except InputError:
        return None
    return command_fix(line.checker(checker).check(source, line.env, max_fixes=max_fixes).fixes, argv, line.words[-1], script, data)


_EXPANSION = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _unset_inputs_at(location: Location | None, path: ExploredPath, inputs: dict,
                     lines: dict[str, list[str] | None]) -> list[str]:
    """The inputs the finding's word expands that are unset on the path. An input no condition
    compares has the one value `unset` (so no witness condition names it), yet it is why MaxText
    gets `key=` there. `lines`: the files' lines read so far."""
    if location is None or location.file is None or location.end_line is not None:
        return []
    if location.file not in lines:
        try:
            lines[location.file] = read_text(location.file, SCRIPT).splitlines()
        except Unreadable:
            lines[location.file] = None
    found = lines[location.file]
    if found is None or not 0 < location.line <= len(found):
        return []
    text = found[location.line - 1]
    word = re.match(r"\S*", text[location.column - 1:]).group()  # the word as written, with its expansions
    return [name for name in _EXPANSION.findall(word)
            if (name in path.env and path.env[name] is None) or list(inputs.get(name, ())) == [None]]


def _check_line(line: CommandLine, script: Path, checker: Checker, index: ConfigIndex | None, notes: set[str],
                results: dict[tuple, list[Finding]]) -> list[Finding]:
    words = [line.words[i].text for i in line.command.args]
    origins = _argv_origins(line)
    config, note = config_path(line.command, [script.parent, Path.cwd()], index, line.written)
    if note is not None:
        notes.add(f"{line.file}:{line.line}: {note}")
    content = line.written[config].text if config in line.written else None
    judge = line.checker(checker)
    key = (origins.text, config, content, tuple(sorted(line.env.items())), judge.devices, judge.pin.config_class)
    if key not in results:
        results[key] = check_command(judge, words, config, line.env, _unknown_keys(words), index, line.written)
    in_script = []
    for finding in results[key]:
        if OTHER in finding.message:
            continue
        related = tuple(found for where in finding.related if (found := placed(where, origins)) is not None)
        located = placed(finding.location, origins) or Location(line.file, line.line, 1, end_column=2)
        in_script.append(finding.replace(location=located, related=related))
    return in_script


def _argv_origins(line: CommandLine) -> Value:
    """The command line's argv as MaxText reads it, with where the script wrote each character."""
    argv = [line.words[i] for i in line.command.args]
    return Value(argv_source([w.text for w in argv]).text, quoted_origins([(w.text, w.origins) for w in argv]))


def placed(where: Location | None, origins: Value) -> Location | None:
    """A place in the command line as a place in the script (or config file) that wrote it; None
    where no character of it was written there."""
    if where is None or where.file is not None:
        return where  # a line of a config file
    return script_location(origins, where.column - 1, where.end_column - 1)

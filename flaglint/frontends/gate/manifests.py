"""The CI gate: every trainer launch in a JobSet manifest, checked before `kubectl apply`.

A launch is what a container starts: its `command`/`args` directly, or each python command of a
`bash -c` script (also inside `( ... ) &` wrappers), evaluated statically by the recipe bash
evaluator. Its MAXTEXT_EXTRA_FLAGS and Tunix variables come from the container env, the script's
exported variables and the command's own prefix assignments; the launcher's `--flag=value`
arguments set Tunix variables too, and the TPU node selector fixes TRAINER_TPU_SLICE. Each
finding is placed at the manifest line and column of the characters it is about.
"""

from __future__ import annotations

import copy
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Union

from flaglint.core.edits import Applicability, Edit
from flaglint.core.findings import Finding, Fix, Result
from flaglint.core.location import Location
from flaglint.core.reading import MANIFEST, read_text
from flaglint.fix.files import text_edits
from flaglint.frontends.checker import Checker, check_command
from flaglint.frontends.commands import (
    class_checker,
    config_path,
    handed_segments,
    layout_note,
    not_checked,
)
from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.maxtext.launch import MAXTEXT_LAUNCHES, recognise, unwrap
from flaglint.maxtext.pyconfig import is_key_variable
from flaglint.maxtext.tpu import slice_devices, slice_topology
from flaglint.pins.pins import DEFAULT_PIN
from flaglint.read.argv import argv_source, quoted_origins
from flaglint.read.flags import FlagSource
from flaglint.render.bash.builtins import shell_operand
from flaglint.render.bash.compiler import Command
from flaglint.render.bash.machine import SHELLS, Interp
from flaglint.render.bash.state import is_file_test
from flaglint.render.bash.types import ScriptError, Value
from flaglint.render.manifest import (
    Container,
    Scalar,
    Unread,
    read_manifest,
    unknown_reference,
)
from flaglint.report import Checked
from flaglint.resolve.topology import DeviceCount
from flaglint.rules.ruleset import built_in
from flaglint.schema.config_index import load_index
from flaglint.tunix.launch import TunixLaunches, recognise_tunix
from flaglint.tunix.pins import load_tunix_pin
from flaglint.tunix.variables import launcher, load_tunix

TUNIX_READS = TunixLaunches()
_MANIFEST = "<manifest>"  # the Origin file of characters that come straight from the manifest
_STEP_CAP = 50_000  # a bash -c command is a launcher, not a long program: stop a runaway loop early


@dataclass
class ContainerProcess:
    """One process a container starts (its trainer launch, when it carries flags), with what it
    reads: its environment and its arguments."""

    container: Container
    env: dict[str, Scalar]
    args: list[Scalar]
    program: str
    prefixed: frozenset[str] = frozenset()  # variables the command line itself assigns

    def tunix(self, defaults: Mapping[str, str] | None = None) -> dict[str, Scalar]:
        schema = load_tunix()
        values = {name: Scalar(text, (None,) * len(text)) for name, text in (defaults or {}).items()}
        values.update((name, value) for name, value in self.env.items() if name in schema.variables)
        values.update(_launcher_flags(self.args))
        # The node selector is the trainer's slice only where the trainer's flags are: a rollout's
        # or orchestrator's selector says nothing about the trainer mesh.
        trainer = launcher().flags in self.env or any(name.startswith(launcher().mesh_prefix) for name in values)
        if trainer and self.container.tpu_slice is not None:
            values[launcher().slice] = self.container.tpu_slice
        return values

    @property
    def sets_flags(self) -> bool:
        return bool(self.prefixed & ({launcher().flags} | set(load_tunix().variables))) or bool(_launcher_flags(self.args))

    @property
    def carries_flags(self) -> bool:
        names = set(self.tunix()) - {launcher().slice}
        return launcher().flags in self.env or bool(names) or self.runs_maxtext or self.runs_tunix

    @property
    def runs_maxtext(self) -> bool:
        """It starts one of MaxText's own modules, which reads its argv as the config."""
        return recognise([self.program, *(a.text for a in self.args)], None) is not None

    @property
    def runs_tunix(self) -> bool:
        """It starts `python -m tunix.cli.<entry>`, which reads its argv as Tunix's config."""
        return recognise_tunix([self.program, *(a.text for a in self.args)]) is not None


@dataclass
class _Found:
    launches: list[ContainerProcess] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # about the container's command itself
    notes: list[str] = field(default_factory=list)


def _launcher_flags(args: list[Scalar]) -> dict[str, Scalar]:
    """`--mesh_fsdp=64` and `--mesh_fsdp 64`: the Tunix variable each launcher flag carries."""
    schema = load_tunix()
    found: dict[str, Scalar] = {}
    for index, arg in enumerate(args):
        flag, sep, _ = arg.text.partition("=")
        name = schema.by_flag(flag) if flag.startswith("--") else None
        if name is None:
            continue
        if sep:
            start = len(flag) + 1
            found[name] = Scalar(arg.text[start:], arg.positions[start:])
        elif index + 1 < len(args):
            found[name] = args[index + 1]
    return found


def find_launches(container: Container, file: str, allow_unverified: bool = False) -> _Found:
    """The container's launches that carry flags; a bash -c script that cannot be evaluated is FL010."""
    found = _Found()
    schema = load_tunix()
    # Fail closed: a flag whose value is not in the input could be anything.
    for name, unread in container.unknown_env.items():
        if name == launcher().flags or name in schema.variables or is_key_variable(name):
            found.findings.append(_unread(unread, f"{container.path}: {name} is not known here: {unread.reason}", allow_unverified))
    found.findings.extend(_unread(unread, unread.reason, allow_unverified) for unread in container.unread)
    for argv in (container.argv, *container.hooks):
        script = _bash_script(argv) or _script_file(container, argv, found, file, allow_unverified)
        if script is not None:
            _script_launches(container, script, found, file, allow_unverified)
        elif argv:
            found.launches.append(ContainerProcess(container, dict(container.env), argv[1:], os.path.basename(argv[0].text)))
    if not found.launches:
        found.launches.append(ContainerProcess(container, dict(container.env), [], ""))
    found.launches = [launch for launch in found.launches if launch.carries_flags]
    # A setup `python -c ...` inherits the container's variables too; the trainer launch is the one
    # that sets flags itself, so when there is one, the others are not launches of the trainer.
    own = [launch for launch in found.launches if launch.sets_flags or launch.runs_maxtext or launch.runs_tunix]
    if own:
        found.launches = own
    return found


def _unread(unread: Unread, reason: str, allow_unverified: bool) -> Finding:
    where = unread.location
    return built_in("FL011", (), where.replace(end_column=where.end_column or where.column + 1), allow_unverified=allow_unverified,
                    reason=reason)


def _bash_script(argv: list[Scalar]) -> Scalar | None:
    """The script of `bash -c SCRIPT` (also `sh -e -c`, `bash -o pipefail -c`, behind a wrapper
    such as `/usr/bin/env bash -c`)."""
    texts = [word.text for word in argv]
    at = 0
    while (unwrapped := unwrap(texts[at:])) is not None:
        at += unwrapped.start
    if at >= len(argv) or os.path.basename(texts[at]) not in SHELLS:
        return None
    operand, command_string = shell_operand(texts[at + 1:])
    return argv[at + 1 + operand] if command_string and operand is not None else None


def _script_file(container: Container, argv: list[Scalar], found: _Found, file: str, allow_unverified: bool) -> Scalar | None:
    """The text of the script a command runs (`bash FILE`, `sh -e FILE`, `FILE.sh`, behind a
    wrapper) where a ConfigMap or Secret of the input holds it at that path; a script that is not
    in the input is FL011 (what it launches is not known here), and None."""
    texts = [word.text for word in argv]
    at = 0
    while (unwrapped := unwrap(texts[at:])) is not None:
        at += unwrapped.start
    if at >= len(argv):
        return None
    if os.path.basename(texts[at]) in SHELLS:
        operand, command_string = shell_operand(texts[at + 1:])
        if command_string or operand is None:
            return None
        at += 1 + operand
    elif not (texts[at].endswith(".sh") or texts[at] in container.files):
        return None
    path = posixpath.normpath(texts[at])
    if path in container.files:
        return container.files[path]
    found.findings.append(_unverified_at(argv[at], f"it runs the script {texts[at]}, which is not in the input (lint that script)",
                                         file, container.path, allow_unverified))
    return None


def _script_launches(container: Container, script: Scalar, found: _Found, file: str, allow_unverified: bool) -> None:
    """The launches of a container's `bash -c` script, run with the container's environment on each
    combination of the file tests it makes (`[ -d /data ] || exit 1`): whether a path outside the
    container's command holds is known only where it runs, so a launch behind either outcome is
    judged. Past _FILE_TEST_RUNS runs, the rest is not verified (FL011)."""
    path = f"{file}#{container.path}"  # the command evaluated from its text, under a name no file has
    to_manifest = _OriginMap(path, script)
    pending: list[dict[str, bool]] = [{}]
    tried: set[frozenset] = set()
    seen: set[tuple] = set()
    while pending:
        held = pending.pop(0)
        if frozenset(held.items()) in tried:
            continue
        tried.add(frozenset(held.items()))
        if len(tried) > _FILE_TEST_RUNS:
            found.findings.append(built_in("FL011", (), to_manifest.line_location(1, file), allow_unverified=allow_unverified,
                                          reason=f"{container.path}: the bash -c script makes more file tests than"
                                                 f" {_FILE_TEST_RUNS} runs of it cover; launches behind the others are not checked"))
            return
        ran = _run_script(container, script, path, to_manifest, held, file, allow_unverified, found)
        if ran is None:
            return
        launches, tests = ran
        for launch in launches:
            key = (tuple(a.text for a in launch.args), launch.program, tuple(sorted((k, v.text) for k, v in launch.env.items())))
            if key not in seen:
                seen.add(key)
                found.launches.append(launch)
        pending.extend({**held, name: True} for name in tests if name not in held)


_FILE_TEST_RUNS = 64  # runs of a bash -c script over the outcomes of its file tests


def _run_script(container: Container, script: Scalar, path: str, to_manifest: _OriginMap, held: dict[str, bool],
                file: str, allow_unverified: bool, found: _Found) -> tuple[list[ContainerProcess], list[str]] | None:
    """One run of the script: the file tests in `held` hold, every other one fails. Its launches and
    the file tests it made; None when it cannot be read (FL010) or runs past _STEP_CAP (FL011)."""
    launches: list[ContainerProcess] = []
    try:
        interp = Interp(path, MAXTEXT_LAUNCHES, text=script.text.encode("utf-8"))
        state = interp.start({})
        for name, value in container.env.items():
            state.scopes[0][name] = Value(value.text, [_manifest_origin(p) for p in value.positions])
            state.exported.add(name)
        for name in held:
            state.inputs[name] = Value("true", [None] * 4)
        steps = 0
        while not state.done and steps < _STEP_CAP:
            steps += 1
            instrs = state.code.instrs
            instr = instrs[state.pc] if state.pc < len(instrs) else None
            env, seen = None, None
            if isinstance(instr, Command):
                fields = [to_manifest.scalar(v) for v in interp.fields(instr.words, state)]
                prefix = interp.prefix(instr, state)
                env = {name: to_manifest.scalar(v) for name, v in interp.child_env(state, prefix).items() if isinstance(v, Value)}
                seen = _launch(container, fields, env, set(prefix))
                if seen is not None:
                    launches.append(seen)
            recorded = len(state.launched)
            interp.step(state)
            # what the command hands over as a string (`eval`, `bash -c`, `bash <<EOF`, `trap … EXIT`), or
            # the command the evaluator found in it where its words did not show one (`env -S '…'`)
            for handed in state.launched[recorded:]:
                whole = [] if seen is not None or not all(type(w) is Value for w in handed.words) else [list(handed.words)]
                for segment in handed_segments(handed) or whole:
                    launch = _launch(container, [to_manifest.scalar(v) for v in segment], dict(env or {}), set(handed.assigned))
                    if launch is not None:
                        launches.append(launch)
    except ScriptError as err:
        # Fail closed: a command that cannot be read could hide any flag.
        found.findings.append(built_in("FL010", (), to_manifest.line_location(err.line, file), variant="bash_c",
                                      container=container.path, reason=err.message))
        return None
    for note in (*state.unfound, *([state.unbounded] if state.unbounded is not None else [])):
        # Fail closed: what the script runs or sets past a construct it does not follow is not known.
        unfollowed = built_in("FL011", (), to_manifest.line_location(note.line, file), variant="unfollowed",
                              allow_unverified=allow_unverified, reason=f"{container.path}: {note.message}")
        if not any((f.rule, f.location, f.message) == (unfollowed.rule, unfollowed.location, unfollowed.message) for f in found.findings):
            found.findings.append(unfollowed)  # once, whichever runs of the script meet it
    if steps >= _STEP_CAP:
        # Fail closed: a launch after the loop is not checked, so the gate must not pass it.
        found.findings.append(built_in("FL011", (), to_manifest.line_location(interp.line, file), variant="step_cap",
                                      allow_unverified=allow_unverified, container=container.path, steps=_STEP_CAP, line=interp.line))
        return None
    return launches, [name for name in state.inputs if is_file_test(name)]


def _launch(container: Container, fields: list[Scalar], env: dict[str, Scalar], prefixed: set[str]) -> ContainerProcess | None:
    """The process a command of the script starts, past `exec` and the wrappers it is written
    behind (`nice`, `timeout 1h`, `env K=V`, …), with the environment they give it."""
    while fields:
        if fields[0].text in ("exec", "command", "coproc"):  # the rest is the command (coproc's NAME before its braces is not)
            named = fields[0].text == "coproc" and len(fields) > 2 and fields[2].text in ("{", "(")
            fields = fields[2 if named else 1:]
            while fields and fields[0].text in ("-p", "--", "{", "("):
                fields = fields[1:]
            continue
        unwrapped = unwrap([field.text for field in fields])
        if unwrapped is None:
            break
        if unwrapped.cleared:
            env = {}
        for name in unwrapped.unset:
            env.pop(name, None)
        for index in unwrapped.assigned:
            name, _, _ = fields[index].text.partition("=")
            env[name] = Scalar(fields[index].text[len(name) + 1:], fields[index].positions[len(name) + 1:])
            prefixed.add(name)
        fields = fields[unwrapped.start:]
    if not fields:
        return None
    program = os.path.basename(fields[0].text)
    launch = ContainerProcess(container, env, fields[1:], program, frozenset(prefixed))
    if program.startswith("python") or launcher().flags in prefixed or _launcher_flags(launch.args):
        return launch
    return None


def _manifest_origin(position: Location | None) -> Location | None:
    return None if position is None else position.replace(file=_MANIFEST)


class _OriginMap:
    """Script characters (bash Origins in the temporary script file) back to manifest positions."""

    def __init__(self, path: str, script: Scalar):
        self.path = path
        self.script = script
        self.line_starts = [0] + [i + 1 for i, c in enumerate(script.text) if c == "\n"]

    def position(self, origin: Location | None) -> Location | None:
        if origin is None:
            return None
        if origin.file == _MANIFEST:
            return origin
        if origin.file != self.path or origin.line > len(self.line_starts):
            return None
        index = self.line_starts[origin.line - 1] + origin.column - 1
        return self.script.positions[index] if index < len(self.script.positions) else None

    def scalar(self, value) -> Scalar:
        return Scalar(value.text, tuple(self.position(o) for o in value.origins))

    def line_location(self, line: int, file: str) -> Location | None:
        """The manifest span of a script line (the scalar's start when the line is not known)."""
        if not 0 < line <= len(self.line_starts):
            line = 1
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.script.text)
        return _located(self.script, start, max(end, start + 1), file)


# ---- checking ----

def _located(scalar: Scalar, start: int, end: int, file: str) -> Location | None:
    """The manifest span of scalar characters [start, end), or None when they were not written there."""
    first = scalar.positions[start] if start < len(scalar.positions) else None
    last = scalar.positions[end - 1] if 0 < end <= len(scalar.positions) else None
    if first is None:
        first = scalar.start
        last = None
    if first is None:
        return None
    if last is None or (last.line, last.column) < (first.line, first.column):
        return Location(file, first.line, first.column, end_column=first.column + 1)
    return Location(file, first.line, first.column, end_column=last.column + 1, end_line=last.line if last.line != first.line else None)


class _FlagPlacer:
    """Locations in the flag string (line/column of its own text) moved to the manifest."""

    def __init__(self, flags: Scalar, tunix: dict[str, Scalar], label: str):
        self.flags = flags
        self.tunix = tunix
        self.label = label
        self.line_starts = [0] + [i + 1 for i, c in enumerate(flags.text) if c == "\n"]

    def move(self, location: Location) -> Location | None:
        start = self.line_starts[location.line - 1] + location.column - 1
        end = self.line_starts[location.line - 1] + location.end_column - 1
        return _located(self.flags, start, end, self.label)

    def place(self, finding: Finding, prefix: str) -> Finding:
        location = self.move(finding.location) if finding.location else None
        # a related place in a config file (MaxText's own, an RL config's num_samplers_slices) stays there
        flags = {None, finding.location.file if finding.location else None}
        related = tuple(moved for loc in finding.related if (moved := self.move(loc) if loc.file in flags else loc) is not None)
        if location is None:
            keyed = [self.tunix[key] for key in finding.keys if key in self.tunix]
            spans = [loc for value in keyed if (loc := _located(value, 0, len(value.text), self.label))]
            if spans:
                location, related = spans[0], related + tuple(spans[1:])
        return finding.replace(message=f"{prefix}: {finding.message}", location=location, related=related)

    def place_fix(self, fix: Fix) -> list[Edit]:
        """The fix as edits of the manifest: each token it changes, drops or appends, and each Tunix
        variable it sets, at the characters that hold them (their offsets are found in the
        manifest's text by `manifest_edits`)."""
        text = self.flags.text
        placed = []
        for edit in fix.edits:
            if edit.variable is not None:
                value = self.tunix.get(edit.variable)
                location = _located(value, 0, max(len(value.text), 1), self.label) if value is not None else None
                old, new = value.text if value is not None else "", edit.new
            elif edit.start == edit.end == len(text):  # appended: an empty span just after the last character
                last = _located(self.flags, max(len(text) - 1, 0), len(text), self.label)
                location = last and Location(last.file, last.end_line or last.line, last.end_column, end_column=last.end_column)
                old, new = "", edit.new
            else:
                old = text[edit.start:edit.end].strip()  # a dropped token's edit takes a blank next to it too
                start = text.index(old, edit.start) if old else edit.start
                location = _located(self.flags, start, start + max(len(old), 1), self.label)
                new = edit.new.strip()
            # Unsetting a variable removes its entry, and a value not written in the manifest is nowhere to edit: by hand.
            written = location is not None and (edit.variable is None or bool(new))
            placed.append(Edit(location, old, new, Applicability.SAFE if written else Applicability.BY_HAND, edit.variable))
        return placed


def manifest_edits(text: str, fix: Fix, file: str) -> list[Edit] | None:
    """The fix as byte edits of the manifest `text` (the file `file`, or stdin), or None when a part
    of it is not an edit of characters there (a variable to unset, a value not written in it)."""
    line_starts = _line_starts(text)
    edits = []
    for placed in fix.edits:
        start = _written_at(text, line_starts, placed)
        if start is None:
            return None
        end = start + len(placed.old)
        if not placed.new and start > 0 and text[start - 1] == " ":
            start -= 1  # a dropped token goes with the blank before it
        edits.append(Edit.in_text(text, start, end, placed.new, file))
    return text_edits(file, text, edits, fix.applicability)


def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]


def _written_at(text: str, line_starts: list[int], placed: Edit) -> int | None:
    """Where in the manifest's text the characters an edit replaces are, as written; None when they
    are not (escaped in the YAML, base64 in a Secret) or the edit is done by hand."""
    location = placed.location
    if not placed.written or location is None or location.line > len(line_starts):
        return None
    start = line_starts[location.line - 1] + location.column - 1
    return start if text[start:start + len(placed.old)] == placed.old else None


def _by_hand_where_not_written(text: str, fix: Fix, file: str) -> Fix:
    """The fix with each edit of characters the manifest does not hold as written (escaped, base64)
    made an edit by hand, so that the report says what --fix leaves to a person."""
    line_starts = _line_starts(text)
    edits = []
    for placed in fix.edits:
        if not placed.written or _written_at(text, line_starts, placed) is not None:
            edits.append(placed)
            continue
        what = f"remove {placed.old!r}" if not placed.new else f"write {placed.new!r} for {placed.old!r}"
        where = placed.location
        edits.append(Edit(None, placed.old, f"{what} in the value at {file}:{where.line}:{where.column}", Applicability.BY_HAND,
                          placed.variable))
    return fix.replace(edits=edits)


def check_launch(checker: Checker, launch: ContainerProcess, label: str, *, env: Mapping[str, str] | None = None,
                 fix: bool = True, max_fixes: int = 3, tunix_pin: str | None = None, allow_unverified: bool = False) -> Result:
    """One launch's flags and Tunix variables (over `env`, the values assumed for every launch), checked together."""
    command = _maxtext_command(checker, launch, label, allow_unverified)
    if command is not None:
        return command
    tunix = _tunix_command(checker, launch, label, tunix_pin, allow_unverified)
    if tunix is not None:
        return tunix
    flags = launch.env.get(launcher().flags, Scalar("", ()))
    tunix = launch.tunix(env)
    result = checker.check(FlagSource(flags.text, file=label, name=launcher().flags),
                           {name: value.text for name, value in tunix.items()}, fix=fix, max_fixes=max_fixes)
    placer = _FlagPlacer(flags, tunix, label)
    where = launch.container.path + (f" ({launch.program})" if launch.program else "")
    result.findings = [placer.place(finding, where) for finding in result.findings]
    result.fixes = [fix.replace(edits=placer.place_fix(fix)) for fix in result.fixes]
    return result


def _maxtext_command(checker: Checker, launch: ContainerProcess, label: str, allow_unverified: bool) -> Result | None:
    """A container that runs MaxText's own entry point: its argv (after the config argument, which
    resolves in MaxText's configs) and the M_ variables of its environment, checked as MaxText reads them."""
    index = load_index(checker.pin.configs)
    words = [launch.program, *launch.args]
    command = recognise([w if isinstance(w, str) else w.text for w in words], index)
    if command is None:
        return None
    result = Result(pin=checker.pin.pin)
    where = f"{launch.container.path} ({command.module})"
    reason = not_checked(command)
    if reason is not None:
        result.findings = [_unverified_at(launch.args[0] if launch.args else Scalar("", ()), reason, label, where, allow_unverified)]
        return result
    argv = [launch.args[i - 1] for i in command.args]
    unknown = next(((word, name) for word in argv if (name := unknown_reference(word, launch.container)) is not None), None)
    if unknown is not None:
        word, name = unknown
        reason = f"its argument {word.text!r} refers to $({name}), whose value is not known here"
        result.findings = [_unverified_at(word, reason, label, where, allow_unverified)]
        return result
    config, note = config_path(command, [], index)
    if note is not None:
        result.notes.append(f"{label}: {where}: {note}")
    if command.old_layout:
        result.notes.append(layout_note(checker, f"{label}: {where}"))
    environment = {name: value.text for name, value in launch.env.items() if is_key_variable(name)}
    texts = [a.text for a in argv]
    placer = _FlagPlacer(Scalar(argv_source(texts).text, tuple(quoted_origins([(a.text, a.positions) for a in argv]))), {}, label)
    result.findings = [placer.place(f, where) if f.location is None or f.location.file is None else f
                       for f in check_command(on_slice(class_checker(checker, command), launch), texts, config, environment, index=index)]
    return result


def _unverified_at(word: Scalar, reason: str, label: str, where: str, allow_unverified: bool) -> Finding:
    """FL011 for a launch, at the start of one of its words in the manifest."""
    unverified = built_in("FL011", (), Location(None, 1, 1, end_column=2), allow_unverified=allow_unverified, reason=reason)
    return _FlagPlacer(word, {}, label).place(unverified, where)


def _tunix_command(checker: Checker, launch: ContainerProcess, label: str, tunix_pin: str | None,
                   allow_unverified: bool) -> Result | None:
    """A container that runs `python -m tunix.cli.<entry>`: its argv and the T_ variables and
    HF_TOKEN of its environment, checked at the Tunix pin (a MaxText model's argv at the checker's
    MaxText pin); a path in it is looked for in the working directory (the image's is not known)."""
    command = recognise_tunix([launch.program, *(a.text for a in launch.args)])
    if command is None:
        return None
    pin = load_tunix_pin(tunix_pin)
    args = launch.args[command.start - 1:]
    texts = [a.text for a in args]
    environment = {name: value.text for name, value in launch.env.items() if TUNIX_READS.reads_variable(name)}
    selected, slices = launch.container.tpu_slice, launch.container.slices or 1
    per_slice = slice_devices(selected.text) if selected is not None else None
    devices = DeviceCount(per_slice * slices, slices, f"the TPU topology selector ({selected.text})") if per_slice else None
    checked = check_tunix_words(pin, command, texts, environment, (Path.cwd(),), allow_unverified=allow_unverified,
                                devices=devices, maxtext=lambda: on_slice(checker, launch))
    placer = _FlagPlacer(Scalar(argv_source(texts).text, tuple(quoted_origins([(a.text, a.positions) for a in args]))), {}, label)
    where = f"{launch.container.path} (tunix.cli.{command.entry})"
    findings = []
    for finding in checked.findings:
        in_files = tuple(loc for loc in finding.related if loc.file is not None)  # a line of the base or override file
        if finding.location is None or finding.location.file is None:
            placed = placer.place(finding.replace(related=tuple(loc for loc in finding.related if loc.file is None)), where)
            findings.append(placed.replace(related=placed.related + in_files))
        else:
            findings.append(finding.replace(message=f"{where}: {finding.message}"))
    return Result(pin=pin.name, findings=findings, notes=[f"{label}: {where}: {note}" for note in checked.notes])


def on_slice(checker: Checker, launch: ContainerProcess) -> Checker:
    """The checker with the device count of the container's TPU topology selector and its
    replicated job's slices, when the manifest gives both."""

    selected, slices = launch.container.tpu_slice, launch.container.slices
    count = slice_devices(selected.text) if selected is not None else None
    if count is None or slices is None or checker.devices is not None:
        return checker
    on_selected = copy.copy(checker)
    source = f"the TPU topology selector ({selected.text})" + (f", {slices} slices (the replicated job's replicas)" if slices > 1 else "")
    on_selected.devices = DeviceCount(count * slices, slices, source, slice_topology(selected.text, checker.pin.topologies))
    return on_selected


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # a name too long for a path, or one with a NUL in it
        return False


def _manifest_text(path_or_text: Union[str, os.PathLike]) -> tuple[str, str]:
    one_line = isinstance(path_or_text, str) and "\n" not in path_or_text
    if isinstance(path_or_text, os.PathLike) or (one_line and (_is_file(path_or_text) or path_or_text.endswith((".yaml", ".yml")))):
        path = os.fspath(path_or_text)
        return read_text(path, MANIFEST), path
    return str(path_or_text), _MANIFEST


def check_manifest(
    path_or_text: Union[str, os.PathLike],
    *,
    pin: str = DEFAULT_PIN,
    model: str | None = None,
    extra_rules: tuple[str, ...] = (),
    label: str | None = None,
    env: Mapping[str, str] | None = None,
    fix: bool = True,
    max_fixes: int = 3,
    checker: Checker | None = None,
    allow_unverified: bool = False,
    tunix_pin: str | None = None,
) -> list[Checked]:
    """Check every launch of every JobSet in a manifest: a path (os.PathLike, or a one-line str naming an
    existing file or ending in .yaml/.yml) or the YAML text itself. `env` holds Tunix variables assumed for every launch (the manifest's
    own values win). One Checked per launch; the manifest's notes (skipped documents, values not
    known) go with the first. Broken YAML raises InputError with file:line."""
    text, default_label = _manifest_text(path_or_text)
    return check_manifest_text(text, label or default_label, env=env, fix=fix, max_fixes=max_fixes,
                               checker=checker or Checker(pin, model, tuple(extra_rules), fail_closed=not allow_unverified),
                               allow_unverified=allow_unverified, tunix_pin=tunix_pin)


def check_manifest_text(text: str, label: str, *, checker: Checker, env: Mapping[str, str] | None = None,
                        fix: bool = True, max_fixes: int = 3, allow_unverified: bool = False,
                        tunix_pin: str | None = None) -> list[Checked]:
    """`check_manifest` of YAML text read elsewhere (stdin): never taken for a path, whatever it holds.
    Whether a MaxText check flaglint cannot judge is an error is the checker's (`fail_closed`)."""
    manifest = read_manifest(text, label)
    checked: list[Checked] = []
    notes = list(manifest.notes)
    unread = [_unread(item, item.reason, allow_unverified) for item in manifest.unread]
    if not manifest.containers and not manifest.unread:
        # Fail closed: a gate that read no workload has checked nothing, whatever the file holds.
        unread.append(_unread(Unread(Location(label, 1, 1), ""), "the input holds no workload (a JobSet, Job, Pod, Deployment, "
                              "StatefulSet, …, also in a kind: List): nothing was checked", allow_unverified))
    for container in manifest.containers:
        found = find_launches(container, label, allow_unverified)
        notes.extend(found.notes)
        results = [check_launch(checker, launch, label, env=env, fix=fix, max_fixes=max_fixes, tunix_pin=tunix_pin,
                                allow_unverified=allow_unverified) for launch in found.launches]
        for result in results:
            result.fixes = [_by_hand_where_not_written(text, made, label) for made in result.fixes]
        if found.findings:
            results = results or [Result(pin=checker.pin.pin)]
            results[0].findings[:0] = found.findings
        checked.extend(Checked(label, text, result) for result in results)
    if not checked:
        checked.append(Checked(label, text, Result(pin=checker.pin.pin)))
        if manifest.containers:
            notes.append(f"{label}: no container carries MaxText or Tunix flags")
    checked[0].result.findings[:0] = unread
    checked[0].result.notes[:0] = notes
    return checked

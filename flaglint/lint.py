"""Checking recipe scripts: every feasible branch outcome rendered statically, then checked.

Each finding carries a witness (the inputs that trigger it and the branches taken) and points at
the token in the script that set the offending value. Fixes become byte edits of the literal
flag tokens in the script; when a value comes from elsewhere, the line to add is printed instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .check import Checker
from .findings import Finding, Fix, Location, Result
from .read import FlagSource, decode
from .render.bash import OTHER, Exploration, Outcome, Rendering, ScriptError, Value, explore
from .tunix import load_tunix

FLAGS_VARIABLE = "MAXTEXT_EXTRA_FLAGS"


@dataclass(frozen=True)
class FileEdit:
    file: str
    start: int  # byte offsets
    end: int
    text: str
    safe: bool


@dataclass
class ScriptCheck:
    path: Path
    text: str
    result: Result
    edits: list[FileEdit] = field(default_factory=list)
    additions: list[str] = field(default_factory=list)  # lines to add by hand
    paths: int = 0
    outcomes: int = 0


def _trainer_rendering(rendering: Rendering) -> Rendering:
    """The rendering that launches the trainer: the last handoff (exec/bash) that sets the flags, else the script itself."""
    for handoff in reversed(rendering.handoffs):
        found = _trainer_rendering(handoff)
        if FLAGS_VARIABLE in found.variables:
            return found
    return rendering


def _location(value: Value, start: int, end: int) -> Location | None:
    origins = [o for o in value.origins[start:end] if o is not None]
    if not origins:
        return None
    first = origins[0]
    last = next(o for o in reversed(origins) if o.file == first.file and o.line == first.line)
    return Location(first.line, first.column, last.column + 1, first.file)


def _span(text: str, location: Location) -> tuple[int, int]:
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[: location.line - 1]) + location.column - 1
    return offset, offset + (location.end_column - location.column)


def _file_span(value: Value, start: int, end: int) -> tuple[str, int, int] | None:
    """The byte range in one file that wrote value.text[start:end], if it is one literal run."""
    origins = value.origins[start:end]
    if not origins or any(o is None for o in origins):
        return None
    first = origins[0]
    position = first.offset
    for char, origin in zip(value.text[start:end], origins):
        if origin.file != first.file or origin.offset != position:
            return None
        position += len(char.encode("utf-8"))
    return first.file, first.offset, position


def _file_edits(value: Value, fix: Fix) -> tuple[list[FileEdit], list[str]] | None:
    edits, additions = [], []
    for edit in fix.edits:
        if edit.start == edit.end == len(value.text):
            additions.append(f'export {FLAGS_VARIABLE}="${{{FLAGS_VARIABLE}}}{edit.text}"')
            continue
        span = _file_span(value, edit.start, edit.end)
        if span is None and edit.text == "":
            stripped = len(value.text[edit.start : edit.end]) - len(value.text[edit.start : edit.end].lstrip())
            span = _file_span(value, edit.start + stripped, edit.end)
        if span is None:
            return None
        edits.append(FileEdit(span[0], span[1], span[2], edit.text, fix.safe))
    for change in fix.changes:
        if change.key in load_tunix().variables:
            additions.append(f"export {change.key}={'' if change.to is None else change.to}")
    return edits, additions


def _valid_inputs(outcome: Outcome) -> bool:
    """False when an input that is a typed Tunix variable takes a value of the wrong type on this path."""
    from .tunix import type_tunix

    for name, value in outcome.env.items():
        var = load_tunix().variables.get(name)
        if var is not None and value is not None and var.kind == "int":
            try:
                type_tunix(name, var, value)
            except ValueError:
                return False
    return True


def _witness_value(outcome: Outcome, name: str) -> str | None:
    """The input's value on this path, preferring a value a user would write to unset or "anything else"."""
    values = outcome.domains.get(name) or [outcome.env.get(name)]
    concrete = [v for v in values if v is not None and v != OTHER]
    if concrete:
        return concrete[0]
    value = outcome.env.get(name)
    return "<any other value>" if value == OTHER else value


def _witness(outcome: Outcome, matters: set[str]) -> dict[str, Any]:
    return {
        "env": {k: _witness_value(outcome, k) for k in outcome.env if k in matters},
        "branches": [line if Path(file) == Path(outcome.rendering.script) else f"{file}:{line}" for file, line in outcome.branches],
    }


def check_script(
    path: Path,
    checker: Checker,
    fixed: Mapping[str, str] | None = None,
    vary: Mapping[str, list[str]] | None = None,
    path_cap: int = 4096,
    max_fixes: int = 3,
) -> ScriptCheck:
    try:
        text = decode(path.read_bytes(), str(path))
    except OSError as err:
        text = ""
        return ScriptCheck(path, text, Result(checker.pin.pin, [Finding("FL010", "error", f"cannot read {path}: {err.strerror}", (), Location(1, 1, 1, str(path)))]))
    result = Result(pin=checker.pin.pin)
    check = ScriptCheck(path, text, result)
    try:
        exploration = explore(path, dict(fixed or {}), dict(vary or {}), path_cap)
    except ScriptError as err:
        result.findings.append(Finding("FL010", "error", f"cannot be evaluated: {err.message}", (), Location(err.line, 1, 2, err.file)))
        return check
    check.paths, check.outcomes = exploration.paths_explored, len(exploration.outcomes)
    if exploration.capped:
        result.findings.append(Finding("FL011", "warning", f"more branch outcomes than the path cap ({path_cap}); checked {exploration.paths_explored} paths ({len(exploration.outcomes)} distinct outcomes)", (), Location(1, 1, 2, str(path))))
    _check_outcomes(check, exploration, checker, max_fixes)
    from .suppress import apply_suppressions, read_suppressions

    result.findings = apply_suppressions(path, result.findings, read_suppressions(path, text))
    return check


def _check_outcomes(check: ScriptCheck, exploration: Exploration, checker: Checker, max_fixes: int) -> None:
    seen: dict[tuple, tuple[Finding, list[Outcome]]] = {}
    notes: set[str] = set()
    variables = load_tunix().variables
    judged = [o for o in exploration.outcomes if _valid_inputs(o)]
    if len(judged) < len(exploration.outcomes):
        notes.add(f"{len(exploration.outcomes) - len(judged)} outcome(s) need a Tunix variable set to a value of the wrong type; not checked")
    for outcome in judged:
        rendering = _trainer_rendering(outcome.rendering)
        flags = rendering.variables.get(FLAGS_VARIABLE) or Value("", [])
        env = {name: value.text for name, value in rendering.variables.items() if name in variables}
        # A value built from an input's "anything else" sample is unknown: rules that read it are not judged.
        unknown = frozenset(
            [name for name, text in env.items() if OTHER in text]
            + [token.split("=", 1)[0] for token in flags.text.split() if OTHER in token]
        )
        result = checker.check(FlagSource(flags.text), env, max_fixes=max_fixes, unknown=unknown)
        for note in rendering.notes:
            notes.add(f"{note.file}:{note.line}: {note.message}")
        for finding in result.findings:
            if OTHER in finding.message:
                continue
            finding.location = _locate(finding, flags, rendering)
            finding.related = tuple(
                loc for related in finding.related if (loc := _location(flags, *_span(flags.text, related))) is not None
            )
            key = (finding.rule, finding.location, finding.keys if finding.location is None else ())
            if key not in seen:
                seen[key] = (finding, [])
            seen[key][1].append(outcome)
        if result.fixes:
            _add_fix(check, flags, result.fixes)
    inputs = exploration.inputs
    for finding, outcomes in seen.values():
        matters = {
            name for name in inputs
            if {o.env.get(name, "<any>") for o in outcomes} != {o.env.get(name, "<any>") for o in exploration.outcomes}
        }
        finding.witness = _witness(outcomes[0], matters)
        check.result.findings.append(finding)
    check.result.notes.extend(sorted(notes))


def _locate(finding: Finding, flags: Value, rendering: Rendering) -> Location | None:
    if finding.location is not None:
        start, end = _span(flags.text, finding.location)
        return _location(flags, start, end)
    for key in finding.keys:
        value = rendering.variables.get(key)
        if value is not None and value.text:
            found = _location(value, 0, len(value.text))
            if found:
                return found
    return None


def _add_fix(check: ScriptCheck, flags: Value, fixes: list[Fix]) -> None:
    """Keep one fix per outcome (a safe one when there is one), once across outcomes."""
    for fix in sorted(fixes, key=lambda f: not f.safe):
        if any(known.changes == fix.changes for known in check.result.fixes):
            return
        mapped = _file_edits(flags, fix)
        if mapped is None:
            continue
        edits, additions = mapped
        for edit in edits:
            if edit not in check.edits and not any(_overlaps(edit, other) for other in check.edits):
                check.edits.append(edit)
        check.additions.extend(a for a in additions if a not in check.additions)
        check.result.fixes.append(fix)
        return


def _overlaps(a: FileEdit, b: FileEdit) -> bool:
    return a.file == b.file and a.start < b.end and b.start < a.end


def apply_file_edits(edits: list[FileEdit], unsafe: bool) -> dict[str, tuple[bytes, bytes]]:
    """file -> (old bytes, new bytes) for the edits that may be applied."""
    by_file: dict[str, list[FileEdit]] = {}
    for edit in edits:
        if edit.safe or unsafe:
            by_file.setdefault(edit.file, []).append(edit)
    changed = {}
    for file, file_edits in by_file.items():
        old = Path(file).read_bytes()
        new = old
        for edit in sorted(file_edits, key=lambda e: e.start, reverse=True):
            new = new[: edit.start] + edit.text.encode("utf-8") + new[edit.end :]
        if new != old:
            changed[file] = (old, new)
    return changed

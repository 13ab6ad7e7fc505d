"""Checking recipe scripts: every feasible branch outcome rendered statically, then checked.

Each finding carries a witness (the inputs that trigger it and the branches taken) and points at
the token in the script that set the offending value. Fixes become byte edits of the literal
flag tokens in the script; when a value comes from elsewhere, the line to add is printed instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

from flaglint.core.edits import Applicability, Edit
from flaglint.core.findings import Finding, Fix, Result
from flaglint.core.location import Location
from flaglint.core.reading import SCRIPT, Unreadable, read_file, read_text
from flaglint.fix.files import apply_to_bytes
from flaglint.fix.suppressed import withhold_fixes_of
from flaglint.frontends.checker import Checker, refused_keys
from flaglint.frontends.lint.kept_witnesses import KeptWitnesses
from flaglint.frontends.lint.launch_parts import (
    COMBINATION_CAP,
    Concrete,
    SharedParts,
    concrete_launches,
)
from flaglint.frontends.lint.script_commands import check_commands, renderings
from flaglint.frontends.lint.suppress import apply_suppressions, read_suppressions
from flaglint.frontends.lint.tunix_commands import (
    TunixLinesChecked,
    check_tunix_commands,
    runs_tunix,
)
from flaglint.frontends.lint.unknown_values import UnknownKeys, callers, unknown_tokens
from flaglint.frontends.lint.unverified import Unverified
from flaglint.frontends.lint.witnesses import (
    FIX_TRIES,
    Witnesses,
    keys_read,
    script_location,
)
from flaglint.maxtext.pyconfig import HF_TOKEN_VARIABLE
from flaglint.maxtext.values import format_value
from flaglint.read.flags import FlagSource
from flaglint.render.bash.compiler import before_syntax_error
from flaglint.render.bash.expansion import STOPS_NOTE
from flaglint.render.bash.explorer import OTHER, Exploration, ExploredPath
from flaglint.render.bash.types import Rendering, ScriptError, TooDeep, Value
from flaglint.render.recipes import evaluate
from flaglint.rules.ruleset import Renumbering, built_in, renumbered_ids
from flaglint.tunix.pins import load_tunix_pin, tunix_renumbering
from flaglint.tunix.variables import launcher, load_tunix, type_tunix


@dataclass
class ScriptCheck:
    path: Path
    text: str
    result: Result
    given: bytes | None = None  # the script's bytes, when `path` names no file (stdin)
    env: Mapping[str, str] = field(default_factory=dict)  # the variables the user gave (--env)
    paths: int = 0
    outcomes: int = 0


def _trainer_rendering(rendering: Rendering) -> Rendering:
    """The rendering that launches the trainer: the last handoff (exec/bash) that sets the flags, else the script itself."""
    for handoff in reversed(rendering.handoffs):
        found = _trainer_rendering(handoff)
        if launcher().flags in found.variables:
            return found
    return _given_on_its_command_line(rendering)


def _given_on_its_command_line(rendering: Rendering) -> Rendering:
    """The rendering with the Tunix variables and flags the last command that sets the flags on its
    own command line (`MAXTEXT_EXTRA_FLAGS=… python3 -m …`, `env MAXTEXT_EXTRA_FLAGS=… nice …`)
    gives the program it launches: that program is the trainer."""
    launch = next((found for found in reversed(rendering.launched) if launcher().flags in found.assigned), None)
    if launch is None:
        return rendering
    names = {launcher().flags, *load_tunix().variables}
    given = {name: value for name, value in launch.assigned.items() if name in names}
    variables = {name: value for name, value in {**rendering.variables, **given}.items() if value is not None}
    exported = {name: value for name, value in {**rendering.exported, **given}.items() if value is not None}
    return replace(rendering, variables=variables, exported=exported)


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


def _override(value: Value, edit_end: int, token_text: str, anchor: int | None, check: ScriptCheck) -> Edit | None:
    """Insert `token_text` right after the anchor token, whose branch set the conflict; last wins."""
    if anchor is None or anchor < edit_end:
        return None
    start = anchor
    while start > 0 and not value.text[start - 1].isspace():
        start -= 1
    span = _file_span(value, start, anchor)  # the whole anchor token must be literal script text
    if span is None:
        return None
    return Edit.in_bytes(_script_bytes(check, span[0]), span[2], span[2], " " + token_text, span[0], applicability=Applicability.UNSAFE)


def _script_bytes(check: ScriptCheck, file: str) -> bytes:
    """The bytes of the script checked (as given, for stdin) or of a file it sources."""
    return check.text.encode("utf-8") if file == str(check.path) else read_file(file, SCRIPT)


def _file_edits(value: Value, fix: Fix, check: ScriptCheck, anchor: int | None) -> list[Edit] | None:
    """Byte edits of the scripts for a fix of the rendered flag string, and what is left to do by hand.

    A token written in another file (a block several recipes share) is not edited: the new value
    is added after the token of this script that made the conflict, as the fix in google/tunix#2884 did.
    """
    edits, additions = [], []
    for edit, change in zip(fix.edits, fix.changes):
        if edit.variable is not None:
            additions.append(Edit(None, "", f"export {change.key}={'' if change.to is None else change.to}", Applicability.BY_HAND))
            continue
        token_text = f"{change.key}={format_value(change.to)}"
        if edit.start == edit.end == len(value.text):
            inserted = _override(value, edit.start, token_text, anchor, check)
            if inserted is None:
                additions.append(Edit(None, "", f'export {launcher().flags}="${{{launcher().flags}}}{edit.new}"', Applicability.BY_HAND))
            else:
                edits.append(inserted)
            continue
        span = _file_span(value, edit.start, edit.end)
        if span is not None and Path(span[0]).resolve() != check.path.resolve():
            # a token of a file other recipes share, changed or dropped: its new value after the anchor
            inserted = _override(value, edit.end, token_text, anchor, check)
            if inserted is None:
                return None  # left to a person
            edits.append(inserted)
            continue
        if span is None and edit.new == "":
            stripped = len(value.text[edit.start : edit.end]) - len(value.text[edit.start : edit.end].lstrip())
            span = _file_span(value, edit.start + stripped, edit.end)
        if span is None:
            return None
        edits.append(Edit.in_bytes(_script_bytes(check, span[0]), span[1], span[2], edit.new, span[0], applicability=fix.applicability))
    return edits + additions


def _mistyped_inputs(path: ExploredPath) -> list[str]:
    """The inputs that are integer Tunix variables and take a value that is not one on this path."""
    mistyped = []
    for name, var in load_tunix().variables.items():
        value = path.env.get(name)
        if value is not None and var.kind == "int":
            try:
                type_tunix(name, var, value)
            except ValueError:
                mistyped.append(name)
    return mistyped


def check_script(
    path: Path,
    checker: Checker,
    fixed: Mapping[str, str] | None = None,
    vary: Mapping[str, list[str]] | None = None,
    path_cap: int = COMBINATION_CAP,
    max_fixes: int = 3,
    allow_unverified: bool = False,
    text: str | None = None,
    args: Sequence[str] | None = None,
    tunix_pin: str | None = None,
) -> ScriptCheck:
    """`path_cap`: the most combinations of one group of inputs that decide parts of a launch
    together (launch_parts) checked one by one; a group with more is asked of the solver. What
    neither can decide (a rule the solver cannot express, a loop the evaluator cannot get past, a
    file sourced or run that cannot be followed) is FL011, an error (fail closed) unless
    `allow_unverified`.
    `text`: the script, when `path` only names it (stdin); else it is read from `path`. `args`: the
    script's arguments; None: not given, so they are inputs like its environment (`$1` unknown).
    `tunix_pin`: the Tunix its `python -m tunix.cli.…` command lines run (None: the newest bundled)."""
    given = None if text is None else text.encode("utf-8")
    try:
        text = read_text(path, SCRIPT) if given is None else text
    except Unreadable as err:
        text = ""
        return ScriptCheck(path, text, Result(checker.pin.pin, [built_in("FL010", (), Location(str(path), 1, 1, end_column=1), variant="unreadable", path=path, reason=err.reason)]))
    result = Result(pin=checker.pin.pin)
    check = ScriptCheck(path, text, result, given, env=dict(fixed or {}))
    try:
        exploration = evaluate(path, dict(fixed or {}), dict(vary or {}), given, args)
    except TooDeep as err:  # fail closed: what it launches is not known
        result.findings.append(built_in("FL011", (), Location(err.file, err.line, 1, end_column=2),
                                        allow_unverified=allow_unverified, reason=err.message))
        return check
    except ScriptError as err:
        result.findings.append(built_in("FL010", (), Location(err.file, err.line, err.column, end_column=err.column + 1), reason=err.message))
        _judge_before_syntax_error(check, err, lambda partial: check_script(
            path, checker, fixed, vary, path_cap, 0, allow_unverified, partial, args, tunix_pin).result)
        return check
    check.paths, check.outcomes = exploration.paths_explored, len(exploration.outcomes)
    if unexplored := _unexplored(exploration):
        result.notes.append(f"variables read before a file that compares them is loaded, not explored with the values it"
                            f" compares them with: {unexplored} (--env NAME=VALUE checks a run with one)")
    if not _launches_anything(exploration):
        # Nothing MaxText or Tunix reads: quiet, whatever it sources or runs that cannot be followed.
        found = [rendering for outcome in exploration.outcomes for rendering in renderings(outcome.rendering)]
        result.notes.extend(sorted({f"{note.file}:{note.line}: not followed ({note.message}); the script launches nothing and"
                                    " sets no flags, so nothing is left unchecked" for rendering in found for note in rendering.unfound}
                                   | {f"{note.file}:{note.line}: {note.message}" for rendering in found
                                      for note in rendering.notes if note.message.startswith(STOPS_NOTE)}))
        return check
    witnesses = Witnesses(path, given, check.env, args)
    shared = SharedParts()  # the trainer's flags are often a command line's argv too
    _check_outcomes(check, exploration, checker, max_fixes, path_cap, allow_unverified, witnesses, shared)
    commands = check_commands(path, exploration, checker, given, max_fixes, allow_unverified, witnesses, shared)
    tunix = (check_tunix_commands(path, exploration, load_tunix_pin(tunix_pin), given, allow_unverified, checker.devices,
                                  checker, fix=max_fixes > 0, witnesses=witnesses, shared=shared) if runs_tunix(exploration) else TunixLinesChecked([], set(), 0))
    # the script runs MaxText or Tunix itself: an empty MAXTEXT_EXTRA_FLAGS says nothing
    if commands.checked or commands.findings or tunix.checked or tunix.findings:
        rules = checker.ruleset
        result.findings = _once([f for f in result.findings if not (rule := rules.by_id(f.rule)) or not rule.flag_string_only]
                                + commands.findings + [f for f in tunix.findings if f not in commands.findings])
        line_fix = commands.fix or tunix.fix
        if line_fix is not None and not result.fixes:  # one fix per run, as for the flags (see _add_fix)
            result.fixes.append(line_fix)
    result.notes.extend(sorted(commands.notes | tunix.notes))
    if max_fixes and result.fixes and not result.fixes[0].safe:
        _recheck_unsafe(check, result.fixes[0], lambda edited: check_script(
            path, checker, fixed, vary, path_cap, 0, allow_unverified, edited, args, tunix_pin).result)
    found = result.findings
    renumberings = (Renumbering(renumbered_ids(checker.pin.rules), checker.pin.pin), tunix_renumbering(load_tunix_pin(tunix_pin)))
    result.findings = apply_suppressions(path, found, read_suppressions(path, text), renumberings)
    withhold_fixes_of(result, [f for f in found if not any(f is kept for kept in result.findings)])
    return check


def _judge_before_syntax_error(check: ScriptCheck, err: ScriptError, lint: Callable[[str], Result]) -> None:
    """The commands bash runs before a syntax error of the script itself, judged (bash stops at
    the error); their fixes are not offered, as they were found on part of the script."""
    if err.file != str(check.path):
        return
    partial = before_syntax_error(check.text.encode("utf-8"))
    if partial is None:
        return
    judged = lint(partial.decode("utf-8"))
    if not judged.findings and not judged.notes:
        return  # nothing before it launches
    check.result.findings.extend(judged.findings)  # the part holds no syntax error: no FL010 of its own
    check.result.notes.extend([*judged.notes, f"{err.file}:{err.line}: the commands before the syntax error are checked:"
                               " bash runs them, then stops there"])


# A script or sourced file named by a relative path that no directory held (render/bash's reason).
_RELATIVE_UNFOUND = re.compile(r"the (?:sourced file|script) '[^'/][^']*' is not found")


def _looked_for(reason: str) -> str:
    """The reason a file is not followed; of a relative path not found, where it was looked for:
    bash reads it from the directory it runs in, which only the user knows."""
    if _RELATIVE_UNFOUND.fullmatch(reason):
        return (f"{reason} (a path relative to the directory bash runs in: looked for from the working directory,"
                " beside the file that names it and from the root of the git checkout that holds the script)")
    return reason


def _unexplored(exploration: Exploration) -> str:
    """The environment's variables read before a file that compares them with a word was loaded,
    each with the first such word (Exploration.unexplored: an emptiness test says less)."""
    return ", ".join(f"{name}={word}" for name, values in sorted(exploration.unexplored.items())
                     if (word := next((v for v in values if v and OTHER not in v), None)) is not None)


def _launches_anything(exploration: Exploration) -> bool:
    """Whether some outcome launches a program (or hands a command string over), sets the flags
    or a Tunix variable, runs what cannot be followed (`bash ./train.sh`, `… | bash`, an EXIT
    trap's function: a launcher, as far as anyone can tell; machine.Interp.unfollowed), or stops at
    a construct the evaluator does not get past. A file sourced that cannot be followed
    (`source <(kubectl completion bash)`) alone does not make a script a launcher."""
    names = {launcher().flags, *load_tunix().variables}
    return any(rendering.launched or rendering.unbounded is not None or not names.isdisjoint(rendering.variables)
               or any(not note.message.startswith("the sourced file ") for note in rendering.unfound)
               for outcome in exploration.outcomes for rendering in renderings(outcome.rendering))


def _recheck_unsafe(check: ScriptCheck, fix: Fix, lint: Callable[[str], Result]) -> None:
    """An unsafe fix changes what a value was, which other rules may read: the script is linted
    again with the fix made, and a rule it breaks that was not broken before is said in a note."""
    own = [edit for edit in fix.edits if edit.written and edit.location is not None and edit.location.file
           and Path(edit.location.file).resolve() == check.path.resolve()]
    if not own or len(own) != len([edit for edit in fix.edits if edit.written]):
        return
    edited = apply_to_bytes(_script_bytes(check, str(check.path)), own).decode("utf-8", "replace")
    before = {f.rule for f in check.result.findings if f.severity == "error"}
    broken = {}
    for finding in lint(edited).findings:
        if finding.severity == "error" and finding.rule not in before and finding.location is not None:
            broken.setdefault(finding.rule, f"{finding.rule} at {finding.location.file}:{finding.location.line}")
    if broken:
        check.result.notes.append(f"the unsafe fix ({', '.join(_changed(fix))}) breaks {', '.join(broken[rule] for rule in sorted(broken))}"
                                  " on a launch it reaches")


def _changed(fix: Fix) -> list[str]:
    return [f"{c.key}={format_value(c.to)}" if c.to is not None else f"drop {c.key}" for c in fix.changes]


def _once(findings: list[Finding]) -> list[Finding]:
    """The findings, one per rule, place and witness: the flags a script hands a MaxText command
    line are its argv as well as the trainer's flags, and both checks find what they break."""
    kept: dict[tuple, Finding] = {}
    for finding in findings:
        witness = finding.witness or {}
        key = (finding.rule, finding.location, finding.keys if finding.location is None else (),
               tuple(sorted(witness.get("env", {}).items(), key=str)), tuple((branch["file"], branch["line"]) for branch in witness.get("branches", ())))
        kept.setdefault(key, finding)
    return list(kept.values())


def _launches(exploration: Exploration, checker: Checker, check: ScriptCheck, cap: int,
              allow_unverified: bool, shared: SharedParts) -> tuple[list[Concrete], list, list, set[str]]:
    """The concrete launches to check; the paths that launch nothing MaxText reads (a non-zero exit,
    another backend); those that cannot be followed; and notes."""
    tunix = load_tunix().variables
    bound = {name: {key for key, _ in var.binds} for name, var in tunix.items()}
    rule_names = [rule.name_set for rule in checker.ruleset.rules]
    launches: list[Concrete] = []
    # Both are outside the space of witnesses: a witness says which launches hit a finding.
    quiet: list[ExploredPath] = []  # launch nothing MaxText reads
    unknown: list[ExploredPath] = []  # cannot be followed
    notes: set[str] = set()
    unverified: dict[tuple, Finding] = {}
    for outcome in exploration.outcomes:
        trainer = _trainer_rendering(outcome.rendering)
        lost = [note for rendering in renderings(outcome.rendering) for note in rendering.unfound]
        for note in lost:  # fail closed: what the script sets and launches past it is not known
            unverified.setdefault((note.file, note.line, note.message), built_in(
                "FL011", (), Location(note.file, note.line, 1, end_column=2), variant="unfollowed",
                allow_unverified=allow_unverified, reason=_looked_for(note.message)))
        if lost and launcher().flags in trainer.variables:
            unknown.extend(outcome.paths)
            continue
        if outcome.rendering.status != 0 or trainer.status != 0:
            quiet.extend(outcome.paths)
            notes.update(f"{note.file}:{note.line}: {note.message}" for rendering in renderings(outcome.rendering)
                         for note in rendering.notes if note.message.startswith(STOPS_NOTE))
            continue
        stopped = outcome.rendering.unbounded or trainer.unbounded
        if stopped is not None:
            # Fail closed: what the script launches after a construct it cannot follow is unknown.
            unverified.setdefault((stopped.file, stopped.line), built_in(
                "FL011", (), Location(stopped.file, stopped.line, 1, end_column=2), allow_unverified=allow_unverified, reason=stopped.message))
            unknown.extend(outcome.paths)
            continue
        for path in outcome.paths:
            judge = _TrainerJudge(checker)
            try:
                found = concrete_launches(trainer, path, exploration.inputs, launcher().flags, tunix, rule_names,
                                          bound, (launcher().backend,), cap, judge, shared)
            except Unverified as err:
                where = err.origin
                at = Location(where.file, where.line, where.column, end_column=where.column + 1) if where else Location(str(check.path), 1, 1, end_column=2)
                unverified.setdefault((at.file, at.line, err.reason), built_in(
                    "FL011", (), at, allow_unverified=allow_unverified, reason=err.reason))
                unknown.append(path)
                continue
            for (_, place), reason in judge.undecided_rules.items():
                at = place or Location(str(check.path), 1, 1, end_column=2)
                unverified.setdefault((at.file, at.line, reason), built_in(
                    "FL011", (), at, allow_unverified=allow_unverified, reason=reason))
            for launch in found:
                backend = launch.rendering.variables.get(launcher().backend)
                if backend is not None and backend.text not in launcher().maxtext_backends:
                    notes.add(f"with {launcher().backend}={backend.text} the trainer does not read MaxText flags: not checked")
                    quiet.append(launch.path)
                else:
                    launches.append(launch)
    check.result.findings.extend(unverified.values())
    return launches, quiet, unknown, notes


def _check_outcomes(check: ScriptCheck, exploration: Exploration, checker: Checker, max_fixes: int, cap: int,
                    allow_unverified: bool, witness: Witnesses, shared: SharedParts) -> None:
    seen: dict[tuple, tuple[Finding, list[ExploredPath]]] = {}
    launches, quiet, unfollowed, notes = _launches(exploration, checker, check, cap, allow_unverified, shared)
    # Paths that give a typed Tunix input a wrong-typed value are outside the space of witnesses too.
    mistyped = {id(c.path): names for c in launches if (names := _mistyped_inputs(c.path))}
    judged = [c for c in launches if id(c.path) not in mistyped]
    if mistyped:
        names = ", ".join(sorted({n for found in mistyped.values() for n in found}))
        notes.add(f"paths where {names} is not an integer are not checked (Tunix refuses such a value)")
    checked: dict[tuple, Result] = {}
    to_fix: dict[tuple, tuple[Concrete, Value, dict, frozenset]] = {}
    unknown_keys = UnknownKeys(callers(exploration.inputs), check.env)
    read: dict[int, tuple] = {}  # what each rendering gives the trainer, by the rendering: several launches are one rendering
    for launch in judged:
        rendering = launch.rendering
        if id(rendering) not in read:
            flags, env, unknown = _trainer_input(rendering)
            if unknown:
                notes.update(unknown_keys.notes(unknown_tokens(flags)))
            key = (flags.text, tuple(sorted(env.items())))
            if key not in checked:
                checked[key] = checker.check(FlagSource(flags.text), env, fix=False, unknown=unknown)
            notes.update(f"{note.file}:{note.line}: {note.message}" for note in rendering.notes)
            read[id(rendering)] = (rendering, flags, env, unknown, key)  # the rendering kept: its id stays its own
        _, flags, env, unknown, key = read[id(rendering)]
        if _record(seen, checked[key].findings, launch, flags, checker):
            to_fix.setdefault(key, (launch, flags, env, unknown))
    # One fix is offered per run (see _add_fix): the launches with findings are tried in order until one has a fix.
    # None is searched for with --max-fixes 0, as for a command line's flags and a manifest's.
    for key, (launch, flags, env, unknown) in list(to_fix.items())[:FIX_TRIES] if max_fixes else []:
        result = checker.check(FlagSource(flags.text), env, fix=True, max_fixes=max_fixes, unknown=unknown)
        known = {(f.rule, f.message) for f in checked[key].findings}
        _record(seen, [f for f in result.findings if (f.rule, f.message) not in known], launch, flags, checker)  # FL090
        if result.fixes:
            anchor = max((o for f in result.findings if f.location and f.severity != "info"
                          and (o := _token_end(flags, f.location, check.path)) is not None), default=None)
            _add_fix(check, flags, result.fixes, anchor)
        if check.result.fixes:
            break
    conditions = None
    for finding, paths in seen.values():
        if not quiet and not unfollowed and not mistyped and _whole_regions(exploration, paths):
            path, matters = paths[0], {}  # on every launch: no input matters
        else:
            if conditions is None:
                explored = [c.path for c in launches] + quiet + unfollowed
                excluded = [c.path for c in launches if id(c.path) in mistyped] + quiet + unfollowed
                conditions = KeptWitnesses(checker.witnesses, exploration.inputs, explored, excluded)
            path, matters = conditions.witness(paths)
        finding.witness = witness(path, matters, paths)
        check.result.findings.append(finding)
    check.result.notes.extend(sorted(notes))


def _trainer_input(rendering: Rendering) -> tuple[Value, dict[str, str], frozenset[str]]:
    """What the trainer reads from a concrete launch: the flag string, the Tunix variables (and the
    Hugging Face token), and the names whose value is unknown (a rule that reads one is not judged)."""
    variables = load_tunix().variables
    flags = rendering.variables.get(launcher().flags) or Value("", [])
    env = {name: value.text for name, value in rendering.variables.items() if name in variables}
    if HF_TOKEN_VARIABLE in rendering.exported:  # pyconfig reads it from the trainer's environment
        env[HF_TOKEN_VARIABLE] = rendering.exported[HF_TOKEN_VARIABLE].text
    # A value built from an input's "anything else" sample is unknown.
    unknown = frozenset(
        [name for name, text in env.items() if OTHER in text]
        + ([token.split("=", 1)[0] for token in flags.text.split() if OTHER in token] if OTHER in flags.text else [])
    )
    return flags, env, unknown


class _TrainerJudge:
    """A concrete launch of the trainer judged as _check_outcomes judges it (launch_query.Judge)."""

    def __init__(self, checker: Checker):
        self.checker, self.answers = checker, checker.answers
        self.undecided_rules: dict[tuple, str] = {}  # (rule, place) -> why it is not decided

    def undecided(self, rule: str, reason: str, place: Location | None) -> None:
        self.undecided_rules.setdefault((rule, place), reason)

    def config(self, rendering: Rendering):
        flags, env, unknown = _trainer_input(rendering)
        config = self.checker.shared_config(FlagSource(flags.text), env)
        return config, unknown | refused_keys(config)

    def rules(self, config) -> list:
        return self.checker.judgeable_rules(config)

    def broken(self, rendering: Rendering) -> set[tuple[str, Location | None]]:
        flags, env, unknown = _trainer_input(rendering)
        return {(f.rule, self.place(rendering, f.location)) for f in self.checker.check(FlagSource(flags.text), env, fix=False, unknown=unknown).findings}

    def place(self, rendering: Rendering, location: Location | None) -> Location | None:
        """Where the script wrote the flag token at `location` of the launch's flag string."""
        if location is None:
            return None
        flags = rendering.variables.get(launcher().flags) or Value("", [])  # as _trainer_input reads it
        return script_location(flags, *_span(flags.text, location))


def _record(seen: dict, findings: list[Finding], launch: Concrete, flags: Value, checker: Checker) -> bool:
    """Add the launch's own findings to `seen` (finding -> the paths it occurs on); whether any is above info."""
    above_info = False
    for found in findings:
        if OTHER in found.message or not launch.owns(keys_read(found, checker), found.rule):
            continue
        finding = found.replace(location=_locate(found, flags, launch.rendering))
        if not launch.owns_at(finding.location):
            continue
        finding.related = tuple(
            loc for related in found.related if (loc := script_location(flags, *_span(flags.text, related))) is not None
        )
        key = (finding.rule, finding.location, finding.keys if finding.location is None else ())
        if key not in seen:
            seen[key] = (finding, [])
        seen[key][1].append(launch.path)
        above_info = above_info or finding.severity != "info"
    return above_info


def _whole_regions(exploration: Exploration, paths: list[ExploredPath]) -> bool:
    """Whether the paths hold every outcome's own path: the finding happens on every launch."""
    ids = {id(p) for p in paths}
    return all(id(p) in ids for o in exploration.outcomes for p in o.paths)


def _locate(finding: Finding, flags: Value, rendering: Rendering) -> Location | None:
    if finding.location is not None:
        start, end = _span(flags.text, finding.location)
        return script_location(flags, start, end)
    for key in finding.keys:
        value = rendering.variables.get(key)
        if value is not None and value.text:
            found = script_location(value, 0, len(value.text))
            if found:
                return found
    return None


def _token_end(flags: Value, location: Location, script: Path) -> int | None:
    """The end, in the flag string, of the token at `location` (columns of the flag string, as the
    checker locates a finding), when that token's end is written in `script` itself."""
    if location.file is not None or location.end_column is None or not 0 < location.end_column - 1 <= len(flags.origins):
        return None
    origin = flags.origins[location.end_column - 2]
    return location.end_column - 1 if origin is not None and origin.file and Path(origin.file).resolve() == script.resolve() else None


def _add_fix(check: ScriptCheck, flags: Value, fixes: list[Fix], anchor: int | None) -> None:
    """Offer one fix per run (a safe one when there is one): fixes for different outcomes can
    interact, so `--fix` applies one, checks again, and repeats until nothing is left to fix."""
    if check.result.fixes:
        return
    for fix in sorted(fixes, key=lambda f: not f.safe):
        mapped = _file_edits(flags, fix, check, anchor)
        if mapped is None:
            continue
        check.result.fixes.append(fix.replace(edits=mapped))
        return

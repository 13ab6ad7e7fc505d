"""The Tunix command lines of a recipe script, on every branch: each launch's words made concrete for
every path (launch_parts, as MaxText's command lines are), the `python -m tunix.cli.<entry>` lines
in them (also inside an XPK `--command`, `bash -c` or `eval` string) checked at the Tunix pin
(frontends/tunix_commands.py), each finding at the word of the script that wrote it, or at the
override file's or base YAML's line, with the smallest witness.

The program's environment is the launch's: the `T_<KEY>` variables and HF_TOKEN the script
exports, and those written before the command (`T_BATCH_SIZE=8 python -m …`). Paths (the base
YAML, the override file) are looked for in the working directory, then beside the script.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from flaglint.core.findings import Finding, Fix
from flaglint.core.location import Location
from flaglint.core.reading import SCRIPT, read_file
from flaglint.fix.command_lines import command_fix
from flaglint.frontends.checker import Checker
from flaglint.frontends.commands import launched_segments, xpk_devices
from flaglint.frontends.lint.launch_parts import SharedParts
from flaglint.frontends.lint.script_commands import (
    Judged,
    concrete_commands,
    placed,
    renderings,
    with_witnesses,
)
from flaglint.frontends.lint.witnesses import FIX_TRIES, Witnesses
from flaglint.maxtext.launch import recognise
from flaglint.read.argv import argv_source, quoted_origins
from flaglint.render.bash.explorer import OTHER, Exploration, ExploredPath
from flaglint.render.bash.types import Choice, FromInput, Launch, Split, Sym, Value
from flaglint.resolve.topology import DeviceCount
from flaglint.rules.ruleset import built_in
from flaglint.tunix.launch import HF_TOKEN, TunixLaunches, recognise_tunix
from flaglint.tunix.maxtext_model import maxtext_model_keys
from flaglint.tunix.pins import TunixPin

_READS = TunixLaunches()


@dataclass
class TunixLinesChecked:
    findings: list[Finding]
    notes: set[str]
    checked: int  # Tunix command lines checked (each path's once)
    fix: Fix | None = None  # of the first command line with findings that has one, as edits of the script
    judged: int = 0  # the distinct concrete launches judged (script_commands.Judged)


def runs_tunix(exploration: Exploration) -> bool:
    """Whether a launch of the script may run tunix.cli (its words name it): only then is the Tunix
    pin loaded."""
    return any(may_name_tunix(word) for outcome in exploration.outcomes for rendering in renderings(outcome.rendering)
               for launch in rendering.launched for word in launch.words)


def may_name_tunix(word, inputs: Mapping[str, Sequence] | None = None) -> bool:
    """Whether a word, on some path, may hold `tunix` (an input's value may hold anything; with
    `inputs`, the values explored of each input, as a launch is made concrete, only one of those).
    A walk with its own stack, each shared part once: a value built by many appends nests deeper
    than Python's recursion allows and repeats its earlier parts."""
    stack, seen = [word], set()
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if type(value) is Value:
            if "tunix" in value.text:
                return True
        elif type(value) is Sym:
            stack.extend(value.pieces)
        elif type(value) is Choice:
            stack.extend(alt for _, alt in value.alts)
        elif type(value) is Split:
            stack.append(value.value)
        elif type(value) is FromInput and inputs is not None and value.name in inputs:
            if any(found is not None and "tunix" in found for found in inputs[value.name]):
                return True
        elif value is not None:
            return True
    return False


def _maxtext_launch(launch: Launch) -> bool:
    """Whether a launch's words, up to the first one not known here, already run one of MaxText's
    entry points (`python3 -m maxtext.inference.inference_microbenchmark …`): Tunix's check has
    nothing to judge on it, whatever the rest of its words are."""
    known = []
    for word in launch.words:
        if type(word) is not Value or OTHER in word.text:
            break
        known.append(word.text)
    return recognise(known, None) is not None


def check_tunix_commands(script: Path, exploration: Exploration, pin: TunixPin, text: bytes | None = None,
                         allow_unverified: bool = False, devices: DeviceCount | None = None,
                         maxtext: Checker | None = None, fix: bool = False, witnesses: Witnesses | None = None,
                         shared: SharedParts | None = None) -> TunixLinesChecked:
    """`devices`: what the launches run on (--topology); else an XPK workload's --tpu-type and
    --num-slices, named as the MaxText pin of `maxtext` names TPU topologies; `maxtext`: the
    checker of the argv a model section with `model_source: maxtext` builds; `fix`: with a fix
    (fix/tunix_argv.py) of the first command line that has one, as edits of the words the
    script wrote (fix/command_lines.py, as MaxText's command lines are fixed); `shared`: what the
    script's MaxText command lines find alike (launch_parts.SharedParts)."""
    notes: set[str] = set()
    seen: dict[tuple, tuple[Finding, list[ExploredPath]]] = {}
    unverified: dict[tuple, Finding] = {}
    results: dict[tuple, tuple[list[Finding], list[str]]] = {}
    to_fix: list[Callable[[bytes], Fix | None]] = []  # the fix of each command line with findings, made when asked
    checked = 0

    def not_verified(launch: Launch, reason: str) -> None:
        unverified.setdefault((launch.file, launch.line, reason), built_in(
            "FL011", (), Location(launch.file, launch.line, 1, end_column=2), allow_unverified=allow_unverified, reason=reason))

    rule_names = [rule.name_set for rule in pin.rules] + [maxtext_model_keys(pin.maxtext_model, pin.merge.get("inherit_from"))]
    search = (Path.cwd(), script.parent)
    def not_verified_tunix(launch: Launch, reason: str) -> None:
        # a MaxText launch many inputs decide is MaxText's check's; one that names Tunix on none
        # of the values its inputs are judged at (`python3 -m offline_mode $BASEDIR/x.conf`) has
        # no Tunix command line to judge
        if not _maxtext_launch(launch) and any(may_name_tunix(word, exploration.inputs) for word in launch.words):
            not_verified(launch, reason)

    def judged_segments(launch: Launch) -> tuple[list[list[Finding]], bool]:
        """Of each Tunix command line a concrete launch runs, its findings placed in the script
        (those on values not known here left out), and whether there are any; the notes are told
        as they are found."""
        segments = []
        for words, workload in launched_segments(launch):
            command = recognise_tunix([w.text for w in words])
            if command is None:
                continue
            args = words[command.start:]
            texts = [w.text for w in args]
            env = {name: value.text for name, value in launch.env.items() if _READS.reads_variable(name)}
            env.update(w.text.split("=", 1) for w in words[:command.start] if "=" in w.text and _READS.reads_variable(w.text.split("=", 1)[0]))
            on = devices or (xpk_devices(workload, maxtext.pin.topologies if maxtext else "") if workload else None)
            key = (tuple(texts), tuple(sorted(env.items())), on)
            if key not in results:
                from flaglint.frontends.tunix_commands import check_tunix_words  # noqa: PLC0415 Tunix's checks: only where a script runs its command line
                unknown = frozenset(i for i, t in enumerate(texts) if OTHER in t)
                done = check_tunix_words(pin, command, texts, env, search, unknown, allow_unverified, on,
                                         (lambda: maxtext) if maxtext is not None else None)
                results[key] = (done.findings, done.notes)
                if fix and not unknown and any(f.severity != "info" for f in done.findings):
                    to_fix.append(lambda data, command=command, texts=texts, env=env, on=on, args=args, last=words[-1]: command_fix(
                        check_tunix_words(pin, command, texts, env, search, frozenset(), allow_unverified, on, fix=True).fixes,
                        args, last, script, data))
            findings, line_notes = results[key]
            notes.update(f"{launch.file}:{launch.line}: {note}" for note in line_notes)
            origins = Value(argv_source(texts).text, quoted_origins([(w.text, w.origins) for w in args]))
            placed_findings = []
            for finding in findings:
                if OTHER in finding.message:
                    continue
                located = placed(finding.location, origins) or Location(launch.file, launch.line, 1, end_column=2)
                related = tuple(found for where in finding.related if (found := placed(where, origins)) is not None)
                placed_findings.append(finding.replace(location=located, related=related))
            segments.append(placed_findings)
        return segments, any(segments)

    judged = Judged(judged_segments)
    for launch, argv in concrete_commands(exploration, rule_names, None, not_verified_tunix, shared):
        for findings in judged(launch):
            checked += 1
            for finding in findings:
                if argv.owns(set(finding.keys), finding.rule):
                    key_seen = (finding.rule, finding.location, finding.message)
                    seen.setdefault(key_seen, (finding, []))[1].append(argv.path)
    found = with_witnesses(seen, exploration, witnesses or Witnesses(script, text))
    for finding in found:
        if HF_TOKEN in finding.keys and finding.witness is not None:
            finding.witness["env"].setdefault(HF_TOKEN, None)  # the script does not set it: the environment it runs in decides
    data = text if text is not None or not to_fix else read_file(script, SCRIPT)
    line_fix = next((made for make in to_fix[:FIX_TRIES] if (made := make(data)) is not None), None)
    return TunixLinesChecked(list(unverified.values()) + found, notes, checked, line_fix, judged.count)

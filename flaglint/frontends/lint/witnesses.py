"""What lint says of a finding in a script: where the script wrote it, the keys it is about, and
its witness (the inputs that make it happen and the branches a run with them takes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from flaglint.core.findings import Finding
from flaglint.core.location import Location
from flaglint.frontends.checker import Checker
from flaglint.render.bash.explorer import OTHER, ExploredPath, run_inputs
from flaglint.render.bash.guards import arms_taken
from flaglint.render.bash.state import ARGUMENT_COUNT, argument_input, is_option
from flaglint.render.bash.types import Value, preference
from flaglint.render.recipes import render

FIX_TRIES = 3  # launches with findings on which a fix is sought, in order, before giving up


def script_location(value: Value, start: int, end: int) -> Location | None:
    """Where the script wrote value.text[start:end]: its first character's line, to the last character of that line."""
    origins = value.origins
    # read one by one, from each end (a token's last character is mostly on its first's line): an
    # origin is made only when read, and a flag string of many pieces is never sliced
    indices = range(*slice(start, end).indices(len(origins)))
    first = next((o for i in indices if (o := origins[i]) is not None), None)
    if first is None:
        return None
    last = next(o for i in reversed(indices) if (o := origins[i]) is not None and o.file == first.file and o.line == first.line)
    return Location(first.file, first.line, first.column, end_column=last.column + 1)


def _witness_choice(name: str, values: list) -> str | None:
    """One of the input's values, as a user would write it (path_conditions.preference); an
    option of an options loop not given, where that will do (the fewest arguments)."""
    if None in values and is_option(name):
        return None
    return min(values, key=preference)


def _witness_value(value: str | None) -> str | None:
    if value is None or OTHER not in value:
        return value
    # a value the script compares with nothing; or a pattern's part of one (`--model=*`)
    return "<any other value>" if value.startswith(OTHER) else value.replace(OTHER, "<any value>")


def _on_paths(path: ExploredPath, paths: Sequence[ExploredPath], matters: Mapping[str, list]) -> dict[str, str | None]:
    """One value of each input that matters, as a user would write it (_witness_choice), where the
    finding is: input by input where that meets on one of its `paths`; else all in one product of
    the condition of `path` (theirs), which a run with its other inputs as they are takes. Input by
    input, the values of a guard over several inputs (one that refuses a combination with `exit 1`)
    could meet where no path of the finding is."""
    chosen = {name: _witness_choice(name, values) for name, values in matters.items()}
    if any(found.admits(chosen) for found in paths):
        return chosen
    allowed = {name: [v for v in values if name not in path.domains or v in path.domains[name]] for name, values in matters.items()}
    for factor in path.factors or ():
        # of the factor's products, the first that the run's other inputs take and that leaves each input that matters a value
        for product in factor:
            if len(factor) > 1 and any(name not in matters and path.env.get(name) not in values for name, values in product.items()):
                continue
            narrowed = {name: [v for v in found if v in product[name]] if name in product else found for name, found in allowed.items()}
            if all(narrowed.values()):
                allowed = narrowed
                break
        else:
            return chosen
    if all(allowed.values()):
        return {name: _witness_choice(name, found) for name, found in allowed.items()}
    return chosen


def _arms_on_paths(inputs: Mapping[str, str | None], paths: Sequence[ExploredPath]) -> list | None:
    """The arms a run with `inputs` takes, read off the first of `paths` whose condition holds for
    them (every run it holds for takes that path); None where none tells (a run must)."""
    for path in paths:
        if path.admits({name: inputs.get(name) for name in path.domains}):
            return arms_taken(path.branches, inputs)
    return None


class Witnesses:
    """The witnesses of one script's findings: the inputs that matter, and the arms a run with them
    (the path's other inputs as they are) takes. Findings whose runs take the same inputs share one
    run of the script: several rules or keys at one place, and the trainer's flags and its command
    lines alike (one Witnesses for all of a script's checks)."""

    def __init__(self, script: Path, text: bytes | None, env: Mapping[str, str] = {}, args: Sequence[str] | None = None):
        """`env` and `args`: the variables and the arguments the user gave (--env, --arg), which no
        path varies: a run has them too."""
        self.script, self.text, self.env, self.args = script, text, env, args
        self._branches: dict[tuple, list] = {}

    def __call__(self, path: ExploredPath, matters: Mapping[str, list], paths: Sequence[ExploredPath]) -> dict[str, Any]:
        """`path` and `matters`: the finding's witness among its `paths` (PathConditions.witness)."""
        chosen = _on_paths(path, paths, matters)
        inputs = {**self.env, **path.env, **chosen}
        variables, args = run_inputs(inputs)
        if self.args is not None:
            args = list(self.args)
        env = {name: value for name, value in variables.items() if value is not None}
        key = (tuple(sorted(env.items())), tuple(args))
        branches = self._branches.get(key)
        if branches is None:
            arms = _arms_on_paths(inputs, [path, *paths])
            if arms is None:
                arms = render(self.script, env, self.text, args).branches
            branches = self._branches[key] = [{"file": str(file), "line": line} for file, line in arms]
        shown = {name: value for name, value in chosen.items() if not is_option(name)}
        if len(shown) < len(chosen):  # options of an options loop: the arguments of the run that gives them
            shown.update({ARGUMENT_COUNT: str(len(args)), **{argument_input(i): a for i, a in enumerate(args, 1)}})
        return {
            "env": {name: _witness_value(value) for name, value in shown.items()},
            "branches": [dict(branch) for branch in branches],
        }


def keys_read(finding: Finding, checker: Checker) -> set:
    """The keys and variables a finding is about: its keys and every name its rule reads."""
    rule = checker.ruleset.by_id(finding.rule)
    return set(finding.keys) | (rule.name_set if rule is not None else set())

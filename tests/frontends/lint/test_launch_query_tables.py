"""The tables of a solver's query over a group of inputs (launch_query.violations) read each launch
once: a set of inputs that holds one more input of a single class, at the path's own value, reads
the launches of the set without it (a group's device count is decided by all its inputs, one of
which may have one class on the path)."""

from __future__ import annotations

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.launch_query import violations
from flaglint.read.flags import FlagSource


class _Judge:
    """Each launch (a flag string) judged as the trainer's flags, no rule asked of the solver."""

    def __init__(self, checker: Checker):
        self.checker, self.answers = checker, {}

    def config(self, launch: str):
        return self.checker.shared_config(FlagSource(launch), {}), frozenset()

    def rules(self, config) -> list:
        return []

    def broken(self, launch: str) -> set:
        return set()

    def place(self, launch: str, location):
        return location

    def undecided(self, rule: str, reason: str, place) -> None:
        raise AssertionError(rule)


def test_each_launch_of_a_groups_tables_is_made_once():
    made: list[dict] = []

    def launch_at(env) -> str:
        made.append(dict(env))
        return f"steps={env.get('STEPS') or 10} log_period={env.get('PERIOD') or 100}"

    # PERIOD has one class on this path, the path's own value (unset): it changes no launch
    classes = {"STEPS": [[None], ["20"], ["30"]], "PERIOD": [[None]]}
    depends = {"steps": {"STEPS"}, "log_period": {"STEPS", "PERIOD"}}
    found = violations(classes, [{}], depends, {}, launch_at, lambda fixed: launch_at({}), _Judge(Checker("bbd0f6f10")), 64)
    assert found == []
    # the path's own launch, then one for each value of STEPS (its first class is the path's)
    assert sorted(env.get("STEPS") or "" for env in made) == ["", "", "20", "30"]

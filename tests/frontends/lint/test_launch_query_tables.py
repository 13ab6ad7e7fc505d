"""The tables of a solver's query over a group of inputs (launch_query.violations) read each launch
once: a set of inputs that holds one more input of a single class, at the path's own value, reads
the launches of the set without it (a group's device count is decided by all its inputs, one of
which may have one class on the path)."""

from __future__ import annotations

import itertools

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


class _RuleJudge(_Judge):
    """Each launch (a flag string) judged as the trainer's flags with every rule of the pin; a
    finding's place is the key of the token it is at."""

    def rules(self, config) -> list:
        return self.checker.judgeable_rules(config)

    def broken(self, launch: str) -> set:
        return {(f.rule, self.place(launch, f.location)) for f in self.checker.check(FlagSource(launch), {}, fix=False).findings}

    def place(self, launch: str, location):
        return None if location is None else launch[location.column - 1:].split("=", 1)[0]


# The tuned block (one part of the flags) is read behind four inputs, and written in three ways:
# not at all, with the chunk pipeline on, and on the big slice with it off, which breaks FL101.
def _tuned(values) -> str:
    if values.get("TUNED") != "true":
        return "steps=10"
    pipeline = "false" if values.get("SLICE") == "big" else "true"
    return f"steps=10 moe_roe_packed_routing_gather=true moe_chunk_pipeline={pipeline}"


class _Launches:
    """The launches of a group of that one part: what writes its names is its text."""

    def __init__(self):
        self.made: list[dict] = []

    def __call__(self, env) -> str:
        self.made.append(dict(env))
        return _tuned(env)

    def writing(self, names):
        return self._ways

    def _ways(self, inputs) -> list:
        return [_tuned(dict(zip(inputs, combo))) for combo in itertools.product(*inputs.values())]


def _tuned_query(launch_at, modes: int) -> list:
    classes = {"TUNED": [[None], ["true"]], "SLICE": [[None], ["big"], ["small"]],
               "MODE": [[str(m)] for m in range(modes)], "SIZE": [[None], ["1"], ["2"], ["4"]]}
    deciding = set(classes)
    depends = {"steps": set(), "moe_roe_packed_routing_gather": deciding, "moe_chunk_pipeline": deciding}
    return violations(classes, [{}], depends, {}, launch_at, lambda fixed: launch_at({n: v[0] for n, v in fixed.items()}),
                      _RuleJudge(Checker("bbd0f6f10")), 4096)


def test_a_name_is_read_from_one_launch_for_each_way_its_parts_are_written():
    found: dict[int, list] = {}
    made: dict[int, int] = {}
    for modes in (2, 4):  # twice the combinations: the same three ways
        launches = _Launches()
        found[modes] = _tuned_query(launches, modes)
        assert len({_tuned(env) for env in launches.made}) == 3
        made[modes] = len(launches.made)
    # the path's own launch and the table of `steps` (no input decides it), the first combination
    # of each way, and the solver's answer confirmed
    assert made[2] == made[4] <= 2 + 3 + 2
    assert ("FL101", {"TUNED": ["true"], "SLICE": ["big"]}, "moe_chunk_pipeline") in found[2]
    for modes in (2, 4):
        every: list[dict] = []
        # read on every combination (a launch_at that cannot tell what writes the names): the same answers
        assert _tuned_query(lambda env, every=every: every.append(env) or _tuned(env), modes) == found[modes]
        assert len(every) > 2 * 3 * modes * 4

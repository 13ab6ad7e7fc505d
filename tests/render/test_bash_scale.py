"""Scripts that grow one variable by conditional appends: evaluate() keeps them one path whatever
the number of switches, and its symbolic value is what bash exports on every assignment.

bash only ever runs scripts this test generated itself, in a temporary directory, with an empty
environment except PATH.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flaglint.render import evaluate
from flaglint.render.bash.expansion import input_value
from flaglint.render.bash.types import (
    OTHER,
    Choice,
    Spans,
    Sym,
    Value,
    choice_names,
    joined_origins,
    parts_of,
    read_names,
    resolve,
)

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _append(i: int, value: str) -> str:
    return f'export F="${{F}} k{i}={value}"'


def appends(count: int, shape: str) -> str:
    """`count` appends to F, each on its own switch, with a value that is itself an input."""
    lines = ['export F="${F:-} base=1"']
    for i in range(count):
        value = f"${{V{i}:-{i}}}"
        if shape == "flat":
            lines += [f'if [[ "${{SW{i}:-false}}" == "true" ]]; then', f"  {_append(i, value)}", "fi"]
        elif shape == "nested":
            lines += [f'if [[ "${{G{i // 2}:-false}}" == "true" ]]; then',
                      f'  if [[ "${{SW{i}:-false}}" == "true" ]]; then {_append(i, value)}; fi', "fi"]
        else:
            lines += [f'case "${{SW{i}:-off}}" in', f"  true) {_append(i, value)} ;;", f"  low) {_append(i, 'low')} ;;",
                      "  *) ;;", "esac"]
    return "\n".join(lines) + "\n"


def _bash_value(directory: Path, env: dict) -> str | None:
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", *[f"{k}={v}" for k, v in env.items()],
                          "bash", "-c", 'source ./gen.sh; printf %s "${F-UNSET}"'],
                         cwd=directory, capture_output=True, timeout=20, check=True)
    return out.stdout.decode()


def _resolved(value, env: dict) -> str:
    def pick(choice):
        """The alternative of the input's value; a value no comparison names is "anything else"."""
        value = env.get(choice.name)
        if not any(value in values for values, _ in choice.alts):
            value = OTHER
        return next(alt for values, alt in choice.alts if value in values)

    return resolve(value, pick, lambda name: input_value(env.get(name))).text


@pytest.mark.parametrize("shape", ["flat", "nested", "case"])
def test_sixty_four_appends_on_their_own_switches_are_one_path(tmp_path, shape):
    path = tmp_path / "gen.sh"
    path.write_text(appends(64, shape))
    merged = evaluate(path)
    assert merged.paths_explored == 1 and len(merged.outcomes) == 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(count=st.integers(1, 6), shape=st.sampled_from(["flat", "nested", "case"]),
       switches=st.lists(st.sampled_from([None, "true", "low", "false"]), min_size=6, max_size=6),
       values=st.lists(st.sampled_from([None, "7", ""]), min_size=6, max_size=6))
def test_the_merged_appends_are_what_bash_exports(tmp_path, count, shape, switches, values):
    """One assignment of the switches and the values: the one path's value, resolved there, is bash's."""
    script = appends(count, shape)
    path = tmp_path / "gen.sh"
    path.write_text(script)
    merged = evaluate(path)
    assert merged.paths_explored == 1
    env = {}
    for i in range(count):
        if switches[i] is not None:
            env[f"SW{i}"] = switches[i]
            env[f"G{i // 2}"] = "true"
        if values[i] is not None:
            env[f"V{i}"] = values[i]
    # An input no condition compares is explored unset only: its value is not the path's to choose.
    env = {k: v for k, v in env.items() if not k.startswith("V")}
    ((outcome,),) = [merged.outcomes]
    assert _resolved(outcome.rendering.exported["F"], env) == _bash_value(tmp_path, env)


# --- symbolic values as shared structure ---------------------------------------------------------


def _chain(depth: int):
    """A value whose every level repeats the one below it in both alternatives: 2**depth ways down,
    `depth` distinct parts."""
    value = Value("base", Spans.unwritten(4))
    for i in range(depth):
        value = Choice(f"S{i}", ((frozenset({"on"}), Sym((Value(f"k{i}=1 ", Spans.unwritten(6)), value))), (frozenset({None}), value)))
    return value


def test_equal_values_are_one_object():
    def made():
        return Sym((Value("a=1 ", Spans.unwritten(4)), Choice("A", ((frozenset({"x"}), Value("b=2", Spans.unwritten(3))),
                                                                    (frozenset({None}), None)))))

    assert made() is made()


def test_walks_over_a_value_cost_its_parts_not_its_paths():
    value = _chain(300)  # 2**300 ways down: a walk that followed each would never end
    assert len(parts_of(value)) == 600
    assert choice_names(value) == {f"S{i}" for i in range(300)}
    assert read_names(value) == frozenset()
    on = resolve(value, lambda choice: choice.alts[0][1], lambda name: None)
    assert on.text == "".join(f"k{i}=1 " for i in reversed(range(300))) + "base"


def test_a_value_nested_three_thousand_deep_resolves():
    value = _chain(3_000)
    off = resolve(value, lambda choice: choice.alts[1][1], lambda name: None)
    assert off.text == "base" and len(choice_names(value)) == 3_000


# --- origins as spans ------------------------------------------------------------------------------


class _Source:
    """A stand-in for lexer.Source: the origin of character i is (path, i)."""

    def __init__(self, path: str):
        self.path = path

    def origin(self, index: int):
        return (self.path, index)


_SOURCES = [_Source("a.sh"), _Source("b.sh")]
runs = st.lists(st.tuples(st.sampled_from([None, *_SOURCES]), st.integers(0, 30), st.integers(0, 6)), max_size=6)


def _plain(found: list[tuple]) -> list:
    return [None if source is None else source.origin(start + k) for source, start, length in found for k in range(length)]


@given(found=runs, more=runs, cut=st.tuples(st.integers(-3, 40), st.integers(-3, 40)))
def test_spans_read_as_the_list_of_origins_they_stand_for(found, more, cut):
    spans, plain = Spans(found), _plain(found)
    assert len(spans) == len(plain) and list(spans) == plain and spans == plain
    assert [spans[i] for i in range(-len(plain), len(plain))] == [plain[i] for i in range(-len(plain), len(plain))]
    assert list(spans[cut[0]:cut[1]]) == plain[cut[0]:cut[1]]
    joined = joined_origins([spans, Spans(more)])
    assert list(joined) == plain + _plain(more)
    assert list(Spans(parts=[spans, [None, None], Spans(more)], length=len(plain) + 2 + len(_plain(more)))) == plain + [None, None] + _plain(more)
    assert (Spans(found) == Spans(more)) == (plain == _plain(more) and [type(o) for o in plain] == [type(o) for o in _plain(more)])

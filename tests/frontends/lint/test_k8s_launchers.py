"""Launchers shaped like google/tunix's distributed-RL `k8s_launcher.sh` (tests/fixtures/recipes/
launchers): flags captured from a function that writes a dozen optional parts, a guard over many
inputs, a `--worker_startup_command="…"` of many optional parts and a cache directory derived from
the rollout's inputs. Every launch is judged (no FL011), and what MaxText refuses is found."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.launch_parts import distinct_texts
from flaglint.frontends.lint.scripts import check_script
from flaglint.render.bash.expansion import input_value
from flaglint.render.bash.types import Choice, FromInput, Spans, Sym, Value, resolve

LAUNCHERS = Path(__file__).resolve().parent.parent.parent / "fixtures" / "recipes" / "launchers"
LAUNCHER = LAUNCHERS / "rl" / "k8s_launcher.sh"
GUARD = ("CKPT_DIR", "CKPT_BUCKET", "CKPT_PERIOD_MIN", "CKPT_KEEP", "CKPT_ASYNC", "CKPT_FORMAT", "CKPT_RESTORE", "CKPT_PREFIX")


@pytest.fixture(scope="module")
def checker():
    return Checker("bbd0f6f10")


@pytest.fixture(scope="module")
def launcher_check(checker):
    return check_script(LAUNCHER, checker)


def test_every_launch_of_the_launcher_is_judged(launcher_check):
    findings = launcher_check.result.findings
    assert "FL011" not in {f.rule for f in findings}
    errors = sorted((f.rule, f.keys, Path(f.location.file).name, f.location.line) for f in findings if f.severity == "error")
    assert errors == [
        ("FL005", ("async_checkpointing",), "k8s_launcher.sh", 33),  # written where the guard holds
        ("FL005", ("checkpoint_period",), "trainer_flags.sh", 16),  # the captured function's part, at its default
    ]


def test_the_guards_finding_needs_one_of_its_inputs_set(launcher_check):
    (finding,) = [f for f in launcher_check.result.findings if f.keys == ("async_checkpointing",)]
    env = finding.witness["env"]
    assert [name for name in GUARD if env.get(name) is not None] != []
    assert len([name for name in GUARD if env.get(name) is not None]) == 1


def test_with_none_of_the_guards_inputs_set_only_the_default_is_refused(checker):
    check = check_script(LAUNCHER, checker, dict.fromkeys(GUARD))
    assert sorted(f.keys for f in check.result.findings if f.severity == "error") == [("checkpoint_period",)]
    assert "FL011" not in {f.rule for f in check.result.findings}


def test_a_relative_source_not_found_says_where_it_was_looked_for(checker, tmp_path):
    script = tmp_path / "examples" / "rollout" / "launch.sh"
    script.parent.mkdir(parents=True)
    script.write_text("if [[ -f examples/common/setup.sh ]]; then\n  source examples/common/setup.sh\nfi\n"
                      "python3 -m maxtext.train src/maxtext/configs/base.yml steps=10\n")
    (finding,) = [f for f in check_script(script, checker).result.findings if f.rule == "FL011"]
    assert finding.location.line == 2
    assert "the sourced file 'examples/common/setup.sh' is not found" in finding.message
    assert "looked for from the working directory, beside the file that names it and from the root of the git checkout" in finding.message


def test_a_relative_source_is_read_from_the_root_of_the_checkout(checker, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "examples" / "common").mkdir(parents=True)
    (tmp_path / "examples" / "common" / "setup.sh").write_text("export STEPS=ten\n")
    script = tmp_path / "examples" / "rollout" / "launch.sh"
    script.parent.mkdir(parents=True)
    script.write_text("if [[ -f examples/common/setup.sh ]]; then\n  source examples/common/setup.sh\nfi\n"
                      "python3 -m maxtext.train src/maxtext/configs/base.yml steps=${STEPS:-10}\n")
    findings = check_script(script, checker).result.findings
    assert "FL011" not in {f.rule for f in findings}
    assert [f.keys for f in findings if f.severity == "error"] == [("steps",)]


# distinct_texts against every assignment of a few inputs' values: the same texts, each way giving its own.
NAMES = ("A", "B")
DOMAIN = [None, "", "1", "x"]


def _value(text: str, opaque: bool = False) -> Value:
    return Value(text, Spans.unwritten(len(text)), opaque)


def _values():
    leaf = st.one_of(st.sampled_from(["", "a", " k=1", "b "]).map(_value), st.just(_value("o", True)), st.none(),
                     st.sampled_from(NAMES).map(FromInput))

    def nested(children):
        alternatives = st.lists(st.tuples(st.frozensets(st.sampled_from(DOMAIN), min_size=1), children), min_size=1, max_size=3)
        return st.one_of(st.builds(Choice, st.sampled_from(NAMES), alternatives.map(tuple)),
                         st.lists(children, min_size=1, max_size=3).map(lambda pieces: Sym(tuple(pieces))))

    return st.recursive(leaf, nested, max_leaves=8)


def _at(values: list, env: dict) -> tuple:
    def pick(choice):
        return next((alt for held, alt in choice.alts if env[choice.name] in held), choice.alts[0][1])

    texts, opaque = [], False
    for value in values:
        found = resolve(value, pick, lambda name: input_value(env[name]))
        texts.append("" if found is None else found.text)
        opaque = opaque or (found is not None and found.opaque)
    return "".join("\0" + t for t in texts), opaque


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_values(), min_size=1, max_size=2))
# two alternatives of one text, then the input read whole: the ways stay apart where the rest reads it
@example(values=[Choice("A", ((frozenset({None}), _value("")), (frozenset({"1"}), None))), FromInput("A")])
def test_the_distinct_texts_are_those_of_every_assignment(values):
    every = {_at(values, dict(zip(NAMES, combo))) for combo in itertools.product(DOMAIN, repeat=len(NAMES))}
    found = distinct_texts(values, lambda name: list(DOMAIN), 4096)
    assert set(found) == every
    for text, way in found.items():
        # every value a way allows of the inputs it fixed gives its text, whatever the others
        for combo in itertools.product(*(way.get(name, DOMAIN) for name in NAMES)):
            assert _at(values, dict(zip(NAMES, combo))) == text


@settings(max_examples=300, deadline=None)
@given(values=st.lists(_values(), min_size=1, max_size=3))
# one input read four times: four ways of a dozen steps each, three texts (unset and empty read alike)
@example(values=[FromInput("B"), Sym((FromInput("B"),)), Sym((_value("o", True), FromInput("B"), FromInput("B")))])
def test_the_texts_are_counted_against_the_cap_exactly(values):
    # more texts than the cap: given up; as many as the cap: every one (values that read no input in
    # common are counted apart first, and the product of their counts decides)
    every = {_at(values, dict(zip(NAMES, combo))) for combo in itertools.product(DOMAIN, repeat=len(NAMES))}
    assert set(distinct_texts(values, lambda name: list(DOMAIN), len(every))) == every
    if len(every) > 1:
        assert distinct_texts(values, lambda name: list(DOMAIN), len(every) - 1) is None


def test_switches_that_read_no_input_in_common_give_up_without_walking_their_product():
    """Fourteen `case "$MODE_i"` appends, each of three texts: 3**14 texts over a cap of 4096,
    known from each switch's own three, not from a walk of 4096 of them."""
    names = [f"MODE_{i}" for i in range(14)]
    values = [Choice(name, ((frozenset({"on"}), _value(f" steps={i}")), (frozenset({"low"}), _value(f" log_period={i}")),
                            (frozenset({None}), None))) for i, name in enumerate(names)]
    asked = []

    def domain(name):
        asked.append(name)
        return ["on", "low", None]

    assert distinct_texts(values, domain, 4096) is None
    assert sorted(asked) == sorted(names)  # each switch's values asked once
    asked.clear()
    found = distinct_texts(values[:7], domain, 4096)
    assert len(found) == 3 ** 7


def test_a_guard_over_many_inputs_takes_its_texts_not_their_product():
    """`if [[ -n $V1 || … || -n $V12 ]]; then json=$(…); fi`: two texts, found in a walk as long as the guard."""
    names = [f"V{i}" for i in range(12)]
    json = _value("--config='flaglint-other'", True)
    value = None
    for name in reversed(names):
        value = Choice(name, ((frozenset({None, ""}), value), (frozenset({"x"}), json)))
    found = distinct_texts([value], lambda name: [None, "", "x"], 3)
    assert {text for text, _ in found} == {"\0", "\0--config='flaglint-other'"}

"""render() against real bash on generated scripts that only assign and branch.

bash only ever runs scripts this test generated itself, in a temporary directory, with an empty
environment except PATH.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from flaglint.render import render

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

NAMES = ["A", "B", "C", "IN1", "IN2", "FLAGS"]
ENV_VALUES = ["", "x", "1", "7", "tpu7x:4x8x8", "a b", "us-east1-b", "k=v q=w"]
LITERALS = ["x", "1", "a", "b", "k=v", "tpu7x:4x8x8", "us-east1", ":", "ab_c", ""]
BASH_OWN = {"PWD", "SHLVL", "_", "OLDPWD", "PATH"}

names = st.sampled_from(NAMES)
literal = st.sampled_from(LITERALS)
pattern = st.sampled_from(["x", "a*", "*b", "us-east1*", "tpu7x:*", "?", "[ab]*", "*", "k=*", "*=*"])


def dq_text() -> st.SearchStrategy[str]:
    """Literal text that is safe inside double quotes."""
    return st.sampled_from(["x", " ", "k=v ", " q=1", "a b", "tpu7x:4x8x8", "'q'", "\\\n  ", "-"])


@st.composite
def expansion(draw, depth: int) -> str:
    name = draw(names)
    kind = draw(st.integers(0, 13 if depth > 0 else 9))
    if kind == 0:
        return f"${name}"
    if kind == 1:
        return f"${{{name}}}"
    if kind == 2:
        return f"${{{name}%{draw(pattern)}}}"
    if kind == 3:
        return f"${{{name}%%{draw(pattern)}}}"
    if kind == 4:
        return f"${{{name}#{draw(pattern)}}}"
    if kind == 5:
        return f"${{{name}##{draw(pattern)}}}"
    if kind == 6:
        return f"${{{name}/{draw(st.sampled_from(['a', 'x', ' ', '*=']))}/{draw(literal)}}}"
    if kind == 7:
        return f"${{{name}//{draw(st.sampled_from(['a', 'x', ' ', '=']))}/{draw(literal)}}}"
    if kind == 8:
        return f"${{#{name}}}"
    if kind == 9:
        a, b = draw(st.integers(0, 30)), draw(st.integers(1, 9))
        op = draw(st.sampled_from(["+", "-", "*", "/", "%"]))
        return f"$(( {a} {op} {b} ))"
    op = draw(st.sampled_from([":-", "-", ":+", "+"]))
    return f"${{{name}{op}{draw(dq_word(depth - 1))}}}"


@st.composite
def dq_word(draw, depth: int = 2) -> str:
    """The inside of a double-quoted word."""
    parts = draw(st.lists(st.one_of(dq_text(), expansion(depth)), min_size=0, max_size=4))
    return "".join(parts)


@st.composite
def word(draw) -> str:
    form = draw(st.integers(0, 3))
    if form == 0:
        return '"' + draw(dq_word()) + '"'
    if form == 1:
        return draw(literal) or "''"
    if form == 2:
        return "'" + draw(st.sampled_from(["a b", "$X", "k=v", ""])) + "'"
    return draw(literal) + '"' + draw(dq_word()) + '"'


@st.composite
def string_test(draw, words: st.SearchStrategy[str]) -> str:
    w = draw(words)
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return f"[[ {w} == {draw(pattern)} ]]"
    if kind == 1:
        return f'[[ {w} != "{draw(literal)}" ]]'
    return f"[[ {'-n' if kind == 2 else '-z'} {w} ]]"


@st.composite
def condition(draw, depth: int = 1) -> str:
    kind = draw(st.integers(0, 5 if depth > 0 else 2))
    if kind == 0:
        return draw(string_test(word()))
    if kind == 1:
        op = draw(st.sampled_from(["-eq", "-ne", "-gt", "-ge", "-lt", "-le"]))
        return f"[[ ${{#{draw(names)}}} {op} {draw(st.integers(0, 12))} ]]"
    if kind == 2:
        if draw(st.booleans()):
            return f'[[ {draw(word())} =~ {draw(st.sampled_from(["^[0-9]+$", "^a", "b$", "x.*y", "^(tpu7x|us)"]))} ]]'
        return f'[ "{draw(dq_word())}" {draw(st.sampled_from(["=", "!="]))} "{draw(literal)}" ]'
    a, b = draw(condition(depth - 1)), draw(condition(depth - 1))
    if kind == 3:
        return f"{a} && {b}"
    if kind == 4:
        return f"{a} || {b}"
    return f"! {a}"


@st.composite
def statement(draw, depth: int, several: bool = True) -> str:
    kind = draw(st.integers(0, 11 if depth > 0 else 7))
    name = draw(names)
    if kind == 0:
        return f"{name}={draw(word())}"
    if kind == 1:
        return f"export {name}={draw(word())}"
    if kind == 2:
        return f"{name}+={draw(word())}"
    if kind == 3:
        return f"export {name}"
    if kind == 4 and several:
        return f"{name}={draw(word())} {draw(names)}={draw(word())}"
    if kind == 4:
        return f"unset {name}"
    if kind == 5:
        return f"export -n {name}"
    if kind == 6:
        return f"export {name}+={draw(word())}"
    if kind == 7:
        return f': "${{{name}:={draw(dq_word(1))}}}"'
    body = lambda: "\n".join(draw(st.lists(statement(depth - 1), min_size=1, max_size=3)))  # noqa: E731
    if kind == 8:
        text = f"if {draw(condition())}; then\n{body()}\n"
        for _ in range(draw(st.integers(0, 2))):
            text += f"elif {draw(condition())}; then\n{body()}\n"
        if draw(st.booleans()):
            text += f"else\n{body()}\n"
        return text + "fi"
    if kind == 9:
        items = draw(st.lists(st.lists(pattern, min_size=1, max_size=2), min_size=1, max_size=3))
        text = f"case {draw(word())} in\n"
        for pats in items:
            text += f"  {'|'.join(pats)}) {body()} ;;\n"
        return text + "esac"
    if kind == 10:
        if draw(st.booleans()):
            return f"for {name} in {draw(word())} {draw(word())}; do\n{body()}\ndone"
        local = draw(names)
        return (f"fn() {{\n  local {local}=\"$1\"\n  export {name}=\"${{{local}}}-{draw(dq_word(1))}\"\n{body()}\n}}\n"
                f"fn {draw(word())}")
    # tree-sitter-bash misreads `A=1 B=2` ending a line after &&; the evaluator refuses it (tested elsewhere)
    return f"{draw(condition())} && {draw(statement(depth - 1, several=False))}"


scripts = st.lists(statement(2), min_size=1, max_size=8).map(lambda xs: "\n".join(xs) + "\n")

# Conditions that read inputs directly, as recipes do, so that explore() forks on them.
input_word = st.sampled_from(['"$IN1"', '"${IN2}"', '"${IN1:-x}"', '"${IN2:-tpu7x:4x8x8}"', "$IN1", '"${A}"'])


@st.composite
def input_condition(draw) -> str:
    if draw(st.booleans()):
        return draw(string_test(input_word))
    w = draw(input_word)
    if draw(st.booleans()):
        return f"[[ {w} =~ ^[0-9]+$ ]] || [[ -z {w} ]]"
    return f'[ {w} = "{draw(literal)}" ]'


@st.composite
def branch_on_input(draw) -> str:
    body = lambda: "\n".join(draw(st.lists(statement(1), min_size=1, max_size=2)))  # noqa: E731
    if draw(st.booleans()):
        return f"if {draw(input_condition())}; then\n{body()}\nelse\n{body()}\nfi"
    items = draw(st.lists(pattern, min_size=1, max_size=3))
    return f"case {draw(input_word)} in\n" + "".join(f"  {p}) {body()} ;;\n" for p in items) + "esac"


branching_scripts = st.lists(st.one_of(branch_on_input(), statement(1)), min_size=2, max_size=6).map(
    lambda xs: "\n".join(xs) + "\n")
environments = st.dictionaries(names, st.sampled_from(ENV_VALUES), max_size=4)


def bash_env(directory: Path, env: dict[str, str]) -> dict[str, str]:
    out = subprocess.run(
        ["env", "-i", "PATH=/usr/bin:/bin", *[f"{k}={v}" for k, v in env.items()],
         "bash", "-c", "source ./gen.sh; env -0"],
        cwd=directory, capture_output=True, timeout=20,
    )
    pairs = [item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item]
    return {k: v for k, v in pairs if k not in BASH_OWN}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(script=st.one_of(scripts, branching_scripts), env=environments)
def test_render_agrees_with_bash(script: str, env: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "gen.sh"
        path.write_text(script)
        expected = bash_env(Path(d), env)
        rendering = render(path, env)
        got = {k: v.text for k, v in rendering.exported.items()}
        assert got == expected, script
        data = path.read_bytes()
        for value in rendering.exported.values():
            assert len(value.origins) == len(value.text)
            for ch, origin in zip(value.text, value.origins):
                if origin is not None:
                    raw = data[origin.offset:origin.offset + len(ch.encode())].decode()
                    assert raw == ch, (ch, origin)
                    line = data.decode().split("\n")[origin.line - 1]
                    assert line[origin.column - 1] == ch


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(script=branching_scripts)
# Found by this test: `export -n IN1` before IN1 is read; the path that read it later exported it.
@example(script='if [ "${IN2}" = "x" ]; then\nA=""\nelse\nexport -n IN1\nfi\ncase "$IN1" in\n  x) A="" ;;\nesac\n')
def test_explore_covers_render(script: str) -> None:
    """Each witness renders to its outcome."""
    from flaglint.render import explore

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "gen.sh"
        path.write_text(script)
        result = explore(path)
        assert not result.capped
        for outcome in result.outcomes:
            env = {k: v for k, v in outcome.env.items() if v is not None}
            got = {k: v.text for k, v in render(path, env).exported.items()}
            expected = {k: v.text for k, v in outcome.rendering.exported.items()}
            assert got == expected, (script, outcome.env)


def _texts(exported: dict, domains: dict) -> dict:
    """Exported values, less an input's value that is one of the values its path groups."""
    return {k: v.text for k, v in exported.items() if not (k in domains and v.text in domains[k])}


def _own(exported: dict, inputs: dict) -> tuple:
    """The exported variables, less inputs whose value has no character written in the script."""
    return tuple(sorted(
        (k, v.text) for k, v in exported.items() if not (k in inputs and all(o is None for o in v.origins))))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(script=branching_scripts, choice=st.randoms(use_true_random=False))
def test_path_conditions_partition_the_inputs_and_predict_the_outcome(script: str, choice) -> None:
    """In Z3, every assignment of the explored values satisfies exactly one path's condition; the
    outcome of that path is what bash-like rendering of the assignment gives."""
    import z3

    from flaglint.render import explore
    from flaglint.render.bash.path_conditions import PathConditions

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "gen.sh"
        path.write_text(script)
        result = explore(path)
        paths = [(p, o) for o in result.outcomes for p in o.paths]
        conditions = PathConditions(result.inputs, [p for p, _ in paths])
        solver = z3.Solver()
        solver.add(conditions.bounds, z3.Not(z3.PbEq([(conditions.any_of([p]), 1) for p, _ in paths], 1)))
        assert solver.check() == z3.unsat, script
        for _ in range(5):
            env = {k: choice.choice(vs) for k, vs in conditions.values.items()}
            ((taken, outcome),) = [(p, o) for p, o in paths if all(env.get(n) in vs for n, vs in p.domains.items())]
            # The inputs the path's condition constrains; every other variable unset, as explored.
            env = {k: v for k, v in env.items() if v is not None and k in taken.domains}
            env.update({k: v for k, v in taken.env.items() if k not in taken.domains and v is not None})  # the caller's
            rendered = render(path, env)
            # Values grouped on one path differ only in that input's own, inherited, exported value.
            assert _texts(rendered.exported, taken.domains) == _texts(outcome.rendering.exported, taken.domains), (script, env)

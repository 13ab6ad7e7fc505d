"""evaluate() (paths merged where they join, values symbolic) against the reference explorer and
real bash, on generated scripts that branch on inputs; and the constructs it must get right.

bash only ever runs scripts this test generated itself, in a temporary directory, with an empty
environment except PATH.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_bash_property import (
    bash_env,
    branching_scripts,
    input_condition,
    literal,
    names,
    pattern,
    statement,
)

from flaglint.render import evaluate, explore
from flaglint.render.bash.expansion import input_value
from flaglint.render.bash.types import Choice, parts_of, resolve

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def resolved_in(value, env: dict):
    def pick(choice):
        return next(alt for values, alt in choice.alts if env.get(choice.name) in values)

    return resolve(value, pick, lambda name: input_value(env.get(name)))


def exported_as(outcome, env: dict) -> dict:
    """The outcome's exported variables, each as a run with `env` has it (those it leaves unset out)."""
    got = {}
    for name, value in outcome.rendering.exported.items():
        concrete = resolved_in(value, env)
        if concrete is not None:
            got[name] = concrete.text
    return got


def own_changes(exported: dict, env: dict) -> dict:
    """The exported variables, less an input the script left as the environment gave it."""
    return {k: v for k, v in exported.items() if not (k in env and v == env[k])}


def taken_by(paths: list, env: dict):
    return [(p, o) for p, o in paths if p.admits({n: env.get(n) for n in p.domains})]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(script=branching_scripts, choice=st.randoms(use_true_random=False))
# Found by this test: a for loop over an input that forks re-ran the step with the loop advanced (one pass lost).
@example(script='B=""\ncase "$IN1" in\n  x) A="" ;;\nesac\ncase "${A}" in\n  x) A="" ;;\nesac\n'
         'for A in "" ""; do\nexport B+="x"\ndone\n', choice=random.Random(0))
# `export A` on one arm, A unset: after the paths that read A are grouped, A="" must still be exported.
@example(script='if [ "$IN1" = "x" ]; then\nA=""\nelse\nexport A\nfi\ncase "$IN1" in\n  x) A="" ;;\nesac\n'
         'if [[ "${A}" =~ ^[0-9]+$ ]] || [[ -z "${A}" ]]; then\nA=""\nelse\nA=""\nfi\n', choice=random.Random(0))
# An input set in the environment, then assigned after a join: bash exports it.
@example(script='A=""\ncase "$IN1" in\n  x) A="" ;;\n  a*) A="" ;;\nesac\n: "${IN1:=}"\ncase "$IN1" in\n'
         '  x) A="" ;;\nesac\nIN1=""\n', choice=random.Random(3))
# Found by this test: `unset IN1` on the paths where IN1 is set, merged with paths that never
# assigned it, exported IN1 when a later assignment set it again.
@example(script='case "$IN1" in\n  x) A="" ;;\nesac\ncase "$IN1" in\n  a*) unset IN1 ;;\nesac\nIN1=""\n',
         choice=random.Random(0))
# Found by this test: joined arms whose values, spread into one Choice on the input, all read the
# input's own value (`A+=` then read a bare FromInput).
@example(script='case "$IN1" in\n  x) [[ "" == x ]] && A="" ;;\n  x) A="" ;;\n  a*) A="" ;;\nesac\n'
         'if [ "${A}" = "x" ]; then\nA=""\nelse\nexport B=""\nfi\ncase "$IN1" in\n  x) A+="" ;;\nesac\n',
         choice=random.Random(0))
# Found by this test: `export -n A` on the paths that decided A, merged back into one that groups
# A's values, exported A where the environment set it when a later case assigned it.
@example(script='if [ "$IN1" = "x" ]; then\nA=""\nelse\nexport -n A\nfi\ncase "${A}" in\n  x) A="" ;;\nesac\n',
         choice=random.Random(0))
# Found by this test: A's values grouped where a case read it after A was assigned ("" on each);
# the group kept A exported, so its unset value exported A too.
@example(script='case "${A}" in\n  x) A="" ;;\n  a*) export IN1="$IN1$Ax" ;;\nesac\ncase "$IN1" in\n  x) A="" ;;\nesac\n'
         'case "$IN1" in\n  x) A="" ;;\nesac\n', choice=random.Random(5))
def test_merged_evaluation_agrees_with_the_explorer_and_bash(script: str, choice) -> None:
    _agrees_with_the_explorer_and_bash(script, choice)


def test_an_input_assigned_on_one_arm_then_matched_by_a_case_is_exported():
    """Found by the test above: IN1 assigned on one arm only, the arms merged, then a case arm that
    the environment's IN1=x takes (with IN1=a): bash exports IN1='a b' there, as it exports every
    variable its environment gave."""
    _agrees_with_the_explorer_and_bash('if [[ "$IN1" != "x" ]]; then\n: "${B:=}"\nelse\nIN1=\'a b\'\nfi\n'
                                       'case "$IN1" in\n  a*) export A="" ;;\nesac\n', _Always("x"))


def test_export_n_of_an_input_assigned_on_one_arm_exports_it_on_no_value():
    """`export -n IN1` after IN1 was assigned on one arm only: bash exports it on no value, also
    where the environment set it."""
    _agrees_with_the_explorer_and_bash('if [[ "$IN1" != "x" ]]; then\n: "${B:=}"\nelse\nIN1=\'a b\'\nfi\n'
                                       'export -n IN1\n', _Always("x"))


class _Always(random.Random):
    """The sample that takes VALUE for every input that can have it (the failing assignment)."""

    def __init__(self, value: str):
        super().__init__(0)
        self.value = value

    def choice(self, seq):
        return self.value if self.value in seq else seq[0]


def _input_test(name: str) -> st.SearchStrategy[str]:
    word = st.sampled_from([f'"${name}"', f'"${{{name}:-x}}"', f'"${{{name}:-}}"', f"${name}"])
    return st.one_of(
        st.builds(lambda w, p: f"[[ {w} == {p} ]]", word, pattern),
        st.builds(lambda w, v: f'[[ {w} != "{v}" ]]', word, literal),
        st.builds(lambda w, op: f"[[ {op} {w} ]]", word, st.sampled_from(["-n", "-z"])),
        st.builds(lambda w, v: f'[ {w} = "{v}" ]', word, literal),
    )


@st.composite
def guard_over_inputs(draw) -> str:
    """An if whose condition, or nested ifs whose conditions, read two or three different inputs."""
    names = draw(st.lists(st.sampled_from(["IN1", "IN2", "IN3"]), min_size=2, max_size=3, unique=True))
    tests = [draw(_input_test(name)) for name in names]
    body = lambda: "\n".join(draw(st.lists(statement(1), min_size=1, max_size=2)))  # noqa: E731
    form = draw(st.integers(0, 3))
    if form == 0:
        ops = [draw(st.sampled_from(["&&", "||"])) for _ in tests[1:]]
        condition = tests[0] + "".join(f" {op} {t}" for op, t in zip(ops, tests[1:]))
        return f"if {condition}; then\n{body()}\nelse\n{body()}\nfi"
    if form == 1:
        return f"if {tests[0]}; then\nif {tests[1]}; then\n{body()}\nelse\n{body()}\nfi\nelif {tests[-1]}; then\n{body()}\nfi"
    if form == 2:  # a guard that refuses a combination: that path launches nothing
        return f"if {tests[0]} && {tests[1]}; then\n{body()}\nexit 1\nfi"
    return f"{tests[0]} && {tests[1]} && {draw(statement(0, several=False))}"


guarded_scripts = st.lists(st.one_of(guard_over_inputs(), statement(1)), min_size=2, max_size=5).map(
    lambda xs: "\n".join(xs) + "\n")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(script=guarded_scripts, choice=st.randoms(use_true_random=False))
# Found by this test: the explorer put a path that exits 1 into the outcome of paths that export
# the same values and exit 0.
@example(script='if [[ "$IN1" == x ]] && [[ "${IN2:-x}" == x ]]; then\nIN1=""\nexit 1\nfi\nIN1=""\n',
         choice=random.Random(0))
def test_guards_over_several_inputs_agree_with_the_explorer_and_bash(script: str, choice) -> None:
    _agrees_with_the_explorer_and_bash(script, choice)


@st.composite
def reads_of_a_value_joined_behind_a_guard(draw) -> str:
    """A value set behind a guard over two or three inputs (`-n "${IN1:-}" || -n "${IN2:-}"`, as a
    launcher guards a JSON it builds), an arm maybe adding to V before or after it, one maybe a function's
    captured output, V maybe unset before it, then read as bash reads it
    in a launcher: a part with an operator (`${V:+--v='${V}'}`), an emptiness test (`-n "${V:-}"`,
    `-z "$V"`), a string around it."""
    names = draw(st.lists(st.sampled_from(["IN1", "IN2", "IN3"]), min_size=2, max_size=3, unique=True))
    tests = [draw(st.sampled_from([f'-n "${{{name}:-}}"', f'-z "${{{name}-}}"', f'-n "${name}"'])) for name in names]
    guard = f" {draw(st.sampled_from(['||', '&&']))} ".join(tests)
    values = st.sampled_from(['""', "x", '"--a=1"', '"--a=1 --b=2"', '"$IN1"', '"${IN2:-}"', '"$(json)"', '"$V --c=3"',
                              '"--c=3 ${V}"', '"--c=3 ${V} --d=4"'])
    lines = ["json() { printf '%s' \"${IN3:-}\"; }", *([f"V={draw(values)}"] if draw(st.booleans()) else []),
             f"if [[ {guard} ]]; then", f"  V={draw(values)}"]
    if draw(st.booleans()):
        lines += ["else", f"  V={draw(values)}"]
    lines.append("fi")
    reads = ["export R=\"k ${V:+--v='${V}'}\"", 'if [[ -n "${V:-}" ]]; then export E=set; else export E=empty; fi',
             '[[ -z "$V" ]] && export Z=1', 'export S="<${V-unset}>"', 'if [[ -n "${V}" && "${IN3:-}" != *x* ]]; then export T=1; fi']
    lines += draw(st.lists(st.sampled_from(reads), min_size=1, max_size=3, unique=True))
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(script=reads_of_a_value_joined_behind_a_guard(), choice=st.randoms(use_true_random=False))
# Found by this test: a test that forks on an input, then again on it (`-n "$V" && "$IN3" != *x*`,
# V joined on IN3), grouped the values of the second fork with the first's class (T=1 lost).
@example(script='if [[ -n "${IN3:-}" ]]; then\n  V=x\nelse\n  V=""\nfi\nif [[ -n "${V}" && "${IN3:-}" != *x* ]]; then export T=1; fi\n',
         choice=_Always("flaglint-other"))
@example(script='V="--a=1"\nif [[ -n "${IN1:-}" || -n "${IN2:-}" ]]; then\n  V="--c=3 ${V}"\nfi\nexport R="k ${V:+--v=\'${V}\'}"\n',
         choice=_Always("flaglint-other"))
@example(script='if [[ -n "${IN1:-}" && -z "${IN2-}" ]]; then\n  V=x\nfi\n'
         'if [[ -n "${V:-}" ]]; then export E=set; else export E=empty; fi\n', choice=_Always("flaglint-other"))
def test_a_value_joined_behind_a_guard_reads_as_bash_reads_it(script: str, choice) -> None:
    _agrees_with_the_explorer_and_bash(script, choice)


_plain_statement = st.builds(lambda form, name, value: form.format(name=name, value=value),
                             st.sampled_from(["{name}={value}", "export {name}={value}", "{name}+={value}", "unset {name}",
                                              "export {name}", "export -n {name}"]), names, literal)


@st.composite
def calls_of_functions_with_a_one_arm_local(draw) -> str:
    """Functions that declare a `local` in one arm of a branch on an input only, then assign the
    same name (the local where it was declared, else the caller's variable), called in series
    between assignments, exports and unsets of the same names."""
    body = lambda: "\n".join(draw(st.lists(_plain_statement, min_size=0, max_size=2)))  # noqa: E731
    functions = []
    for k in range(draw(st.integers(1, 2))):
        local = draw(names)
        functions.append(f"fn{k}() {{\nif {draw(input_condition())}; then\nlocal {local}={draw(literal)}\n{body()}\nfi\n"
                         f"{local}+={draw(literal)}\n{body()}\nexport {draw(names)}=\"${{{local}}}\"\n}}")
    calls = draw(st.lists(st.one_of(st.sampled_from([f"fn{k}" for k in range(len(functions))]), _plain_statement),
                          min_size=1, max_size=5))
    return "\n".join(functions + calls) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(script=calls_of_functions_with_a_one_arm_local(), choice=st.randoms(use_true_random=False))
def test_paths_that_join_where_a_function_returns_agree_with_the_explorer_and_bash(script: str, choice) -> None:
    """Paths that differ in a `local` declared in one arm join where the function returns (its
    locals gone), not after the last call: what bash exports is still what each input gives."""
    _agrees_with_the_explorer_and_bash(script, choice)


def _agrees_with_the_explorer_and_bash(script: str, choice) -> None:
    """The merged paths partition the inputs' values (exactly one holds each assignment), and the
    symbolic outcome, resolved for an assignment, is what bash exports; the reference explorer
    gives the same exports for the same assignment."""
    import z3

    from flaglint.render.bash.path_conditions import PathConditions

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "gen.sh"
        path.write_text(script)
        merged = evaluate(path)
        reference = explore(path)
        assert merged.paths_explored <= reference.paths_explored
        paths = [(p, o) for o in merged.outcomes for p in o.paths]
        conditions = PathConditions({**reference.inputs, **merged.inputs}, [p for p, _ in paths])
        solver = z3.Solver()
        solver.add(conditions.bounds, z3.Not(z3.PbEq([(conditions.any_of([p]), 1) for p, _ in paths], 1)))
        assert solver.check() == z3.unsat, script
        reference_paths = [(p, o) for o in reference.outcomes for p in o.paths]
        for _ in range(4):
            sample = {k: choice.choice(vs) for k, vs in conditions.values.items()}
            ((taken, outcome),) = taken_by(paths, sample)
            ((ref_taken, ref_outcome),) = taken_by(reference_paths, sample)
            # Every other variable unset, as explored; an input grouped on the path keeps its value.
            env = {k: v for k, v in sample.items() if v is not None and k in taken.domains}
            env.update({k: v for k, v in taken.env.items() if k not in taken.domains and v is not None})  # the caller's
            got = {}
            for name, value in outcome.rendering.exported.items():
                concrete = resolved_in(value, env)
                if concrete is not None and not isinstance(concrete, list):
                    got[name] = concrete.text
            if outcome.rendering.unbounded is not None:
                # a path the evaluator does not get past says so (FL011 where it launches): never a wrong value
                assert "is not followed" in outcome.rendering.unbounded.message, script
                continue
            assert outcome.rendering.status == _bash_status(Path(d), env), (script, env)
            if outcome.rendering.status == 0:
                assert _comparable(got, env, taken) == _comparable(bash_env(Path(d), env), env, taken), (script, env)
            ref_env = {k: v for k, v in sample.items() if v is not None and k in ref_taken.domains}
            ref_env.update({k: v for k, v in ref_taken.env.items() if k not in ref_taken.domains and v is not None})
            ref_got = {k: v.text for k, v in ref_outcome.rendering.exported.items()}
            assert ref_outcome.rendering.status == _bash_status(Path(d), ref_env), (script, ref_env)
            if ref_outcome.rendering.status == 0:
                assert _comparable(ref_got, ref_env, ref_taken) == _comparable(bash_env(Path(d), ref_env), ref_env, ref_taken)


def _bash_status(directory: Path, env: dict) -> int:
    """The status bash ends the script with (a guard's `exit 1`, or 0)."""
    return subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", *[f"{k}={v}" for k, v in env.items()],
                           "bash", "-c", "source ./gen.sh; exit 0"], cwd=directory, capture_output=True, timeout=20).returncode


def _comparable(exported: dict, env: dict, taken) -> dict:
    """What the script itself exports: less an input left as the environment gave it, and less an
    input's value that is one of the values its path groups (a path shows one of them)."""
    return {k: v for k, v in own_changes(exported, env).items() if not (k in taken.domains and v in taken.domains[k])}


def _bash_exports(directory: Path, script: str, env: dict) -> dict:
    (directory / "gen.sh").write_text(script)
    return bash_env(directory, env)


GUARDS_OVER_TWO_INPUTS = [
    'F="a"\nif [[ "${IN1:-}" == 1 && "${IN2:-}" == x ]]; then F="$F k=1"; else F="$F k=2"; fi\nexport F\n',
    'if [[ "${IN1:-}" == 1 || "${IN2:-}" == x ]]; then export F=on; else export F=off; fi\n',
    'if [[ "${IN1:-}" == 1 ]]; then\n  if [[ "${IN2:-}" == x ]]; then F=a; else F=b; fi\nelse\n  F=c\nfi\nexport F\n',
    # A variable guarded over two inputs, read by a later test: decided again on both.
    'if [[ "${IN1:-}" == 1 && "${IN2:-}" == x ]]; then A=on; fi\n[[ "${A:-}" == on ]] && export B=yes\nexport A\n',
]


@pytest.mark.parametrize("script", GUARDS_OVER_TWO_INPUTS[:3])
def test_guards_over_two_inputs_merge_into_one_path(tmp_path, script):
    path = tmp_path / "gen.sh"
    path.write_text(script)
    merged = evaluate(path)
    assert merged.paths_explored == 1 and len(merged.outcomes) == 1


@pytest.mark.parametrize(
    "script",
    [
        # `export IN1` on one arm only: bash exports it (empty) after the join.
        'if [[ "${IN2:-}" == x ]]; then\n  IN1=""\n  export IN1\nfi\n',
        'if [[ "${IN2:-}" == x ]]; then\n  export IN1\n  IN1=""\nfi\n',
        # `export IN1` where IN1 is unset, joined with arms where the environment sets it: exported on both.
        'A=""\ncase "$IN1" in\n  x) A="" ;;\nesac\nif [[ "$IN1" =~ ^[0-9]+$ ]] || [[ -z "$IN1" ]]; then\n  export IN1\nelse\n  A=""\nfi\nIN1=""\n',
        # Appending after a join keeps each arm's text.
        'F="a"\nif [[ "${IN1:-}" == 1 ]]; then F="$F b=1"; else F="$F b=2"; fi\nF+=" c=3"\nexport F\n',
        # A value read by a test after a join is decided again.
        'if [[ "${IN1:-}" == 1 ]]; then A=on; else A=off; fi\nif [[ "$A" == on ]]; then export B=yes; fi\nexport A\n',
        # && / || lists join too.
        '[[ "${IN1:-}" == 1 ]] && F="x" || F="y"\nexport F="${F}-z"\n',
        # Paths forked inside a subshell in a function each get the function's variables back (the
        # subshell's frame is shared by both: one path's return must not change the other's).
        'f() {\n  local x=inner\n  ( if [[ "${IN1:-}" == 1 ]]; then exit 3; fi; true )\n  export S1="$?" X1="$x"\n}\nf\n'
        'export X2="${x-unset}"\ng() { local y=2; export Y="$y"; }\ng\n',
        *GUARDS_OVER_TWO_INPUTS,
    ],
)
def test_joins_as_bash_runs_them(tmp_path, script):
    path = tmp_path / "gen.sh"
    path.write_text(script)
    merged = evaluate(path)
    for env in ({}, {"IN1": "1"}, {"IN2": "x"}, {"IN1": "1", "IN2": "x"}):
        expected = own_changes(_bash_exports(tmp_path, script, env), env)
        ((_, outcome),) = taken_by([(p, o) for o in merged.outcomes for p in o.paths], env)
        assert own_changes(exported_as(outcome, env), env) == expected, (script, env)


def test_appending_to_a_value_guarded_over_several_inputs_does_not_fork(tmp_path):
    """`F=""`, then each switch appends under nested guards over three inputs: one path, whose
    value is what bash exports for each assignment (the append never asks which arm was taken)."""
    lines = ['F=""']
    for i in range(12):
        lines += [f'if [[ -n "${{A{i}:-}}" || "${{B{i}:-}}" == 1 ]]; then',
                  f'  if [[ "${{C{i}:-x}}" == y ]]; then F+=" k{i}=1"; else F+=" k{i}=2"; fi',
                  f'elif [[ "${{A{i}:-}}" == z ]]; then F+=" k{i}=3"', "fi"]
    script = "\n".join(lines) + "\nexport F\n"
    path = tmp_path / "gen.sh"
    path.write_text(script)
    merged = evaluate(path)
    assert merged.paths_explored == 1
    ((outcome,),) = [merged.outcomes]
    for env in ({}, {"A0": "flaglint-other", "C0": "y"}, {"B3": "1", "A5": "z"}, {f"B{i}": "1" for i in range(12)}):
        assert resolved_in(outcome.rendering.exported["F"], env).text == _bash_exports(tmp_path, script, env)["F"]


REQUIRED = 6


@pytest.mark.parametrize("in_function", [False, True])
def test_an_array_grown_behind_each_input_is_read_whole_as_bash_reads_it(tmp_path, in_function):
    """A helper that checks variables by name (`[ -z "${!v:-}" ] && absent+=("$v")`), then reads the
    array whole (`${absent[*]}`, `${#absent[@]}` compared with 0 and with 3): one path, whose values
    are what bash exports on each input's values; the array is a Choice of its 2**n arrays at most
    (an unset and an empty input leave it alike), not of one for each combination of values."""
    names = " ".join(f"IN{i}" for i in range(1, REQUIRED + 1))
    body = ["absent=()", f"for v in {names}; do", '  [ -z "${!v:-}" ] && absent+=("$v")', "done",
            'export OUT="missing: ${absent[*]}"',
            'if [ "${#absent[@]}" -gt 0 ]; then export SOME=yes; else export SOME=no; fi',
            'if [[ "${#absent[@]}" -ge 3 ]]; then export MANY=yes; fi']
    script = "\n".join(["check() {", *body, "}", "check"] if in_function else body) + "\n"
    path = tmp_path / "gen.sh"
    path.write_text(script)
    merged = evaluate(path)
    assert merged.paths_explored == 1
    ((outcome,),) = [merged.outcomes]
    if not in_function:
        array = outcome.rendering.variables["absent"]
        assert len([part for part in parts_of(array) if type(part) is Choice]) < 2 ** (REQUIRED + 1)
    other = "flaglint-other"  # any value the script does not compare with
    for env in ({}, {"IN1": other}, {"IN2": "", "IN4": other}, {f"IN{i}": other for i in range(3, REQUIRED + 1)},
                {f"IN{i}": other for i in range(1, REQUIRED + 1)}):
        expected = _bash_exports(tmp_path, script, env)
        for name in ("OUT", "SOME", "MANY"):
            value = outcome.rendering.exported.get(name)
            value = None if value is None else resolved_in(value, env)  # MANY: exported where it is set
            assert (None if value is None else value.text) == expected.get(name), (name, env)


_ARRAY_TESTS = ('[ -z "${%s:-}" ]', '[ "${%s:-}" = x ]', '[[ -n "${%s:-}" ]]')


@st.composite
def grown_arrays(draw) -> str:
    """A script that appends to an array behind tests of inputs (in a function or not, a `local`
    array or not), then reads it whole: `${A[*]}`, `${#A[@]}` compared with a number, `"${A[@]}"`."""
    lines = ["A=()"]
    for i in range(draw(st.integers(1, 4))):
        test = draw(st.sampled_from(_ARRAY_TESTS)) % f"IN{draw(st.integers(1, 3))}"
        lines.append(f'{test} && A+=("w{i}")' if draw(st.booleans()) else f"if {test}; then A+=(w{i} v{i}); fi")
    op, bound = draw(st.sampled_from(["-gt", "-eq", "-le", "-ne"])), draw(st.integers(0, 3))
    lines += ['export OUT="<${A[*]}>"', f'if [ "${{#A[@]}}" {op} {bound} ]; then export C=yes; else export C=no; fi',
              'export FIRST="${A[0]:-none}"', 'for w in "${A[@]}"; do export LAST="$w"; done']
    if draw(st.booleans()):
        lines = ["grow() {", "  local " + lines[0], *("  " + line for line in lines[1:]), "}", "grow"]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=grown_arrays())
# Found by this test: a test's fork on IN1 grouped values under which it forked on IN2 and then on
# IN1 again; the group's paths lost that second decision (and overlapped, or said C=yes where bash
# says no).
@example(script='A=()\nif [ -z "${IN1:-}" ]; then A+=(w0 v0); fi\nif [ -z "${IN2:-}" ]; then A+=(w1 v1); fi\n'
         'if [ "${IN1:-}" = x ]; then A+=(w2 v2); fi\nexport OUT="<${A[*]}>"\n'
         'if [ "${#A[@]}" -gt 0 ]; then export C=yes; else export C=no; fi\n')
@example(script='A=()\nif [ -z "${IN1:-}" ]; then A+=(w0 v0); fi\nif [ -z "${IN1:-}" ]; then A+=(w1 v1); fi\n'
         'if [ -z "${IN2:-}" ]; then A+=(w2 v2); fi\nif [ "${IN1:-}" = x ]; then A+=(w3 v3); fi\n'
         'if [ "${#A[@]}" -gt 2 ]; then export C=yes; else export C=no; fi\n')
def test_an_array_grown_behind_tests_is_read_whole_as_bash_reads_it(script: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "gen.sh"
        path.write_text(script)
        merged = evaluate(path)
        paths = [(p, o) for o in merged.outcomes for p in o.paths]
        for values in ((None, None, None), ("", "x", None), ("x", "x", "x"), ("y", "", "x")):
            env = {f"IN{i}": value for i, value in enumerate(values, 1) if value is not None}
            expected = own_changes(_bash_exports(Path(d), script, env), env)
            # as the evaluator names them: a value the script never compares with is "any other"
            named = {name: value if value in merged.inputs.get(name, ()) else "flaglint-other" for name, value in env.items()}
            ((_, outcome),) = taken_by(paths, {f"IN{i}": named.get(f"IN{i}") for i in range(1, 4)})
            assert own_changes(exported_as(outcome, named), named) == expected, (script, env)

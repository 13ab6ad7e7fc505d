"""A command whose own words are built behind tests: `CMD=(python3 -m tool)` then `CMD+=(--k="$K")`
behind n tests and `"${CMD[@]}"`, or the same as a string (`CMD="$CMD --k=$K"`, then `$CMD`); and a
distributed launcher's node, whose parts hold blanks or are empty, handed to a function that prints
them and run by `exec` in a subshell, in a loop over ports. The command is one launch however many
tests build it (counts, never time), its words and what the script's readers of the array export
are bash's on every explored path.

bash only runs the scripts written here, in a temporary directory, with an empty environment
except PATH; the launched program is a shell function that prints its arguments.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from script_shapes import (
    BUILT_FORMS,
    BUILT_PROGRAM,
    built_command,
    distributed_node,
    required_variables_launcher,
)
from test_bash_launch_joins import concrete_words
from test_bash_property import BASH_OWN
from test_bash_symbolic import resolved_in, taken_by

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate
from flaglint.render.bash.types import OTHER, Split

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

@pytest.mark.parametrize("form", BUILT_FORMS)
@pytest.mark.parametrize("count", [8, 16, 32])
def test_a_command_built_behind_many_tests_is_one_launch(tmp_path, form, count):
    script = tmp_path / "launch.sh"
    script.write_text(built_command(count, form))
    exploration = evaluate(script)
    assert exploration.paths_explored == 1
    ((launch,),) = [outcome.rendering.launched for outcome in exploration.outcomes]
    # the program's name concrete; the optional parts one symbolic word, not a path per combination
    assert [w.text for w in launch.words[:2]] == ["python3", "-m"]
    assert type(launch.words[-1]) is Split and len(launch.words) == (4 if form == "array" else 3)


def test_a_built_launch_is_judged_without_fl011(tmp_path):
    script = tmp_path / "launch.sh"
    script.write_text(built_command(32, "array", "python3 -m maxtext.train src/maxtext/configs/base.yml")
                      .replace('CMD+=(--o5="$O5")', "CMD+=(stepz=3)"))
    findings = check_script(script, Checker("bbd0f6f10")).result.findings
    assert "FL011" not in {f.rule for f in findings}
    # every optional part is judged where the script writes it: stepz among the unknown keys
    unknown = {(f.location.line, f.message.split()[0]) for f in findings if f.rule == "FL004"}
    assert (8, "stepz") in unknown and len(unknown) == 32


@pytest.mark.parametrize("ports", [0, 3])
@pytest.mark.parametrize("count", [8, 16, 32])
def test_a_distributed_node_is_one_path_however_many_parts(tmp_path, count, ports):
    script = tmp_path / "launcher.sh"
    script.write_text(distributed_node(count, ports=ports))
    exploration = evaluate(script)
    # the printing function, exec and the subshell decide none of the parts: one path, one launch a port
    assert exploration.paths_explored == 1
    (launches,) = [outcome.rendering.launched for outcome in exploration.outcomes]
    assert len(launches) == max(ports, 1)
    for launch in launches:
        assert [w.text for w in launch.words[:3]] == ["python3", "-m", "tunix.experimental.distributed.runtime.main"]
        assert type(launch.words[-1]) is Split and not any(type(w) is Split for w in launch.words[:-1])


def test_a_part_with_blanks_or_empty_is_one_word_where_its_test_holds(tmp_path):
    script = tmp_path / "launcher.sh"
    script.write_text(distributed_node(4))
    (outcome,) = evaluate(script).outcomes
    (launch,) = outcome.rendering.launched
    set_on = {"O0": OTHER, "MAX_NORM": OTHER, "O2": OTHER}  # OTHER: the value a test `-n "$O0"` tells apart
    assert concrete_words(launch, set_on)[5:] == [f"--o0={OTHER}", f"--o0_kwargs={{'max_norm': {OTHER}}}", "", f"--o2={OTHER}"]
    assert concrete_words(launch, {"O3": OTHER})[5:] == [f"--o3={OTHER}"]


def test_a_distributed_node_is_judged_without_fl011(tmp_path):
    script = tmp_path / "launcher.sh"
    script.write_text(distributed_node(32, "python3 -m maxtext.train src/maxtext/configs/base.yml")
                      .replace('CMD+=(--o5="$O5")', "CMD+=(stepz=3)"))
    findings = check_script(script, Checker("bbd0f6f10")).result.findings
    assert "FL011" not in {f.rule for f in findings}
    lines = script.read_text().splitlines()
    assert any(f.rule == "FL004" and lines[f.location.line - 1].strip().startswith('if [[ -n "$O5" ]]') for f in findings)


@pytest.mark.parametrize("count", [8, 16, 32])
def test_an_array_built_behind_tests_among_a_programs_arguments_is_one_path(tmp_path, count):
    script = tmp_path / "launch.sh"
    script.write_text(built_command(count, "array").replace('"${CMD[@]}"', 'python3 -m tool --first "${CMD[@]}" --last'))
    exploration = evaluate(script)
    assert exploration.paths_explored == 1
    ((launch,),) = [outcome.rendering.launched for outcome in exploration.outcomes]
    assert [w.text for w in launch.words[:4]] == ["python3", "-m", "tool", "--first"] and launch.words[-1].text == "--last"
    assert sum(type(w) is Split for w in launch.words) == 1


VALUES = ["on", "a b", ""]  # a value with a blank: an element bash keeps whole, a string it splits

READERS = {
    "count": "export COUNT=${#CMD[@]}",
    "index": 'export AT4="${CMD[4]-none}"',
    "star": 'export STAR="${CMD[*]}"',
    "loop": 'for x in "${CMD[@]}"; do export LAST="$x"; done',
    "function": 'count() { export NARGS=$# ARG5="${5-none}"; }\ncount "${CMD[@]}"',
    "printf": "export PRINTED=\"$(printf '%s,' \"${CMD[@]}\")\"",
    "echo": 'show() { echo "$#:$*"; }\nexport SHOWN="$(show "${CMD[@]}")"',
    "append": "CMD+=(--tail)",
    "set": "CMD[4]=set4",
    # a launcher's printing function, which reads only its first argument and shifts it off
    "print": 'print_command() { local label="$1"; shift; echo "$label:"; printf \'  %q\' "$@"; echo; }\n'
             'print_command "Trainer command" "${CMD[@]}"',
    "shifted": 'rest() { local first="$1"; shift 2; export NREST=$# REST="$*" FIRST="$first"; }\nrest "${CMD[@]}"',
}
RUNNERS = ['"${CMD[@]}"', '( exec "${CMD[@]}" > /dev/null )', 'nice -n 1 "${CMD[@]}"']


@st.composite
def built_scripts(draw) -> str:
    form = draw(st.sampled_from(["array", "string"]))
    lines = [f"CMD=({BUILT_PROGRAM})" if form == "array" else f'CMD="{BUILT_PROGRAM}"']
    for i in range(draw(st.integers(1, 5))):
        test = draw(st.sampled_from([f'[[ -n "$O{i}" ]]', f'[[ "$O{i}" == "{draw(st.sampled_from(VALUES))}" ]]',
                                     f'[[ -z "${{O{i}-}}" ]]']))
        if form == "array":
            part = draw(st.sampled_from([f'--o{i}="$O{i}"', f'--o{i} "$O{i}"', f"k{i}", '""', f'--o{i}="{{k: $O{i}}}"',
                                         f'"--o{i}= a  b"', f'--o{i}="$O{i}" --e{i}=""']))
            other = draw(st.sampled_from(["", f" else CMD+=(--no{i});"]))
            lines.append(f"if {test}; then CMD+=({part});{other} fi")
        else:
            part = draw(st.sampled_from([f"--o{i}=$O{i}", f"k{i}", f'--o{i}=\\"$O{i}\\"']))
            lines.append(f'if {test}; then CMD="$CMD {part}"; fi')
    if form == "array":
        lines += [READERS[name] for name in draw(st.lists(st.sampled_from(sorted(READERS)), unique=True, max_size=4))]
        lines.append(draw(st.sampled_from(RUNNERS)))
    else:
        lines += draw(st.sampled_from([[], ['export STR="$CMD"']]))
        lines.append("$CMD")
    return "\n".join(lines) + "\n"


def _bash_run(directory: Path, env: dict) -> tuple[list[str], dict]:
    """The program's arguments as bash runs the script with `env`, and what it exports (what the
    script prints is dropped). The program is a function, and a file on PATH for `exec`."""
    program = directory / "bin" / "python3"
    if not program.exists():
        program.parent.mkdir()
        program.write_text("#!/bin/bash\nprintf '%s\\0' \"$@\" > argv\n")
        program.chmod(0o755)
    out = subprocess.run(
        ["env", "-i", f"PATH={program.parent}:/usr/bin:/bin", *[f"{k}={v}" for k, v in env.items()], "bash", "-c",
         "python3() { printf '%s\\0' \"$@\" > argv; }; source ./gen.sh > /dev/null; env -0"],
        cwd=directory, capture_output=True, timeout=20, check=True,
    )
    pairs = [item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item]
    argv = (directory / "argv").read_bytes().decode().split("\0")[:-1]
    return argv, {k: v for k, v in pairs if k not in BASH_OWN}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(script=built_scripts(), seed=st.integers(0, 2**16))
@example(script=f'CMD=({BUILT_PROGRAM})\nif [[ -n "$O0" ]]; then CMD+=(--o0 "$O0"); fi\nif [[ -n "$O1" ]]; then CMD+=(k1); fi\n'
         + READERS["index"] + "\n" + READERS["function"] + '\n"${CMD[@]}"\n', seed=0)
# An append after the joins holds the array as one (arrays.factored): each reader then reads it.
@example(script=f'CMD=({BUILT_PROGRAM})\nif [[ -n "$O0" ]]; then CMD+=(--o0="$O0"); fi\nif [[ -n "$O1" ]]; then CMD+=(k1); fi\n'
         + "\n".join(READERS[name] for name in ("append", "count", "star", "printf", "echo")) + '\n"${CMD[@]}"\n', seed=3)
@example(script=f'CMD=({BUILT_PROGRAM})\nif [[ -n "$O0" ]]; then CMD+=(--o0="$O0"); fi\nif [[ -n "$O1" ]]; then CMD+=(k1); fi\n'
         + "\n".join(READERS[name] for name in ("append", "loop", "function", "set")) + '\n"${CMD[@]}"\n', seed=5)
# A launcher's node: parts with blanks and empty ones, printed by a function, run by exec in a subshell.
@example(script=f'CMD=({BUILT_PROGRAM})\nif [[ -n "$O0" ]]; then CMD+=(--o0="{{k: $O0}}" --e0=""); fi\n'
         'if [[ "$O1" == "a b" ]]; then CMD+=("--o1= a  b"); else CMD+=(--no1); fi\n'
         + "\n".join(READERS[name] for name in ("print", "shifted")) + "\n" + RUNNERS[1] + "\n", seed=1)
def test_each_path_of_a_built_command_launches_and_exports_what_bash_does(tmp_path_factory, script, seed):
    directory = tmp_path_factory.mktemp("built")
    for outcome, env, exported, names in _sampled_runs(directory, script, seed):
        # what the script's own readers export (an input's witness value is the path's, not the
        # sample's); a value not known here (printf's output) is only said to be so
        got = {name: resolved_in(value, env) for name, value in outcome.rendering.exported.items() if name not in names}
        opaque = {name for name, value in got.items() if value is not None and value.opaque}
        got = {name: value.text for name, value in got.items() if value is not None and name not in opaque}
        assert got == {name: value for name, value in exported.items() if name not in names | opaque}, env


# An array that starts empty and grows behind tests (an XPK submit script's `absent+=("$v")`): its
# count compared in a test and `${A[*]}` among a launch's words, each bash's on every explored path.
COUNT_TESTS = ['[ "${{#absent[@]}}" {op} {k} ]', "[[ ${{#absent[@]}} {op} {k} ]]", "[ {k} {op} ${{#absent[@]}} ]",
               "test ${{#absent[@]}} {op} {k}"]


@st.composite
def absent_scripts(draw) -> str:
    lines = [draw(st.sampled_from(["absent=()", "absent=(first)"]))]
    for i in range(draw(st.integers(1, 5))):
        test = draw(st.sampled_from([f'[ -z "${{O{i}:-}}" ]', f'[[ "$O{i}" == "{draw(st.sampled_from(VALUES))}" ]]',
                                     f'[[ -n "${{O{i}-}}" ]]']))
        element = draw(st.sampled_from([f"O{i}", '"a b"', '""', f'"$O{i}"']))
        lines.append(draw(st.sampled_from([f"{test} && absent+=({element})", f"if {test}; then absent+=({element}); fi"])))
    for _ in range(draw(st.integers(1, 2))):
        shape = draw(st.sampled_from(COUNT_TESTS))
        test = shape.format(op=draw(st.sampled_from(["-gt", "-ge", "-eq", "-ne", "-lt", "-le"])), k=draw(st.integers(0, 3)))
        lines.append(f"if {test}; then export HELD=${{HELD:-}}y; else export HELD=${{HELD:-}}n; fi")
    lines.append(f'{BUILT_PROGRAM} --names="${{absent[*]}}" ${{absent[*]}} "${{absent[*]}}" last')
    return "\n".join(lines) + "\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(script=absent_scripts(), seed=st.integers(0, 2**16))
@example(script='absent=()\n[ -z "${O0:-}" ] && absent+=(O0)\n[ -z "${O1:-}" ] && absent+=("a b")\n'
         '[[ -n "${O2-}" ]] && absent+=("")\nif [ "${#absent[@]}" -gt 0 ]; then export HELD=y; else export HELD=n; fi\n'
         f'{BUILT_PROGRAM} --names="${{absent[*]}}" ${{absent[*]}} "${{absent[*]}}" last\n', seed=2)
# The count read again on each state of a fork: an element the fork decides, and one whose input
# another element shares; the same array counted twice in one test.
@example(script='absent=()\n[ -z "${O0:-}" ] && absent+=(O0)\n[ -z "${O1:-}" ] && absent+=(O1)\n'
         'if [ -z "${O2:-}" ]; then absent+=(O2); fi\nif [ "${#absent[@]}" -gt 1 ]; then export HELD=y; else export HELD=n; fi\n'
         f'{BUILT_PROGRAM} --names="${{absent[*]}}" last\n', seed=0)
@example(script='absent=()\n[ -z "${O0:-}" ] && absent+=(O0)\n[ -z "${O1:-}" ] && absent+=(O1)\n[ -z "${O2:-}" ] && absent+=(O2)\n'
         'if [[ ${#absent[@]} -gt 0 && ${#absent[@]} -lt 3 ]]; then export HELD=y; else export HELD=n; fi\n'
         f'{BUILT_PROGRAM} --names="${{absent[*]}}" last\n', seed=4)
def test_an_array_that_starts_empty_is_counted_and_joined_as_bash_does(tmp_path_factory, script, seed):
    for outcome, env, exported, _ in _sampled_runs(tmp_path_factory.mktemp("absent"), script, seed):
        held = resolved_in(outcome.rendering.exported["HELD"], env)
        assert held.text == exported["HELD"], env


@pytest.mark.parametrize("required", [8, 16, 32])
def test_variables_checked_by_name_are_a_few_paths_at_any_count(tmp_path, required):
    # `[ -z "${!name:-}" ] && absent+=("$name")` over `required` names, then `${#absent[@]}` tested and
    # `${absent[*]}` printed: the count's test forks where its status differs, not per combination
    script = tmp_path / "xpk_submit.sh"
    script.write_text(required_variables_launcher(required))
    exploration = evaluate(script)
    assert exploration.paths_explored <= 8
    launched = [o for o in exploration.outcomes if o.rendering.launched]
    # the workload is submitted where every variable is set, and only there
    assert launched and all(all(values != {None, ""} and "" not in values and None not in values
                                for name, values in product.items() if name.startswith("REQ_"))
                            for o in launched for p in o.paths for product in p.products())


def _sampled_runs(directory, script: str, seed: int):
    """Six samples of the explored inputs: each taken by one path whose one launch's words are
    bash's with that environment; yields the path's outcome, the environment, what bash exported
    and the inputs' names."""
    (directory / "gen.sh").write_text(script)
    exploration = evaluate(directory / "gen.sh")
    paths = [(p, o) for o in exploration.outcomes for p in o.paths]
    rng = random.Random(seed)
    names = set(exploration.inputs)
    for _ in range(6):
        sample = {name: rng.choice(exploration.inputs[name]) for name in sorted(names)}
        env = {k: v for k, v in sample.items() if v is not None}
        ((_, outcome),) = taken_by(paths, sample)
        argv, exported = _bash_run(directory, env)
        (launch,) = outcome.rendering.launched
        assert concrete_words(launch, env)[1:] == argv, env
        yield outcome, env, exported, names

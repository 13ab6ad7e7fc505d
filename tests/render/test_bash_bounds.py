"""Scripts that would keep the evaluator busy without end: a loop that grows a value or an array,
a function that calls itself with no base case, a `case` of thousands of arms. Each is bounded by
a count (a value's characters, an array's elements, the functions inside one another), ends the
path at the construct's line (the launch after it is FL011 in lint), and a `case` finds its arm
by a look-up. The `case` test compares the arm taken with real bash; bash only ever runs scripts
this test wrote, with an empty environment except PATH."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flaglint.render import evaluate, render
from flaglint.render.bash.types import Choice


def _render(tmp_path: Path, text: str, env: dict | None = None):
    path = tmp_path / "s.sh"
    path.write_text(text)
    return render(path, env or {})


@pytest.mark.parametrize("construct, why", [
    ('while :; do X="$X a"; done', "X grows past 16,384 pieces at line 1"),
    pytest.param(f'Y={"a" * 10_000}; while :; do X="$X$Y"; done', "X grows past 131,072 characters at line 1", id="10,000 a time"),
    ('while :; do A[${#A[@]}]=x; done', "A[16384] at line 1 is past the 16,384 array elements"),
    ('while :; do A[1]="${A[1]}${A[1]} x"; done', "A grows past 16,384 pieces at line 1"),
    ("f() { ( f ); }; f", "functions run inside one another 1,000 levels deep"),
])
def test_a_construct_without_end_stops_the_path_at_its_line(tmp_path, construct, why):
    # the issue's own shapes, before a launch, are tests/frontends/lint/test_hidden_launches.py's
    rendering = _render(tmp_path, f"{construct}\nexport DONE=1\n")
    assert "DONE" not in rendering.exported  # nothing after it is taken as known
    assert rendering.unbounded is not None and rendering.unbounded.line == 1
    assert why in rendering.unbounded.message


def test_a_loop_that_builds_a_long_flag_string_within_the_bounds_is_followed(tmp_path):
    rendering = _render(tmp_path, 'for ((i=0;i<2000;i++)); do X="$X k$i=1"; done\nA=()\nfor ((i=0;i<2000;i++)); do A+=(x); done\n'
                        'export X N=${#A[@]}\n')
    assert rendering.unbounded is None
    assert rendering.exported["X"].text.split() == [f"k{i}=1" for i in range(2000)]
    assert rendering.exported["N"].text == "2000"


def _case(arms: int) -> str:
    body = "\n".join(f'  m{i}) X="steps={i}" ;;' for i in range(arms))
    return f'case "$MODE" in\n{body}\n  *) X=other ;;\nesac\nexport X\n'


def test_a_case_of_thousands_of_arms_is_one_value_on_its_input(tmp_path):
    path = tmp_path / "s.sh"
    path.write_text(_case(2000))
    (outcome,) = evaluate(path).outcomes
    (value,) = outcome.rendering.exported["X"].pieces
    assert type(value) is Choice and value.name == "MODE"
    taken = {text: alt.text for values, alt in value.alts for text in values}
    assert taken["m1999"] == "steps=1999" and taken["m0"] == "steps=0" and taken[None] == "other"
    assert _render(tmp_path, _case(2000), {"MODE": "m1234"}).exported["X"].text == "steps=1234"


# Patterns of case arms: literals (some repeated, some quoted glob characters), globs and
# classes; the first that matches wins, whether it is written before or after a literal.
PATTERNS = ["a", "b", "ab", "a*", "*b", "?", "[ab]", "*", "'a*'", '"?"', "x", "a\\*", "[!a]*"]
SUBJECTS = ["a", "b", "ab", "a*", "?", "x", "ba", ""]


def _bash_arm(directory: Path, subject: str) -> str:
    done = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", f"S={subject}", "bash", "-c", 'source ./case.sh; printf %s "${R-none}"'],
                          cwd=directory, capture_output=True, timeout=20, check=True)
    return done.stdout.decode()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arms=st.lists(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3), min_size=1, max_size=6),
       subject=st.sampled_from(SUBJECTS))
def test_the_arm_a_case_takes_is_the_one_bash_takes(tmp_path, arms, subject):
    body = "".join(f"  {'|'.join(patterns)}) R={number} ;;\n" for number, patterns in enumerate(arms))
    (tmp_path / "case.sh").write_text(f'case "$S" in\n{body}esac\n')
    (tmp_path / "s.sh").write_text(f'case "$S" in\n{body}esac\nexport R\n')
    found = render(tmp_path / "s.sh", {"S": subject}).exported.get("R")
    assert (found.text if found is not None else "none") == _bash_arm(tmp_path, subject)

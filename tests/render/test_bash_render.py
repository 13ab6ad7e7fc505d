"""render(): one construct at a time, values and the positions they were written at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flaglint.render import Origin, render
from flaglint.render.bash.types import OTHER


def write(tmp_path: Path, text: str, name: str = "recipe.sh") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def exported(tmp_path: Path, text: str, env: dict | None = None) -> dict[str, str]:
    return {k: v.text for k, v in render(write(tmp_path, text), env or {}).exported.items()}


def token_origin(value, token: str) -> Origin:
    return value.origins[value.text.index(token)]


def test_assignment_forms(tmp_path):
    out = exported(tmp_path, 'A=1 B=2\nexport A\nexport C="x"\nC+=" y"\ndeclare -x D=4\nE=5\nexport -n C\n')
    assert out == {"A": "1", "D": "4"}


def test_assignment_lines_tree_sitter_misreads(tmp_path):
    script = 'A=1 B=2\nexport A\nif true; then\n  C=3 D=4\n  for X in a; do :; done\nfi\nexport C D E=5 F=6\n'
    assert exported(tmp_path, script) == {"A": "1", "C": "3", "D": "4", "E": "5", "F": "6"}


def test_env_prefix_does_not_persist(tmp_path):
    assert exported(tmp_path, "X=1 kubectl get pods\nexport Y=${X:-unset}\n") == {"Y": "unset"}


def test_input_env_is_exported_and_reassignable(tmp_path):
    assert exported(tmp_path, 'IN="${IN}-2"\n', {"IN": "a"}) == {"IN": "a-2"}


@pytest.mark.parametrize(
    "expr, env, expected",
    [
        ("${X:-d}", {}, "d"), ("${X:-d}", {"X": ""}, "d"), ("${X-d}", {"X": ""}, ""),
        ("${X:-${Y:-${Z:-deep}}}", {}, "deep"), ("${X:+alt}", {"X": "v"}, "alt"), ("${X:+alt}", {"X": ""}, ""),
        ("${X+alt}", {"X": ""}, "alt"), ("${X%.*}", {"X": "a.b.c"}, "a.b"), ("${X%%.*}", {"X": "a.b.c"}, "a"),
        ("${X#*.}", {"X": "a.b.c"}, "b.c"), ("${X##*.}", {"X": "a.b.c"}, "c"), ("${X/b/B}", {"X": "abab"}, "aBab"),
        ("${X//b/B}", {"X": "abab"}, "aBaB"), ("${#X}", {"X": "abcd"}, "4"), ("$X", {"X": "v"}, "v"),
        ("${X}", {"X": "v"}, "v"), ("${X:1:2}", {"X": "abcd"}, "bc"), ("${X^^}", {"X": "ab"}, "AB"),
        ("$((X * 2 + 1))", {"X": "4"}, "9"), ("${N:-$((L * 2))}", {"L": "8"}, "16"),
        ("${N:-$(((L+9)/10))}", {"L": "31"}, "4"), ("${T:-'${X}' a}", {"X": "q"}, "'q' a"),
    ],
)
def test_parameter_expansions(tmp_path, expr, env, expected):
    assert exported(tmp_path, f'export OUT="{expr}"\n', env)["OUT"] == expected


def test_assign_default_and_indirect(tmp_path):
    out = exported(tmp_path, ': "${A:=dflt}"\nexport A\nNAME=A\nexport B="${!NAME}"\n')
    assert out == {"A": "dflt", "B": "dflt"}


def test_backslash_newline_in_double_quotes_and_origins(tmp_path):
    script = 'export MAXTEXT_EXTRA_FLAGS="a=1 \\\n  b=2"\nexport MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS} c=3"\n'
    path = write(tmp_path, script)
    value = render(path, {}).exported["MAXTEXT_EXTRA_FLAGS"]
    assert value.text == "a=1   b=2 c=3"
    assert token_origin(value, "a=1") == Origin(str(path), 1, script.index("a=1") + 1, script.index("a=1"))
    assert token_origin(value, "b=2") == Origin(str(path), 2, 3, script.index("b=2"))
    line3 = script.split("\n")[2]
    assert token_origin(value, "c=3") == Origin(str(path), 3, line3.index("c=3") + 1, script.index("c=3"))
    assert value.origins[value.text.index(" c=3")].line == 3


def test_origins_count_characters_not_bytes(tmp_path):
    path = write(tmp_path, '# é\nexport F="é x=1"\n')
    value = render(path, {}).exported["F"]
    assert value.text == "é x=1"
    origin = token_origin(value, "x=1")
    assert (origin.line, origin.column) == (2, 13)
    assert path.read_bytes()[origin.offset:origin.offset + 3] == b"x=1"


def test_input_characters_have_no_origin(tmp_path):
    value = render(write(tmp_path, 'export F="${F} k=v"\n'), {"F": "a=b"}).exported["F"]
    assert value.origins[:3] == [None, None, None] and value.origins[4].line == 1


@pytest.mark.parametrize(
    "cond, env, taken",
    [
        ('[[ "$R" == us-east1* ]]', {"R": "us-east1-b"}, True),
        ('[[ "$R" == "us-east1*" ]]', {"R": "us-east1-b"}, False),
        ('[[ "$R" != europe* ]]', {"R": "us"}, True),
        ('[[ $P =~ ^[0-9]+$ ]]', {"P": "12"}, True),
        ('[[ $P =~ ^[0-9]+$ ]]', {"P": "1x"}, False),
        ('[[ -n "$X" ]]', {"X": ""}, False), ('[[ -z "$X" ]]', {}, True),
        ('[[ $E -gt 1 ]]', {"E": "2"}, True), ('[[ $E -le 1 ]]', {"E": "2"}, False),
        ('[[ $E -eq 2 && $F == a ]] || false', {"E": "2", "F": "a"}, True),
        ('[[ ! -n "$X" ]]', {"X": "v"}, False), ('[ "$X" = a ] && [ -n "$X" ]', {"X": "a"}, True),
        ('test "$X" != a', {"X": "a"}, False), ('[ "$E" -ge 3 -o "$X" = b ]', {"E": "1", "X": "b"}, True),
        ('[ -f other.sh ]', {}, True), ('[[ -d missing ]]', {}, False),
        ('[[ "$X" == a || ( "$X" == b && -z "$Y" ) ]]', {"X": "b"}, True),
    ],
)
def test_conditions(tmp_path, cond, env, taken):
    write(tmp_path, "", "other.sh")
    out = exported(tmp_path, f"if {cond}; then export T=yes; else export T=no; fi\n", env)
    assert out["T"] == ("yes" if taken else "no")


def test_elif_case_and_for(tmp_path):
    script = """
if [[ "$S" == a ]]; then export T=1
elif [[ "$S" == b ]]; then export T=2
else export T=3
fi
case "$S" in
  a|b) export C=ab ;;
  tpu7x*) export C=tpu ;;
  *) export C=other ;;
esac
for f in x "y z" $W; do export L="${L:-}[$f]"; done
"""
    assert exported(tmp_path, script, {"S": "b", "W": "p q"}) == {
        "S": "b", "W": "p q", "T": "2", "C": "ab", "L": "[x][y z][p][q]"}
    assert exported(tmp_path, script, {"S": "tpu7x:4x8x8"})["C"] == "tpu"


def test_functions_locals_return_and_arguments(tmp_path):
    script = """
add() {
  local flag="$1"
  export FLAGS="${FLAGS:-} ${flag}"
  return 0
  export FLAGS=never
}
add a=1
add b=2
export SEEN="${flag:-none}"
"""
    assert exported(tmp_path, script) == {"FLAGS": " a=1 b=2", "SEEN": "none"}


def test_exit_stops_the_script(tmp_path):
    assert exported(tmp_path, "export A=1\nexit 0\nexport B=2\n") == {"A": "1"}


def test_positional_arguments_are_empty(tmp_path):
    script = 'while [[ $# -gt 0 ]]; do case "$1" in --x) export X=1;; esac; shift; done\nexport N="${1:-none}$#"\n'
    assert exported(tmp_path, script) == {"N": "none0"}


def test_source_relative_to_script_dir_and_bash_source(tmp_path):
    write(tmp_path, 'export FROM_LIB="lib:$1"\nLOCAL_ONLY=1\n', "lib/common.sh")
    write(tmp_path, 'export FROM_ROOT=1\n', "tools/root.sh")
    (tmp_path / ".git").mkdir()
    script = (
        'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
        'source "${DIR}/lib/common.sh" arg\n'
        '. lib/common.sh\n'
        'source tools/root.sh\n'
        'export D="$DIR" L="$LOCAL_ONLY"\n'
    )
    path = write(tmp_path, script, "recipes/run.sh")
    write(tmp_path, 'export FROM_LIB="lib:$1"\nLOCAL_ONLY=1\n', "recipes/lib/common.sh")
    r = render(path, {})
    assert r.exported["FROM_LIB"].text == "lib:"
    assert r.exported["D"].text == str(path.parent)
    assert r.exported["L"].text == "1" and r.exported["FROM_ROOT"].text == "1"
    assert r.exported["FROM_LIB"].origins[0].file.endswith(os.path.join("recipes", "lib", "common.sh"))


@pytest.mark.parametrize("idiom", [
    '$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)', '$(dirname "$0")', '$(cd "$(dirname "$0")"; pwd -P)',
    '$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")', '$(cd -P "$( dirname "$BASH_SOURCE" )" >/dev/null 2>&1 && pwd)',
])
def test_script_directory_idioms(tmp_path, idiom):
    r = render(write(tmp_path, f'export D="{idiom}"\n'), {})
    assert r.exported["D"].text == str(tmp_path) and not r.exported["D"].opaque and not r.notes


def test_repository_root_idiom(tmp_path):
    (tmp_path / ".git").mkdir()
    r = render(write(tmp_path, 'export R="$(git rev-parse --show-toplevel)"\n', "a/b/run.sh"), {})
    assert r.exported["R"].text == str(tmp_path)


def test_ansi_c_escapes_have_no_origin(tmp_path):
    value = render(write(tmp_path, "export V=$'a\\tb'\n"), {}).exported["V"]
    assert value.text == "a\tb" and value.origins[1] is None and value.origins[0].column == 12


def test_bash_hands_off_exported_variables_and_continues(tmp_path):
    write(tmp_path, 'export CHILD="${PARENT_EXPORTED:-}/${PARENT_LOCAL:-}/${PREFIX:-}"\n', "child.sh")
    script = 'export PARENT_EXPORTED=e\nPARENT_LOCAL=l\nPREFIX=p bash child.sh\nexport AFTER=1\n'
    r = render(write(tmp_path, script), {})
    assert "CHILD" not in r.exported and r.exported["AFTER"].text == "1"
    assert [h.exported["CHILD"].text for h in r.handoffs] == ["e//p"]
    assert r.handoffs[0].script.endswith("child.sh")


def test_exec_replaces_the_script(tmp_path):
    write(tmp_path, 'export CHILD="${TUNED:-}"\n', "launcher.sh")
    script = 'export TUNED=true\nLAUNCHER=launcher.sh\nexec "${LAUNCHER}" --flag\nexport NEVER=1\n'
    r = render(write(tmp_path, script), {})
    assert {k: v.text for k, v in r.exported.items()} == {"TUNED": "true", "CHILD": "true"}
    assert r.script.endswith("launcher.sh")


def test_opaque_values_get_notes(tmp_path):
    script = 'export V="a $(python3 -c \'print(1)\') b"\nread -r R < input.txt\nexport R\nkubectl get pods\n'
    r = render(write(tmp_path, script), {})
    # what the substitution prints is not known: a key whose value holds it is not judged
    assert r.exported["V"].text == f"a {OTHER} b" and r.exported["V"].opaque
    assert r.exported["R"].opaque
    messages = [n.message for n in r.notes]
    assert any("command substitution" in m for m in messages) and any("read sets R" in m for m in messages)
    assert all("kubectl" not in m for m in messages)


def test_subshell_does_not_leak(tmp_path):
    assert exported(tmp_path, "(export A=1)\nexport B=2\n") == {"B": "2"}


def test_arrays(tmp_path):
    script = 'ARGS=(a "b c")\nARGS+=(d)\nexport N="${#ARGS[@]}" F="${ARGS[1]}" ALL="${ARGS[*]}"\n'
    assert exported(tmp_path, script) == {"N": "3", "F": "b c", "ALL": "a b c d"}


def test_set_e_stops_at_a_failing_command_but_not_at_a_condition(tmp_path):
    script = "set -euo pipefail\nexport A=1\n[[ -n \"${X:-}\" ]] && export B=1\nif false; then :; fi\nfalse\nexport C=1\n"
    assert exported(tmp_path, script) == {"A": "1"}
    assert render(write(tmp_path, script), {}).status == 1


def test_set_u_continues_as_the_run_where_the_variable_is_set(tmp_path):
    rendering = render(write(tmp_path, 'set -u\nexport A="k=$UNSET_INPUT"\n'), {})
    assert rendering.exported["A"].text == "k=" and rendering.exported["A"].opaque


def test_script_is_never_executed(tmp_path):
    marker = tmp_path / "ran"
    exported(tmp_path, f"touch {marker}\nexport X=$(touch {marker})\n")
    assert not marker.exists()

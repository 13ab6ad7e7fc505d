"""Constructs real recipes use, and the arithmetic and test edge cases the fuzzer found: render()
gives what bash exports. bash only runs the scripts written here, in a temporary directory, with
an empty environment except PATH."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from commandline import run_flaglint
from test_bash_property import bash_env

from flaglint.render import render

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

CASES = {
    "trailing backslash at the end of the file": 'export A=1 \\\n',
    "backtick comment inside a command": 'export A=1 `# the default` B=2\n',
    "an escaped backslash ends a $'…' string": "x=$'a\\\\'\ny='b' z=\"it's\"\nexport x y z\n",
    "IFS of a backslash in $'…' before read": "IFS=$'\\\\' read -r v w <<< 'a\\b\\c'\nexport v w\n",
    "function named like a builtin runs instead of it": 'export() { :; }\nexport A=1\nB=2\nbuiltin export B\n',
    "function output by $(fn)": 'chips() { local shape="${1#*:}"; echo $(( ${shape//x/*} )); }\n'
                                 'export CHIPS="$(chips tpu7x:4x8x8)"\n',
    "function output with a log line on stderr": 'f() {\n  echo "picked $1" >&2\n  echo "k=$1"\n}\nexport K="$(f 3)"\n',
    "arithmetic for loop with continue": 'i=0\nfor ((j = 0; j < 4; j++)); do\n  [[ $j == 2 ]] && continue\n'
                                         '  i=$((i + j))\ndone\nexport I=$i J=$j\n',
    '"$@" with no arguments is no word': 'f() { export N=$#; }\nf "$@"\nexport M="$#"\n',
    "argument loop over $# with shift": 'set -- --a=1 --b 2 rest\nwhile [[ $# -gt 0 ]]; do\n  case "$1" in\n'
                                         '    --a=*) export A="${1#*=}"; shift ;;\n    --b) export B="$2"; shift 2 ;;\n'
                                         '    *) export REST="$1"; shift ;;\n  esac\ndone\n',
    "08 is not octal: the command is abandoned": 'export A="$(( 08 ))"\nexport B=1\n',
    "base 99 is no base": 'f() { export A="$(( 99#1 ))"; export B=2; }\nf\nexport C=3\n',
    "2#2 is too great for base 2": 'export A="$(( 2#2 ))"\n',
    "base 64 digits": 'export A="$(( 64#_ + 64#@ + 36#z + 0x1f + 010 ))"\n',
    "x **= -1": 'x=2\n(( x **= -1 ))\nexport S=$? X=$x\n',
    "arrays in arithmetic": 'a=(3 4)\nexport A="$(( a + a[1] + a[0] * 2 ))"\n',
    "exit with a non-ASCII digit": 'f() { exit ²; }\n(f)\nexport S=$?\n',
    "shift with a non-ASCII digit": 'set -- a b\nshift ²\nexport S=$? N=$#\n',
    "non-numeric -eq in [[ ]] and [ ]": '[[ abc -eq 0 ]]\nexport S1=$?\n[ abc -eq 0 ]\nexport S2=$?\n',
    "08 in a [[ -eq ]] test": 'X=08\n[[ $X -eq 8 ]]\nexport S=$?\n',
    "unset of a caller's local shows the global again": 'X=g\nouter() { local X=o; inner; export Z="${X-unset}"; }\n'
                                                       'inner() { unset X; }\nouter\n',
    "unset of the function's own local keeps it local": 'f() { local X=o; unset X; X=n; }\nf\nexport Z="${X-unset}"\n',
    "indirect expansion of a variable, an element, an argument and a special parameter":
        'v=X; X=1; export A="${!v:-d}" B="${!v}"\nunset X; export C="${!v:-d}" D="${!v-u}" E="${!v:+set}"\n'
        'arr=(x y z); w="arr[1]"; export F="${!w}" G="${!arr[*]}"\nset -- p q; n=2; h="#"; export H="${!n}" I="${!h}"\n'
        'ref=(X n); X=deep; export J="${!ref[0]}" K="${!ref[1]}"\n',
    "indirect expansion of no name abandons the command": 'f() { export A="${!nothing}"; export B=1; }\nf\n'
                                                          'w=a-b; export C="${!w:-d}"\nexport D=2\ne=\nexport E="${!e:-d}"\nexport F=3\n',
    "export after a callee unset the caller's local": 'fn() {\n  local B="$1"\n  export A="${B}-"\nfn() {\n  local A="$1"\n'
                                                      '  export A="${A}-"\nunset B\n}\nfn ""\nexport B=""\n}\nfn ""\n',
}


@pytest.mark.parametrize("script", list(CASES.values()), ids=list(CASES))
def test_render_exports_what_bash_exports(tmp_path, script):
    path = tmp_path / "gen.sh"
    path.write_text(script)
    expected = bash_env(tmp_path, {})
    assert {k: v.text for k, v in render(path, {}).exported.items()} == expected


def test_read_from_process_substitution_is_opaque_not_an_error(tmp_path):
    path = tmp_path / "gen.sh"
    path.write_text('read -r A B < <(echo 1 2)\nexport A B\nexport C=3\n')
    rendering = render(path, {})
    assert rendering.exported["C"].text == "3" and rendering.exported["A"].opaque
    assert any("read sets A" in note.message for note in rendering.notes)


def _bash_value(cwd, script, name: str) -> str:
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", f'source "{script}"; printf %s "${name}"'],
                         cwd=cwd, capture_output=True, text=True, timeout=20)
    return out.stdout


def test_relative_source_is_found_from_the_working_directory_as_bash_does(tmp_path, monkeypatch):
    for folder, value in ((tmp_path, "root"), (tmp_path / "recipes", "recipes")):
        (folder / "common").mkdir(parents=True)
        (folder / "common" / "defaults.sh").write_text(f"export FROM={value}\n")
    script = tmp_path / "recipes" / "run.sh"
    script.write_text("source common/defaults.sh\n")
    for cwd in (tmp_path, tmp_path / "recipes"):  # run from the repository root, and from the recipe's folder
        monkeypatch.chdir(cwd)
        assert render(script, {}).exported["FROM"].text == _bash_value(cwd, script, "FROM")


@pytest.mark.parametrize("relative", ["..", "../common", "../missing"])
def test_a_folder_named_from_the_scripts_own_is_what_bash_gives(tmp_path, relative):
    # `DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"`, then `source "${DIR}/base.sh"`
    (tmp_path / "common").mkdir()
    (tmp_path / "evals").mkdir()
    script = tmp_path / "evals" / "eval.sh"
    script.write_text(f'export DIR="$(cd "$(dirname "${{BASH_SOURCE[0]}}")/{relative}" && pwd)"\n')
    found = render(script, {}).exported["DIR"]
    if relative == "../missing":  # bash's cd fails and nothing is printed: not known here
        assert found.opaque
    else:
        assert found.text == _bash_value(tmp_path, script, "DIR")


def test_a_launch_in_a_file_sourced_from_the_parent_folder_is_judged(tmp_path):
    (tmp_path / "evals").mkdir()
    (tmp_path / "base.sh").write_text("python3 -m maxtext.train src/maxtext/configs/base.yml run_name=x steps=notanumber\n")
    script = tmp_path / "evals" / "eval.sh"
    script.write_text('#!/bin/bash\nDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"\nsource "${DIR}/base.sh"\n')
    report = json.loads(run_flaglint("lint", str(script), "--format", "json").stdout)
    assert [(f["rule"], Path(f["location"]["file"]).name) for f in report["findings"]] == [("FL005", "base.sh")]


def test_an_indirect_reference_to_an_element_with_a_digit_of_another_script_is_read_as_index_0(tmp_path):
    # `'²'.isdigit()` is true, yet no int: the subscript is read as bash's index 0 (it was a ValueError)
    script = tmp_path / "ref.sh"
    script.write_text('arr=(a b)\nref="arr[²]"\nexport Y=${!ref}\n')
    assert render(script, {}).exported["Y"].text == "a"


def test_an_indirect_expansion_of_a_name_not_known_here_is_a_value_not_known(tmp_path):
    script = tmp_path / "gen.sh"
    script.write_text('name="$(cat which.txt)"\nexport A="${!name:-fallback}" B=2\n')
    rendering = render(script, {})
    assert rendering.exported["A"].opaque and rendering.exported["B"].text == "2"
    assert any("${!name} reads a variable whose name is not known here" in note.message for note in rendering.notes)

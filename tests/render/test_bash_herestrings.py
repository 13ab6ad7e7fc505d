"""Herestrings (`read -ra arr <<< "$word"`, `read a b <<< "x y"`, `mapfile -t <<<`, `cat <<<` in
a captured function) split as bash splits them. bash only runs the scripts written here, in a
temporary directory, with an empty environment except PATH."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_bash_property import bash_env

from flaglint.render import render

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

ELEMENTS = 5


def _ifs_prefix(ifs: str | None) -> str:
    """`IFS=$'…' ` before the read (nothing: IFS unset, bash splits at blanks)."""
    if ifs is None:
        return ""
    return "IFS=$'" + ifs.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n") + "' "


# IFS of blanks, other characters, a backslash, or empty (no splitting).
ifs_values = st.one_of(st.none(), st.text(alphabet=" \t\n,:\\", max_size=3))


def _script(text: str, prefix: str, raw: bool, names: int | None) -> str:
    flag = "-r " if raw else ""
    if names is None:
        read = f"{prefix}read {flag}-a arr <<< '{text}'\n"
        shown = " ".join(f'E{i}="${{arr[{i}]-unset}}"' for i in range(ELEMENTS))
        return read + f'export N="${{#arr[@]}}" {shown}\n'
    targets = " ".join(f"v{i}" for i in range(names))
    return f"{prefix}read {flag}{targets} <<< '{text}'\nexport S=$? " + " ".join(f'V{i}="$v{i}"' for i in range(names)) + "\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet="ab,: \t\\\n", max_size=12), ifs=ifs_values, raw=st.booleans(),
       names=st.sampled_from([None, 1, 2, 3]))
# Found by this test: the last name's trailing blanks go, escaped ones too, when more than its one
# field is left (bash gives v0=':'; its one field alone keeps an escaped blank: `read v <<< 'a\ '`).
@example(text=": \\ ", ifs=None, raw=False, names=1)
@example(text="a\\ ", ifs=None, raw=False, names=1)
@example(text=",::\\b\\ \n", ifs=" :", raw=False, names=1)
@example(text="x \\ \\\t", ifs=" \t", raw=False, names=2)
def test_read_from_a_herestring_splits_as_bash_does(tmp_path_factory, text, ifs, raw, names):
    directory = tmp_path_factory.mktemp("here")
    script = _script(text, _ifs_prefix(ifs), raw, names)
    (directory / "gen.sh").write_text(script)
    got = {k: v.text for k, v in render(directory / "gen.sh", {}).exported.items()}
    assert got == bash_env(directory, {}), script


CASES = {
    "read -ra of a variable": 'stages=prefill,generate\nIFS=\',\' read -ra stage <<< "$stages"\n'
                              'for s in "${stage[@]}"; do export LAST="$s"; done\nexport N=${#stage[@]}\n',
    "the largest of a list read from a herestring": 'L=256,1024,512\nIFS=, read -r -a arr <<< "$L"\nm=${arr[0]}\n'
                                                     'for n in "${arr[@]}"; do ((n > m)) && m=$n; done\nexport M=$m\n',
    "read a b": 'read a b <<< "x y z"\nexport A="$a" B="$b"\n',
    "read with a delimiter": 'read -d , a <<< "one,two"\nexport A="$a"\n',
    "mapfile -t": 'mapfile -t lines <<< "$(echo)"\nx=$\'p\\nq\'\nmapfile -t lines <<< "$x"\n'
                  'export N=${#lines[@]} L1="${lines[1]}"\n',
    "cat <<< in a function's output": 'f() { cat <<< "k=$1"; }\nexport K="$(f 3)"\n',
    "$(cat <<< word)": 'w="a  b"\nexport C="$(cat <<< "$w")" D=$(cat <<< x)\n',
}


@pytest.mark.parametrize("script", list(CASES.values()), ids=list(CASES))
def test_herestring_constructs_as_bash_runs_them(tmp_path, script):
    (tmp_path / "gen.sh").write_text(script)
    assert {k: v.text for k, v in render(tmp_path / "gen.sh", {}).exported.items()} == bash_env(tmp_path, {})


def test_cat_of_a_herestring_piped_on_stays_unknown(tmp_path):
    (tmp_path / "gen.sh").write_text('export E="$(cat <<< x | tr x y)"\n')
    assert render(tmp_path / "gen.sh", {}).exported["E"].opaque

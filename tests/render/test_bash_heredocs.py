"""Here-documents read as bash reads them: `read -r -d '' CMD <<EOF` gives the variable the
document's text (expanded unless its delimiter is quoted), split as read splits it; read's status
(1 at the end of the input before the delimiter) stops a script under `set -e` unless `|| true`
follows on the `<<EOF` line; what follows the `<<EOF` on its line (`&&`, `||`, `|`) runs after it;
`cat <<EOF` in a captured function writes the text. bash only runs the scripts written here, in
a temporary directory, with an empty environment except PATH."""

from __future__ import annotations

import re
import shutil

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_bash_errexit import _bash
from test_bash_property import bash_env

from flaglint.render import render
from flaglint.render.bash.types import ScriptError

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

LINES = ["python3 -m maxtext.train base.yml", "  steps=$STEPS \\", "run_name='a b'", "\tk=v\tq=w", "x=\\$HOME", "",
         "${STEPS:-1}0 last", "a\\\\b", '"quoted"', "  "]


def _script(lines: list[str], quoted: bool, raw: bool, delim: str, names: int, prefix: str, tail: str) -> str:
    flags = ("-r " if raw else "") + (f"-d '{delim}' " if delim is not None else "")
    targets = " ".join(f"v{i}" for i in range(names))
    word = "'EOF'" if quoted else "EOF"
    body = "".join(line + "\n" for line in [*lines, "end"])  # a last line without `\`: it would take in the delimiter's
    shown = " ".join(f'V{i}="$v{i}"' for i in range(names))
    return f"STEPS=7\n{prefix}read {flags}{targets} <<{word}{tail}\n{body}EOF\nexport S=$? {shown}\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.sampled_from(LINES), max_size=4), quoted=st.booleans(), raw=st.booleans(),
       delim=st.sampled_from([None, "", "=", "x"]), names=st.sampled_from([1, 2, 3]),
       prefix=st.sampled_from(["", "IFS= ", "IFS='=' "]))
@example(lines=LINES[:3], quoted=False, raw=True, delim="", names=1, prefix="")
@example(lines=LINES[:3], quoted=True, raw=False, delim="", names=1, prefix="IFS= ")
def test_read_from_a_here_document_is_what_bash_reads(tmp_path_factory, lines, quoted, raw, delim, names, prefix):
    directory = tmp_path_factory.mktemp("heredoc")
    script = _script(lines, quoted, raw, delim, names, prefix, "")
    (directory / "gen.sh").write_text(script)
    got = {k: v.text for k, v in render(directory / "gen.sh", {}).exported.items()}
    assert got == bash_env(directory, {}), script


@pytest.mark.parametrize("tail", ["", " || true", " && export AFTER=1", " || export FAILED=1", " | cat", " 2>&1 | cat",
                                  " 2>/dev/null && export AFTER=1", " 2>&1 >/dev/null || export FAILED=1",
                                  # `;` and more commands: they run after the read (which fails: set -e stops first)
                                  "; export AFTER=1", " ; export AFTER=1", ";", " 2>/dev/null; export AFTER=1"])
def test_what_follows_a_here_document_on_its_line_runs_after_it_under_set_e(tmp_path, tail):
    (tmp_path / "gen.sh").write_text("set -e\n" + _script(LINES[:2], False, True, "", 1, "", tail) + "export END=1\n")
    rendering = render(tmp_path / "gen.sh", {})
    assert ({k: v.text for k, v in rendering.exported.items()}, rendering.status) == _bash(tmp_path)


CASES = {
    "a command line kept for bash -c": "read -r -d '' CMD <<'EOF' || true\npython3 -m maxtext.train \\\n  steps=3\nEOF\n"
                                       'export CMD\n',
    "cat of a here-document in a function's output": 'f() {\ncat <<EOF\nk=$1\n  two\nEOF\n}\nexport K="$(f 3)"\n',
    "a file written, then what follows": "cat > out.yml <<EOF && export WROTE=1\nsteps: 1\nEOF\nexport AFTER=1\n",
    # `;` and more commands after the here-document's operator: they run after it, before the next line
    "commands after `;` on the line": "A=0\ncat >/dev/null <<EOF; A=1; export B=\"$A\"\nA=$A\nEOF\nexport A C=\"$B\"\n",
    "the read's variable, then a command": "read -r -d '' CMD <<'EOF'; export GOT=\"$CMD\"\nrun \\\n  steps=3\nEOF\n",
    "a file written, then a command": "cat > out.yml <<EOF;export WROTE=1\nsteps: 1\nEOF\nexport AFTER=1\n",
    "its redirection after the delimiter": "cat <<EOF >out.yml ; export AFTER=1\nsteps: 1\nEOF\nexport END=1\n",
    "in a branch and a function": 'f() {\n  if [ -n "$1" ]; then\n    cat >/dev/null <<-EOF; export IN=$1\n\tk=v\n\tEOF\n  fi\n'
                                  '  export OUT="$IN"\n}\nf 2\n',
    "a comment after the `;`": "cat >/dev/null <<EOF; # export NOT=1\nx\nEOF\nexport AFTER=1\n",
}


@pytest.mark.parametrize("script", list(CASES.values()), ids=list(CASES))
def test_here_document_constructs_as_bash_runs_them(tmp_path, script):
    (tmp_path / "gen.sh").write_text(script)
    assert {k: v.text for k, v in render(tmp_path / "gen.sh", {}).exported.items()} == bash_env(tmp_path, {})


@pytest.mark.parametrize(("line", "message"), [
    ("cat <<EOF|cat", "'|' right after a here-document's delimiter"),
    ("cat <<EOF&& export A=1", "'&' right after a here-document's delimiter"),
    ("cat <<A; cat <<B", "a second here-document on the line of another is not read"),
])
def test_a_here_document_line_tree_sitter_would_misread_is_refused(tmp_path, line, message):
    """Read as it stands, the document would never end and take in the lines after it, unseen."""
    (tmp_path / "gen.sh").write_text(f"{line}\nx\nEOF\nexport A=1\n")
    with pytest.raises(ScriptError, match=re.escape(message)) as refused:
        render(tmp_path / "gen.sh", {})
    assert refused.value.line == 1

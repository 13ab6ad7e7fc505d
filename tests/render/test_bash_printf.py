"""printf inside a captured function (`flags="$(trainer_flags)"` where the function prints its parts
with printf): what it writes is what bash writes, where the format is followed; elsewhere the captured
value is not known here, never silently empty. bash only runs the scripts written here, in a
temporary directory, with an empty environment except PATH."""

from __future__ import annotations

import json
import shutil

import pytest
from commandline import run_flaglint
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_bash_property import bash_env

from flaglint.render import render
from flaglint.render.bash.printf import printf_output

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

# pieces of a format: directives, escapes and plain text; `%q` and `%x` are not followed here
DIRECTIVES = ["%s", "%d", "%i", "%5s", "%-3s", "%.2s", "%03d", "%-4d", "%+d", "%%", "\\n", "\\t", "\\\\", "=", "--", "k", " ", "%q", "%x"]
ARGUMENTS = ["", "a", "b c", "12", "-7", "0", "x=y", " 3", "08"]


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.sampled_from(DIRECTIVES), min_size=1, max_size=5),
       arguments=st.lists(st.sampled_from(ARGUMENTS), max_size=4), dashes=st.booleans())
@example(pieces=["--", "%s", "=", "%s", " "], arguments=["steps", "10", "log_period", "5"], dashes=True)  # the format used again
@example(pieces=["--", "%s"], arguments=["steps"], dashes=False)  # an invalid option to bash: nothing written
@example(pieces=["%d"], arguments=["08"], dashes=False)  # octal to bash: not followed
def test_a_captured_printf_writes_what_bash_writes(tmp_path_factory, pieces, arguments, dashes):
    directory = tmp_path_factory.mktemp("printf")
    fmt = "".join(pieces)
    script = f"f() {{ printf {'-- ' if dashes else ''}{_quoted(fmt)} {' '.join(map(_quoted, arguments))}; }}\nexport X=\"$(f)\"\n"
    (directory / "gen.sh").write_text(script)
    got = render(directory / "gen.sh", {}).exported["X"]
    if (dashes or not fmt.startswith("-") or fmt == "-") and printf_output(fmt, [(a, (None,) * len(a)) for a in arguments]) is None:
        assert got.opaque, script
    else:
        assert not got.opaque and got.text == bash_env(directory, {})["X"], script


def test_flags_a_function_prints_with_printf_are_judged_where_written(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text('#!/bin/bash\ntrainer_flags() {\n  printf \'%s \' "steps=${STEPS:-10}" "checkpoint_period=x"\n}\n'
                      'flags="$(trainer_flags)"\npython3 -m maxtext.train src/maxtext/configs/base.yml ${flags}\n')
    report = json.loads(run_flaglint("lint", str(script), "--format", "json").stdout)
    assert [(f["rule"], f["location"]["line"]) for f in report["findings"]] == [("FL005", 3)]


def test_a_format_not_followed_leaves_the_captured_flags_not_known(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nf() { printf '%q ' checkpoint_period=x; }\n"
                      'python3 -m maxtext.train src/maxtext/configs/base.yml "$(f)"\n')
    report = json.loads(run_flaglint("lint", str(script), "--format", "json").stdout)
    assert not [f for f in report["findings"] if f["rule"] == "FL005"]
    assert any("opaque: command substitution $(f)" in note for note in report["notes"]), report["notes"]

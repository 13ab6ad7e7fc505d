"""`set -e` and `set -o pipefail` as bash runs them: a failing simple command, test, function,
subshell or pipeline stops the script (the parts of a `for ((…))` header never do), except in an
if/while condition, left of && / ||, after `!`, and inside a function or subshell run in such a
place; a pipeline's status is its last stage's, or with pipefail its last failing stage's. bash
only runs the scripts generated here, in a temporary directory, with an empty environment except
PATH."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_bash_property import BASH_OWN

from flaglint.render import render

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

FUNCTIONS = ("fails() { false; export IN_FAILS=1; }\n"
             "returns2() { return 2; }\n"
             "succeeds() { true; }\n"
             "last_fails() { export IN_LAST=1; [[ a == b ]]; }\n")

ATOMS = [
    "false", "true", "[[ a == b ]]", "[[ a == a ]]", "(( 0 ))", "fails", "returns2", "succeeds", "last_fails",
    "(false)", "(exit 3)", "( returns2 )", "false | true", "true | false", "returns2 | true", "true | fails",
    "! false", "! true", "! fails", "! false | false", "fails && true", "false || true", "false && true",
    "true && returns2", "returns2 || false", "if fails; then export THEN=1; fi", "if ! returns2; then :; fi",
    "while false; do :; done", "{ false; }", "{ returns2 || true; }", "set +e", "set -e", "set -o pipefail",
    "set +o pipefail", "x=1 false", "fails || true", "succeeds && fails", "( fails ) || true", "fails | true",
    "{ fails; } && true", "until true; do :; done", "case x in x) false ;; esac", "case x in y) false ;; esac",
    "nested() { fails; }; nested", "if true; then returns2; fi",
    "for ((i = 0; i < 2; i++)); do :; done", "for ((i = 2; i > 0; i--)); do export DOWN=$i; done",
    "for ((;;)); do break; done", "for ((i = 0; i < 1; i++)); do false; done", "for ((i = 0; i < 3; i += 2)); do (( i )); done",
]
OPTIONS = ["", "set -e", "set -eo pipefail", "set -o pipefail", "set -euo pipefail"]


def _bash(directory: Path) -> tuple[dict, int]:
    """What the script exports when it ends (normally, by exit, or stopped by set -e), and its status."""
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", 'trap "env -0" EXIT; source ./gen.sh'],
                         cwd=directory, capture_output=True, timeout=20)
    pairs = [item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item]
    return {k: v for k, v in pairs if k not in BASH_OWN}, out.returncode


@st.composite
def errexit_scripts(draw) -> str:
    atoms = draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=5))
    body = "".join(f"{atom}\nexport M{i}=1\n" for i, atom in enumerate(atoms))
    return FUNCTIONS + draw(st.sampled_from(OPTIONS)) + "\n" + body


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=errexit_scripts())
@example(script=FUNCTIONS + "set -e\nif fails; then export THEN=1; fi\nexport M0=1\nfails\nexport M1=1\n")
@example(script=FUNCTIONS + "set -eo pipefail\ntrue | false\nexport M0=1\n")
@example(script=FUNCTIONS + "set -e\ntrue | false\nexport M0=1\nreturns2 | true\nexport M1=1\n")
@example(script=FUNCTIONS + "set -e\n! fails\nexport M0=1\nlast_fails\nexport M1=1\n")
@example(script=FUNCTIONS + "set -e\nfor ((i = 0; i < 2; i++)); do :; done\nexport M0=1\n")
def test_errexit_and_pipefail_stop_where_bash_stops(tmp_path_factory, script):
    directory = tmp_path_factory.mktemp("errexit")
    (directory / "gen.sh").write_text(script)
    expected, status = _bash(directory)
    rendering = render(directory / "gen.sh", {})
    assert ({k: v.text for k, v in rendering.exported.items()}, rendering.status) == (expected, status), script


def test_the_path_set_e_stops_launches_nothing(tmp_path):
    # The guard is a function that fails for one value of an input: that path never reaches MaxText.
    from flaglint.frontends.checker import Checker
    from flaglint.frontends.lint.scripts import check_script

    script = tmp_path / "run.sh"
    script.write_text('set -e\ncheck_mode() {\n  if [[ "${MODE:-}" == bad ]]; then\n    echo "MODE=bad is refused" >&2\n    return 1\n  fi\n}\ncheck_mode\n'
                      'if [[ "${MODE:-}" == bad ]]; then PERIOD=1.5; else PERIOD=10; fi\n'
                      "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=r log_period=$PERIOD\n")
    assert not [f for f in check_script(script, Checker()).result.findings if f.severity != "info"]
    script.write_text(script.read_text().replace("set -e\n", ""))  # without set -e that path launches
    assert [f.rule for f in check_script(script, Checker()).result.findings if f.severity == "error"] == ["FL005"]


def test_a_launch_in_a_pipeline_is_checked(tmp_path):
    from flaglint.frontends.checker import Checker
    from flaglint.frontends.lint.scripts import check_script

    script = tmp_path / "run.sh"
    script.write_text("set -o pipefail\npython3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml "
                      "run_name=r log_period=1.5 2>&1 | tee train.log\n")
    found = [(f.rule, f.location.line) for f in check_script(script, Checker()).result.findings if f.severity == "error"]
    assert found == [("FL005", 2)]

"""A file test (`[ -d PATH ]`, `[[ -f PATH ]]`, `test -e`) on a path the recipe's tree does not hold
is an input: the evaluator follows the arm where it holds and the arm where it fails, as a
checkpoint directory mounted where the job runs is there or not. A file of the recipe's own tree is
known: the tree is there where the script runs. Each arm is what bash does with the path present
or absent (bash runs only the scripts written here, in a temporary directory)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate
from flaglint.render.bash.state import file_test_input
from flaglint.render.bash.types import resolve

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

GUARDED = """#!/bin/bash
CKPT=${CKPT:-%s}
if [ ! -d "$CKPT" ]; then
  echo "no checkpoint at $CKPT"; exit 1
fi
[[ -f "$CKPT/extra.flags" ]] && EXTRA="eval_interval=5"
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml load_parameters_path=$CKPT stepz=10 $EXTRA
"""


def _bash_argv(directory: Path, script: Path) -> list[str] | None:
    """The launch's argv as bash runs the script (None: it exits first)."""
    out = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", f"python3() {{ printf '%s\\0' \"$@\"; }}; source {script}"],
                         cwd=directory, capture_output=True, timeout=20)
    return out.stdout.decode().split("\0")[:-1] if out.returncode == 0 else None


def test_a_launch_behind_a_directory_test_is_reached_and_each_arm_is_what_bash_does(tmp_path):
    ckpt = tmp_path / "mounted" / "ckpt"
    recipe = tmp_path / "recipes" / "run.sh"
    recipe.parent.mkdir()
    recipe.write_text(GUARDED % ckpt)
    exploration = evaluate(recipe)
    directory, flags = file_test_input("-d", str(ckpt)), file_test_input("-f", f"{ckpt}/extra.flags")
    launched = {}
    for outcome in exploration.outcomes:
        for path in outcome.paths:
            env = {name: value for name, value in path.env.items() if name in (directory, flags)}
            words = [w.text for launch in outcome.rendering.launched for w in launch.words]
            launched[(env.get(directory), env.get(flags))] = words[1:] if outcome.rendering.status == 0 and words else None
    # the directory missing: bash stops at `exit 1`; present, with and without the flag file
    assert launched[(None, None)] is None
    assert _bash_argv(tmp_path, recipe) is None
    ckpt.mkdir(parents=True)
    assert launched[("true", None)] == _bash_argv(tmp_path, recipe)
    (ckpt / "extra.flags").write_text("")
    assert launched[("true", "true")] == _bash_argv(tmp_path, recipe)


def test_lint_finds_the_error_of_a_launch_behind_a_directory_test_and_names_the_test(tmp_path):
    recipe = tmp_path / "run.sh"
    recipe.write_text(GUARDED % "/mnt/ckpt/base")
    (finding,) = [f for f in check_script(recipe, Checker()).result.findings if f.severity == "error"]
    assert (finding.rule, finding.location.line) == ("FL004", 7)
    assert finding.witness["env"] == {file_test_input("-d", "/mnt/ckpt/base"): "true"}


def test_a_file_of_the_recipes_own_tree_is_known_not_an_input(tmp_path):
    (tmp_path / "common.sh").write_text("export MAXTEXT_EXTRA_FLAGS='stepz=1'\n")
    recipe = tmp_path / "run.sh"
    recipe.write_text('DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                      'if [ -f "$DIR/common.sh" ]; then source "$DIR/common.sh"; fi\n'
                      "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml $MAXTEXT_EXTRA_FLAGS\n")
    exploration = evaluate(recipe)
    assert not [name for name in exploration.inputs if name.startswith("[ ")]
    (finding,) = [f for f in check_script(recipe, Checker()).result.findings if f.severity == "error"]
    assert finding.rule == "FL004" and finding.witness["env"] == {}


LOGS = 5


def test_paths_that_differ_only_in_file_tests_join_and_keep_what_bash_does_on_each(tmp_path):
    # a launcher that reports on its log files (`[[ -f "$log" ]]` in a function, called for each):
    # whether a path exists where the script runs is no variable of its environment, so it never
    # keeps joined paths apart (2**LOGS paths before)
    logs = [tmp_path / "mounted" / f"w{i}.log" for i in range(LOGS)]
    recipe = tmp_path / "recipes" / "run.sh"
    recipe.parent.mkdir()
    recipe.write_text("#!/bin/bash\nSEEN=\n"
                      'report() { if [[ -f "$1" ]]; then SEEN="$SEEN $1"; echo "has $1"; else echo "no $1"; fi; }\n'
                      + "".join(f"report {log}\n" for log in logs) + "export SEEN\n"
                      "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml stepz=3\n")
    exploration = evaluate(recipe)
    assert exploration.paths_explored == 1
    ((outcome,),) = [exploration.outcomes]
    (tmp_path / "mounted").mkdir()
    for present in ([], [0], [1, 3], list(range(LOGS))):
        for i in present:
            logs[i].write_text("")
        env = {file_test_input("-f", str(log)): "true" if i in present else None for i, log in enumerate(logs)}
        seen = resolve(outcome.rendering.exported["SEEN"], lambda c: next(alt for values, alt in c.alts if env[c.name] in values),
                       lambda name: None)
        bash = subprocess.run(["env", "-i", "PATH=/usr/bin:/bin", "bash", "-c", f"python3() {{ :; }}; source {recipe} >/dev/null; printf %s \"$SEEN\""],
                              cwd=tmp_path, capture_output=True, text=True, timeout=20)
        assert seen.text == bash.stdout, present
        for i in present:
            logs[i].unlink()
    (finding,) = [f for f in check_script(recipe, Checker()).result.findings if f.severity == "error"]
    assert (finding.rule, finding.location.line) == ("FL004", LOGS + 5)

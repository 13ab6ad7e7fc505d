"""Paths that join are merged even where bash's state differs in what no later step can tell apart,
and a merged path still says exactly which arms a run with given inputs takes (a finding's witness).

- A variable one path exports and another never touched is the environment's on the other, which
  bash exports too (`source enter_context.sh` on one arm exporting KUBECONFIG).
- A loop whose test reads only variables and arguments, back in the state of its last visit, is a
  loop bash never leaves (`--image` given last, with no value: `shift 2` of one argument fails),
  so nothing after it runs on that path.
- The arms a witness's run takes are read off the merged path (each merged path's arms beside its
  condition), the same as the machine's own run of the script with those inputs."""

from __future__ import annotations

import pytest
from script_shapes import REPEATED_SHAPES, repeated_appends

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.frontends.lint.witnesses import Witnesses
from flaglint.render import evaluate
from flaglint.render.bash.explorer import run_inputs
from flaglint.render.recipes import render

LAUNCH = "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml steps=10\n"


def test_paths_that_export_a_variable_the_others_never_touch_merge(tmp_path):
    switches = 12
    body = "".join(f'if [[ "${{SW_{i}:-}}" == on ]]; then export CTX_{i}=/etc/ctx{i}; fi\n' for i in range(switches))
    script = tmp_path / "exports.sh"
    script.write_text("#!/bin/bash\n" + body + LAUNCH)
    exploration = evaluate(script)
    # one outcome, one path: not one per combination of the switches
    assert [len(o.paths) for o in exploration.outcomes] == [1]
    exported = exploration.outcomes[0].rendering.exported
    assert {f"CTX_{i}" for i in range(switches)} <= set(exported)


def test_a_variable_assigned_unexported_on_one_path_keeps_the_paths_apart(tmp_path):
    # on the other path it is exported: what the launch's environment holds differs, so no merge hides it
    script = tmp_path / "apart.sh"
    script.write_text('#!/bin/bash\nif [[ "${A:-}" == on ]]; then export CTX=1; else CTX=2; fi\n' + LAUNCH)
    exploration = evaluate(script)
    assert sum(len(o.paths) for o in exploration.outcomes) == 2


OPTIONS = """#!/bin/bash
IMAGE=default
while [[ $# -gt 0 ]]; do
  case "$1" in
    --image) IMAGE="$2"; shift 2 ;;
    *) shift ;;
  esac
done
python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name="${IMAGE}"
"""


@pytest.mark.parametrize(("args", "launches"), [(["--image", "v1"], 1), (["x", "--image", "v1"], 1), ([], 1),
                                                  (["--image"], 0), (["x", "--image"], 0)])
def test_an_options_loop_that_bash_never_leaves_launches_nothing(tmp_path, args, launches):
    script = tmp_path / "options.sh"
    script.write_text(OPTIONS)
    exploration = evaluate(script, args=args)
    assert sum(len(o.rendering.launched) for o in exploration.outcomes) == launches


def test_a_loop_that_waits_on_a_program_is_still_left(tmp_path):
    # its test asks a program never run here: the next try may tell otherwise, so the path goes on
    script = tmp_path / "wait.sh"
    script.write_text("#!/bin/bash\nwhile ! kubectl get jobset x; do sleep 2; done\n" + LAUNCH)
    assert sum(len(o.rendering.launched) for o in evaluate(script).outcomes) == 1


@pytest.mark.parametrize("shape", REPEATED_SHAPES)
def test_a_witness_takes_the_arms_a_run_of_the_script_takes(tmp_path, shape):
    script = tmp_path / f"{shape}.sh"
    script.write_text(repeated_appends(12, shape))
    findings = [f for f in check_script(script, Checker("bbd0f6f10")).result.findings if f.witness]
    assert len(findings) >= 8
    for finding in findings:
        env = finding.witness["env"]
        assert not any("<" in (value or "") for value in env.values())
        variables, args = run_inputs(env)
        run = render(script, {k: v for k, v in variables.items() if v is not None}, None, args)
        assert [(b["file"], b["line"]) for b in finding.witness["branches"]] == [(str(f), line) for f, line in run.branches]


def test_witnesses_of_a_merged_path_need_no_run_of_the_script(tmp_path, monkeypatch):
    script = tmp_path / "case.sh"
    script.write_text(repeated_appends(12, "case"))
    (path,) = evaluate(script).outcomes[0].paths

    def no_run(*args):
        raise AssertionError("the script was run again for a witness")

    monkeypatch.setattr("flaglint.frontends.lint.witnesses.render", no_run)
    witness = Witnesses(script, None)(path, {"MODE_005": ["on"], "MODE_009": ["low"]}, [path])
    assert witness["env"] == {"MODE_005": "on", "MODE_009": "low"}
    lines = [b["line"] for b in witness["branches"]]
    text = script.read_text().splitlines()
    # the arms the inputs pick (`on)` for 5, `low)` for 9); the other ten `case` statements take their
    # empty `*)` arm, which does nothing and is not named, as an `if` without `else` names no line
    assert [text[line - 1].strip()[:4] for line in lines] == ["on) ", "low)"]
    assert lines[0] < lines[1]


def test_an_assignment_bash_exports_on_only_some_joined_paths_is_not_followed(tmp_path):
    # exported where IN1=x, the environment's elsewhere: bash exports A=2 only where A was exported
    # or the environment set it, which one merged path cannot hold
    script = tmp_path / "some.sh"
    script.write_text('#!/bin/bash\nif [[ "${IN1:-}" == x ]]; then export A=1; fi\nA=2\n' + LAUNCH)
    (outcome,) = evaluate(script).outcomes
    assert outcome.rendering.unbounded is not None and outcome.rendering.unbounded.line == 3
    assert "A is exported on some of the paths" in outcome.rendering.unbounded.message


def test_a_functions_own_variable_of_that_name_is_assigned_and_unset_freely(tmp_path):
    # the same A, exported on only some joined paths, shadowed by a function's local: the local's
    # assignments and unset touch no exported variable, and the launch after the call is reached
    script = tmp_path / "local.sh"
    script.write_text('#!/bin/bash\nif [[ "${IN1:-}" == x ]]; then export A=1; fi\n'
                      'f() { local A=2; A=3; unset A; }\nf\n' + LAUNCH)
    (outcome,) = evaluate(script).outcomes
    assert outcome.rendering.unbounded is None
    assert len(outcome.rendering.launched) == 1

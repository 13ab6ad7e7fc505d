"""Every launch a script can make is checked or refused (FL011, naming the construct and its line):
wrappers, exec, here-document command strings, loops under `set -e`, launches behind argument
checks, sourced files that cannot be followed, and MaxText's entry points under every name."""

from __future__ import annotations

from pathlib import Path

import pytest
from commandline import run_flaglint

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.maxtext.launch import TRAIN, recognise, unwrap
from flaglint.pins.pins import bundled_pins, load_pin
from flaglint.schema.config_index import load_index

SCRIPTS = Path(__file__).with_name("scripts") / "launches"
PAIR = "MXCQ1N5"  # num_moe_token_chunks > 1 without use_ring_of_experts


def _errors(name: str, **options) -> list[tuple]:
    result = check_script(SCRIPTS / name, Checker(), **options).result
    return sorted((f.rule, Path(f.location.file).name, f.location.line) for f in result.findings if f.severity == "error")


def _finding(name: str, rule: str, **options):
    (found,) = [f for f in check_script(SCRIPTS / name, Checker(), **options).result.findings if f.rule == rule]
    return found


def test_a_launch_behind_any_wrapper_is_checked():
    lines = [n for n, text in enumerate((SCRIPTS / "wrappers.sh").read_text().splitlines(), 1) if "use_ring_of_experts=false" in text]
    assert _errors("wrappers.sh") == [(PAIR, "wrappers.sh", line) for line in lines]


def test_a_trainer_script_run_behind_wrappers_is_followed():
    # The launch script adds the key that breaks the pair; timeout and nice only run it.
    assert _errors("trainer/wrapped_child.sh") == [(PAIR, "start_trainer.sh", 2)]


def test_flags_a_trainer_launch_is_given_on_its_command_line_are_its_flags():
    finding = _finding("trainer/command_line_flags.sh", PAIR)
    assert (finding.location.line, finding.witness["env"]) == (6, {"NO_RING": "1"})
    assert _errors("trainer/command_line_flags.sh") == [(PAIR, "command_line_flags.sh", 6)]  # not the exported flags


def test_exec_launches_and_nothing_after_it_runs():
    assert _errors("exec.sh") == [("FL005", "exec.sh", 9), (PAIR, "exec.sh", 7)]  # line 10 is never reached
    assert _finding("exec.sh", PAIR).witness["env"] == {"DEBUG_ONE_STEP": "1"}


def test_a_command_line_read_from_a_here_document_is_checked():
    assert _errors("heredoc_command.sh") == [(PAIR, "heredoc_command.sh", 7)]


def test_the_launch_after_a_counted_loop_under_set_e_is_checked():
    assert _errors("loop_then_launch.sh") == [(PAIR, "loop_then_launch.sh", 9)]


def test_a_launch_behind_an_argument_check_is_reached_with_the_argument_named():
    finding = _finding("usage_check.sh", PAIR)
    assert finding.witness["env"] == {"$#": "1", "$1": "<any other value>"}
    assert _errors("usage_check.sh", args=["run-1"]) == [(PAIR, "usage_check.sh", 10)]
    assert _errors("usage_check.sh", args=[]) == []  # the usage path launches nothing


@pytest.mark.parametrize(("name", "option"), [("options_loop.sh", "--pipeline"), ("getopts.sh", "-p")])
def test_options_read_in_a_loop_are_followed(name, option):
    (finding,) = [f for f in check_script(SCRIPTS / name, Checker()).result.findings if f.severity == "error"]
    assert (finding.rule, finding.witness["env"]) == (PAIR, {"$#": "1", "$1": option})
    assert _errors(name, args=[]) == []
    assert _errors(name, args=["--unknown" if name == "options_loop.sh" else "-x"]) == []  # the usage path exits


def test_getopts_reads_an_option_value_and_a_group():
    assert _errors("getopts.sh", args=["-n", "run-2", "-p"]) == [(PAIR, "getopts.sh", 15)]
    assert _errors("getopts.sh", args=["-pn", "run-3"]) == [(PAIR, "getopts.sh", 15)]
    assert _errors("getopts.sh", args=["-n", "-p"]) == []  # -p is -n's value here


def test_sourced_files_that_cannot_be_followed_are_refused_at_their_line():
    result = check_script(SCRIPTS / "unfollowed_sources.sh", Checker()).result
    refused = sorted((Path(f.location.file).name, f.location.line, f.message) for f in result.findings if f.rule == "FL011")
    assert [(file, line) for file, line, _ in refused] == [
        ("sources_itself.sh", 3), ("unfollowed_sources.sh", 4), ("unfollowed_sources.sh", 5), ("unfollowed_sources.sh", 6)]
    messages = [message for _, _, message in refused]
    assert "'./sources_itself.sh' runs inside itself 8 levels deep" in messages[0]
    assert "'./settings/not_there.sh' is not found" in messages[1]
    assert "process substitution (<(…))" in messages[2]
    assert "'./settings/*.sh' is a glob" in messages[3]
    # /dev/null sources nothing; the launch after them is still checked
    assert [(f.rule, f.location.line) for f in result.findings if f.rule != "FL011" and f.severity == "error"] == [("FL005", 8)]
    assert all(f.severity == "error" for f in result.findings if f.rule == "FL011")
    allowed = check_script(SCRIPTS / "unfollowed_sources.sh", Checker(), allow_unverified=True).result
    assert {f.severity for f in allowed.findings if f.rule == "FL011"} == {"warning"}


def test_a_sourced_file_over_the_size_limit_is_refused(tmp_path):
    from flaglint.core.reading import SCRIPT

    (tmp_path / "big.sh").write_text("# padding\n" * (SCRIPT.limit // 10 + 1))
    script = tmp_path / "run.sh"
    script.write_text("source ./big.sh\npython3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=r\n")
    (finding,) = check_script(script, Checker()).result.findings
    assert finding.rule == "FL011" and finding.location.line == 1
    size = (tmp_path / "big.sh").stat().st_size
    assert f"'./big.sh': {size:,} bytes, over the 512 KiB flaglint reads of a recipe script" in finding.message


def test_a_command_string_that_is_not_known_is_refused(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text('CMD="$(cat ./command.txt)"\nbash -c "$CMD"\n')
    (finding,) = check_script(script, Checker()).result.findings
    assert (finding.rule, finding.location.line) == ("FL011", 2) and "the bash -c string is not known here" in finding.message


def test_each_older_entry_point_name_is_checked():
    lines = [n for n, text in enumerate((SCRIPTS / "entry_points.sh").read_text().splitlines(), 1) if text.startswith("python3")]
    assert _errors("entry_points.sh") == [(PAIR, "entry_points.sh", line) for line in lines]


@pytest.mark.parametrize("pin", bundled_pins())
def test_every_entry_point_of_a_pin_is_recognised_under_each_form(pin):
    index = load_index(load_pin(pin).configs)
    for module, entry in index.entry_points.items():
        rest = module.removeprefix("maxtext.")
        path = rest.replace(".", "/")
        for words in (["python3", "-m", f"maxtext.{rest}"], ["python3", "-m", f"MaxText.{rest}"],
                      ["python3", "-m", f"src.maxtext.{rest}"], ["python3", f"/app/MaxText/{path}.py"],
                      ["python3", f"maxtext/{path}.py"], ["python3", f"/deps/src/maxtext/{path}.py"]):
            found = recognise([*words, "a.yml", "k=v"], index)
            assert found is not None and found.module == module and found.entry == entry, (words, found)


@pytest.mark.parametrize(("written", "module"), [
    ("MaxText/decode.py", "maxtext.inference.decode"), ("MaxText/maxengine_server.py", "maxtext.inference.maxengine.maxengine_server"),
    ("MaxText/generate_param_only_checkpoint.py", "maxtext.utils.generate_param_only_checkpoint"),
    ("maxtext/train_compile.py", "maxtext.trainers.pre_train.train_compile"), ("MaxText/train.py", TRAIN),
    ("MaxText/sft/train_sft.py", "maxtext.trainers.post_train.sft.train_sft")])
def test_an_older_short_name_is_the_module_the_pin_has(written, module):
    for pin in bundled_pins():
        index = load_index(load_pin(pin).configs)
        if module in index.entry_points:
            assert recognise(["python3", written, "base.yml"], index).module == module


@pytest.mark.parametrize(("words", "start", "env"), [
    ("nice -n 5 -- python3", 4, {}), ("nice -5 python3", 2, {}), ("stdbuf -o0 --error=L python3", 3, {}),
    ("timeout --preserve-status -s INT 10m python3", 5, {}), ("taskset 0x3 python3", 2, {}),
    ("numactl -C 0-3 --localalloc python3", 4, {}), ("env -i A=1 python3", 3, {"cleared": True, "assigned": (2,)}),
    ("env --unset A -- B=2 python3", 5, {"unset": ("A",), "assigned": (4,)}), ("uv run -p 3.12 python3", 4, {}),
    ("time -f %e python3", 3, {})])
def test_a_wrapper_runs_the_command_after_its_options(words, start, env):
    found = unwrap(words.split())
    assert found is not None and found.start == start
    assert (found.cleared, found.assigned, found.unset) == (env.get("cleared", False), env.get("assigned", ()), env.get("unset", ()))


@pytest.mark.parametrize("words", ["timeout 10m", "taskset -p 0x3 123", "env -S 'python3 x'", "uv sync", "env", "nice"])
def test_a_wrapper_that_runs_no_command_is_not_unwrapped(words):
    assert unwrap(words.split()) is None


@pytest.mark.parametrize(("words", "module"), [
    ("python3 /tmp/meter.py python3 -m src.maxtext.trainers.pre_train.train_compile a.yml", "maxtext.trainers.pre_train.train_compile"),
    ("python3 -m src.MaxText.rl.train_rl a.yml", "maxtext.trainers.post_train.rl.train_rl"),
    ("python3 -c pass", None), ("python3 -m pip install maxtext", None),
    ("uv run -m maxtext.trainers.pre_train.train a.yml", TRAIN), ("uv run --with x --module MaxText.train a.yml", TRAIN),
    ("uv run --frozen train.py -m maxtext.train", None), ("uv run --project -m maxtext.train", None)])
def test_a_module_is_found_after_what_runs_it(words, module):
    found = recognise(words.split(), load_index("0.2.5"))
    assert (found.module if found else None) == module


def test_lint_takes_the_scripts_arguments_in_order():
    proc = run_flaglint("lint", "--arg", "-n", "--arg", "run-4", "--arg", "-p", str(SCRIPTS / "getopts.sh"))
    assert proc.returncode == 1 and PAIR in proc.stdout, proc.stdout
    # a run with those arguments takes the options' arms (-n, then -p), and no input decides it
    assert "when: (any environment); branches taken at lines 8, 9 of" in proc.stdout, proc.stdout
    proc = run_flaglint("lint", "--arg", "-x", str(SCRIPTS / "getopts.sh"))
    assert proc.returncode == 0, proc.stdout


def test_render_takes_the_scripts_arguments(tmp_path):
    script = tmp_path / "args.sh"
    script.write_text('export FIRST="$1" COUNT=$# REST="${*:2}"\nsource ./missing.sh\n')
    proc = run_flaglint("render", "--arg", "a b", "--arg", "c", "--arg", "d", str(script), cwd=tmp_path)
    assert proc.stdout.splitlines() == ["export COUNT=3", "export FIRST='a b'", "export REST='c d'"]
    assert "not followed: the sourced file './missing.sh' is not found" in proc.stderr


def test_a_command_string_handed_to_tpu_vms_is_checked_and_a_required_variable_is_an_outcome():
    """gcloud's `tpu-vm ssh --command` (and `queued-resources ssh`), MaxText's multihost_runner.py and
    multihost_job.py `--COMMAND`: their strings are checked like XPK's, and `kubectl exec -- CMD`; `${X?}` stops bash where X is
    unset, so the launch is reached where the environment sets it, and its witness says so."""
    result = check_script(SCRIPTS / "remote_commands.sh", Checker()).result
    errors = sorted((f.rule, f.location.line) for f in result.findings if f.severity == "error")
    assert errors == [("FL011", 12), (PAIR, 5), (PAIR, 7), (PAIR, 9), (PAIR, 11), (PAIR, 13)]
    (refused,) = [f for f in result.findings if f.rule == "FL011"]
    assert "gcloud's --command string is not known here" in refused.message
    (required,) = [f for f in result.findings if f.rule == PAIR and f.location.line == 9]
    # every earlier ${X?} must hold too: bash stops at the first that does not
    assert required.witness["env"] == {name: "<any other value>" for name in ("RUN_NAME", "TPU_NAME", "TPU_PREFIX")}


def test_a_required_variable_that_is_unset_stops_the_script_as_bash_does(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/bash\nunset RUN_NAME\necho \"${RUN_NAME?}\"\n"
                      "python3 -m maxtext.trainers.pre_train.train run_name=r num_moe_token_chunks=2 use_ring_of_experts=false\n")
    assert [f.rule for f in check_script(script, Checker()).result.findings if f.severity == "error"] == []


@pytest.mark.parametrize(("assignment", "refused"), [
    ("NAME=$(whoami)-$(date +%s)", False),  # a command's output only in run_name's value: the rest is known
    ('NAME="x $(cat ./flags.txt)"', True),  # words of their own: what they set is not known
])
def test_a_command_string_with_a_commands_output_is_checked_where_only_a_value_holds_it(tmp_path, assignment, refused):
    script = tmp_path / "run.sh"
    script.write_text(f"{assignment}\nxpk workload create --cluster c --command \"python3 -m maxtext.trainers.pre_train.train "
                      "run_name=$NAME num_moe_token_chunks=2 use_ring_of_experts=false\"\n")
    rules = [f.rule for f in check_script(script, Checker()).result.findings if f.severity == "error"]
    assert rules == (["FL011"] if refused else [PAIR])


@pytest.mark.parametrize("poll", ["gcloud compute tpus tpu-vm describe my-tpu", "xpk workload list --cluster c",
                                  "kubectl get jobset my-run"])
def test_a_loop_that_polls_a_launcher_ends_and_the_launch_after_it_is_checked(tmp_path, poll):
    """`until ! kubectl get …; do sleep 5; done`: the launcher it polls is the same launch on each
    round, so the loop is seen to go round without end (or to stop) and what follows is checked."""
    script = tmp_path / "run.sh"
    script.write_text(f"until ! {poll} >/dev/null 2>&1; do\n  sleep 5\ndone\n"
                      "python3 -m maxtext.trainers.pre_train.train run_name=r num_moe_token_chunks=2 use_ring_of_experts=false\n")
    assert [(f.rule, f.location.line) for f in check_script(script, Checker()).result.findings if f.severity == "error"] == [(PAIR, 4)]


def test_a_kubectl_command_that_runs_nothing_is_no_launch(tmp_path):
    # `kubectl delete`/`get` start no program, however many inputs their words read: no launch to
    # verify (they were FL011 past the path cap); `kubectl exec -- …` is still followed.
    from flaglint.render import evaluate

    script = tmp_path / "k8s.sh"
    script.write_text('case "$1" in --ns) NS="$2" ;; --name) NAME="$2" ;; esac\n'
                      'kubectl delete jobset "${NAME:-x}" -n "${NS:-default}" --wait=true\n'
                      'kubectl get jobset "${NAME:-x}" -n "${NS:-default}"\n'
                      "kubectl exec pod -- python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml stepz=1\n")
    launched = {launch.line for outcome in evaluate(script).outcomes for launch in outcome.rendering.launched}
    assert launched == {4}
    findings = check_script(script, Checker()).result.findings
    assert [(f.rule, f.location.line) for f in findings if f.severity == "error"] == [("FL004", 4)]

"""Verdicts a user can act on (issue 34): no error on a value the script does not give, nothing
reported past where bash stops, each finding once, and a command's output in one value of a command
string never hiding the rest of the launch. Each script under scripts/verdicts was written for
these tests, in the shape of the public material named in each test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from commandline import run_flaglint

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script

SCRIPTS = Path(__file__).with_name("scripts") / "verdicts"
TRAIN = "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml"


def _lint(name: str, **options):
    return check_script(SCRIPTS / name, Checker(), **options).result


def _at(result) -> list[tuple]:
    return sorted((f.rule, f.location.line) for f in result.findings if f.severity != "info")


def _in(tmp_path: Path, text: str, **options):
    script = tmp_path / "run.sh"
    script.write_text(text)
    return check_script(script, Checker(), **options).result


# -- a command's output inside one key=value of an XPK --command string ----------------------------


def test_an_xpk_recipe_whose_run_name_is_a_commands_output_is_judged_on_its_other_keys():
    # The ironwood XPK recipes' shape: WORKLOAD_NAME="$(printf …)-$(date …)" in run_name= and in
    # the log copy's path. The keys MaxText 0.2.5 refuses are found on their lines, and no FL011.
    result = _lint("xpk_run_name.sh")
    assert _at(result) == [("FL004", 10), ("FL004", 11), ("FL004", 15)]
    assert [f.keys for f in result.findings if f.rule == "FL004"] == [
        ("wi_tile_fwd_buffer_count",), ("wo_tile_fwd_buffer_count",), ("output_dir",)]
    (note,) = [n for n in result.notes if "command string holds" in n]
    assert note.endswith("xpk_run_name.sh:14: run_name's value in the command string holds a command's output, not known here:"
                         " run_name is not judged (the output is spliced into the string, so where it holds a space, tab or"
                         " newline the word splits there)")


@pytest.mark.parametrize(("command", "unverified"), [
    # output only inside a key=value value, or inside a word of a command that launches nothing
    (f"{TRAIN} run_name=$(date +%s) steps=x", False),
    (f"{TRAIN} steps=x && gsutil cp log gs://b/$(whoami)/log", False),
    # a word of its own the string quotes, of a command that launches nothing (run_distill_xpk.sh's
    # `gcloud storage cp \"${XPK_YAML_GCS}\" …;` prelude: gcloud starts commands only under compute)
    (f'gcloud storage cp \\"$(date +%s)\\" x.yml; {TRAIN} steps=x', False),
    (f'mkdir -p \\"$(date +%s)\\" && gcloud storage rsync a \\"$(date +%s)\\"; {TRAIN} steps=x', False),
    # output that stands as a word of its own, names the program, or is in a launcher's other word
    (f"{TRAIN} steps=x && gsutil cp log $(date +%s)", True),
    (f'gcloud compute tpus tpu-vm ssh \\"$(date +%s)\\"; {TRAIN} steps=x', True),
    ("$(which python3) -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml steps=x", True),
    ("python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/$(hostname).yml steps=x", True),
])
def test_a_commands_output_in_a_command_string_is_fl011_only_where_it_could_be_any_word(tmp_path, command, unverified):
    result = _in(tmp_path, f'xpk workload create --cluster c --command "{command}"\n')
    rules = sorted(f.rule for f in result.findings if f.severity == "error")
    assert rules == (["FL011"] if unverified else ["FL005"]), [f.message for f in result.findings]


# -- a variable the script never sets is its caller's ----------------------------------------------


def test_variables_a_readme_block_reads_are_the_callers_and_named_in_notes():
    """A README's command block reads ${MODEL_NAME} and ${LOAD_PARAMETERS_PATH}, which the reader
    sets first: not the error 'None is not nullable', but a note naming each; the rest is judged."""
    result = _lint("readme_block.sh")
    assert _at(result) == [("FL004", 4)]
    notes = [n.split(": ", 1)[1] for n in result.notes if "is not judged" in n]
    assert notes == [
        "load_parameters_path is not judged: it reads LOAD_PARAMETERS_PATH, which the script never sets: taken as set by its"
        " caller, to a value not known here (--env LOAD_PARAMETERS_PATH=VALUE judges it)",
        "model_name is not judged: it reads MODEL_NAME, which the script never sets: taken as set by its caller, to a value"
        " not known here (--env MODEL_NAME=VALUE judges it)",
    ]


def test_env_judges_a_callers_variable(tmp_path):
    result = _lint("readme_block.sh", fixed={"MODEL_NAME": "llama9-7b"})
    assert ("FL005", 3) in _at(result)
    assert not [n for n in result.notes if "model_name is not judged" in n]


@pytest.mark.parametrize(("script", "rules"), [
    # assigned on one arm: where the arm is not taken, the variable is unset (bash gives MaxText `steps=`)
    (f'if [[ "$MODE" == fast ]]; then STEPS=10; fi\n{TRAIN} steps=$STEPS\n', ["FL005"]),
    # read with a default somewhere: the script says it may be unset
    (f'echo "${{STEPS:-none}}"\n{TRAIN} steps=$STEPS\n', ["FL005"]),
    # never assigned, never defaulted: the caller's
    (f"{TRAIN} steps=$STEPS\n", []),
])
def test_a_variable_is_the_callers_only_where_the_script_never_sets_it_nor_gives_it_a_default(tmp_path, script, rules):
    assert sorted({f.rule for f in _in(tmp_path, script).findings if f.severity == "error"}) == rules


def test_in_the_gate_a_variable_the_manifest_does_not_set_is_unset(tmp_path):
    """Fail closed where it matters: a container's environment is the manifest's, so a variable it
    does not set is unset there, and MaxText gets `model_name=`."""
    (tmp_path / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers:\n"
        "      - name: trainer\n        image: img\n        command: [bash, -c]\n"
        f"        args: ['{TRAIN} run_name=r model_name=${{MODEL_NAME}}']\n")
    ran = run_flaglint("gate", "--format", "json", "job.yaml", cwd=tmp_path)
    assert ran.returncode == 1 and "FL005" in [f["rule"] for f in json.loads(ran.stdout)["findings"]], ran.stdout


# -- values a user would never give ----------------------------------------------------------------


def test_an_argument_the_script_never_constrains_takes_no_literal_of_another_arguments_comparison():
    """MaxText's gpt3_175b_base.sh shape: `${1:-${PER_DEVICE_BATCH_SIZE:-4}}` and `$3 == train_compile`,
    no shift. $1 is not compared with train_compile, so it never takes it: no FL005."""
    result = _lint("positional_defaults.sh")
    assert _at(result) == []
    assert any(n.endswith("positional_defaults.sh:14: per_device_batch_size is not judged: its value is not known here")
               for n in result.notes)


def test_an_argument_given_is_judged():
    assert _at(_lint("positional_defaults.sh", args=["train_compile"])) == [("FL005", 14)]


# -- paths on which bash stops -------------------------------------------------------------------


def test_nothing_is_reported_past_where_bash_stops():
    """NVIDIA/JAX-Toolbox's test-maxtext.sh shape: parallelism divided by a count a command gives
    (not known here: neither is the quotient, and there is no division by 0), and under set -u a
    value set on one arm only (bash stops on the other). No FL005 'None is not nullable', no FL002
    for an empty word."""
    result = _lint("stops.sh")
    assert _at(result) == []
    assert any(n.endswith("stops.sh:15: set -u: STEPS is unset on this path; bash stops here") for n in result.notes), result.notes
    assert not [n for n in result.notes if "division by 0" in n]
    assert any(n.endswith("stops.sh:14: dcn_data_parallelism is not judged: its value is not known here") for n in result.notes)


def test_set_u_stops_where_an_argument_is_missing():
    result = _lint("positional_defaults.sh", args=["2", "64", "train_compile"])
    assert _at(result) == [] and any(n.endswith("positional_defaults.sh:8: set -u: $4 is unset on this path; bash stops here")
                                     for n in result.notes)


def test_a_known_division_by_zero_leaves_the_variable_unset(tmp_path):
    # bash abandons the assignment and goes on: the launch gets `ici_data_parallelism=`.
    result = _in(tmp_path, f"N=0\nDP=$((8 / N))\n{TRAIN} ici_data_parallelism=$DP\n")
    assert _at(result) == [("FL005", 3)]


def test_a_value_a_command_gives_splits_into_no_empty_word(tmp_path):
    # $OUT is not known here; the unquoted $SETTINGS ends in blanks: bash makes no empty word of them.
    result = _in(tmp_path, f'OUT=$(mktemp -d)\nSETTINGS="base_output_directory=$OUT steps=1 "\n{TRAIN} $SETTINGS\n')
    assert _at(result) == []


# -- each finding once, and quiet scripts ------------------------------------------------------------


def test_a_finding_in_a_sourced_file_linted_too_is_reported_once(tmp_path):
    (tmp_path / "block.sh").write_text('export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS:-} bogus_key=1"\n')
    for name in ("a.sh", "b.sh"):
        (tmp_path / name).write_text(f'source "$(dirname "$0")/block.sh"\n{TRAIN} $MAXTEXT_EXTRA_FLAGS\n')
    ran = run_flaglint("lint", "--format", "json", ".", cwd=tmp_path)
    findings = json.loads(ran.stdout)["findings"]
    assert [(f["rule"], f["location"]["file"], f.get("reached_from")) for f in findings] == [
        ("FL004", "block.sh", ["a.sh", "b.sh"])], findings


@pytest.mark.slow  # seconds: at 0.2.5 the submission recipe's groups are searched by the solver
def test_the_example_recipes_report_each_finding_once():
    ran = run_flaglint("lint", "--format", "json", "examples/recipes/", cwd=Path(__file__).parents[3])
    findings = json.loads(ran.stdout)["findings"]
    places = [(f["rule"], f["location"]["file"], f["location"]["line"], f["location"]["column"]) for f in findings]
    # 24 findings, each once (MXB527C, `//` on a float, is decided: the 256-chip path's keys that
    # MaxText 0.2.5 does not have are found behind it). The submission recipe follows both
    # variants its sourced file's name takes in the tree (before, after), every launch judged:
    # where its wrapper offloads the context (RAGGED_BUFFER_FACTOR=-1), the before variant keeps
    # the attention projections on device (FL105), a warning the recipe alone never reaches (at its
    # own pin, bbd0f6f10, the before variant's FL101 is found:
    # test_floor_division_on_a_float_is_decided_and_hides_no_finding)
    assert len(places) == len(set(places)) == 24
    assert "FL011" not in {f["rule"] for f in findings}
    assert [(f["location"]["file"], f["location"]["line"], f["reached_from"]) for f in findings if f["rule"] == "FL105"] == [
        ("examples/recipes/mlperf_397b_256_v7x_before.sh", 26, ["examples/recipes/mlperf_gbs1024_submission.sh"])]


def test_a_script_that_launches_nothing_is_quiet_whatever_it_sources():
    ran = run_flaglint("lint", str(SCRIPTS / "no_launch.sh"))
    assert ran.returncode == 0 and "no findings" in ran.stdout, ran.stdout
    assert "process substitution" in ran.stdout  # said in a note


# -- every launch seen ------------------------------------------------------------------------------


def test_the_gate_judges_a_launch_behind_a_file_test_of_a_bash_c_script(tmp_path):
    # A Job whose container checks a mounted directory first: the launch is reached where it holds.
    (tmp_path / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers:\n"
        "      - name: trainer\n        image: img\n        command: [bash, -c]\n        args:\n        - |\n"
        '          if [ ! -d /ckpt ]; then echo "no checkpoint"; exit 1; fi\n'
        f"          {TRAIN} run_name=r bogus_key=1\n")
    ran = run_flaglint("gate", "--format", "json", "job.yaml", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(ran.stdout)["findings"]] == ["FL004"], ran.stdout


@pytest.mark.parametrize("command", [
    "python3 -m MaxText.utils.ckpt_conversion.to_maxtext MaxText/configs/base.yml model_name=llama3.1-8b bogus_key=1",
    "python3 -m MaxText.sft_trainer MaxText/configs/sft.yml bogus_key=1",
    "python3 src/MaxText/utils/ckpt_scripts/llama_mistral_mixtral_orbax_to_hf.py MaxText/configs/base.yml bogus_key=1"
    " hf_model_path=/tmp/hf",
])
def test_entry_points_of_the_maxtext_package_under_their_older_paths_are_checked(tmp_path, command):
    assert [f.rule for f in _in(tmp_path, command + "\n").findings if f.severity == "error"] == ["FL004"]


def test_a_maxtext_module_the_pin_does_not_have_is_named_in_a_note(tmp_path):
    result = _in(tmp_path, "python3 -m MaxText.tests.forward_pass_logit_checker MaxText/configs/base.yml bogus_key=1\n")
    assert any(n.endswith("run.sh:1: MaxText.tests.forward_pass_logit_checker is no module of MaxText 0.2.5 that reads its"
                          " config from the command line: its command line is not checked") for n in result.notes), result.notes


def test_a_renamed_multihost_runner_in_a_loop_hands_its_command_on(tmp_path):
    script = ('for slice in 1 2; do\n  python -u multihost_runner_orig.py --TPU_PREFIX=tpu-$slice '
              f'--COMMAND="{TRAIN} run_name=r bogus_key=1"\ndone\n')
    assert [f.rule for f in _in(tmp_path, script).findings if f.severity == "error"] == ["FL004"]


def test_the_launches_before_a_syntax_error_are_judged(tmp_path):
    script = f'set -e\n{TRAIN} run_name=a bogus_one=1\necho "unclosed $(\n{TRAIN} run_name=b bogus_two=1\n'
    result = _in(tmp_path, script)
    assert sorted((f.rule, f.location.line) for f in result.findings) == [("FL004", 2), ("FL010", 4)]
    assert not result.fixes  # found on part of the script: no edit of it is offered


def test_export_of_a_word_that_is_no_name_fails_and_the_script_goes_on(tmp_path):
    # `export RUN_NAME = "my run"`: bash refuses `=` and "my run" as names and goes on (status 1).
    script = f'{TRAIN} run_name=a bogus_one=1\nexport RUN_NAME = "my run"\n{TRAIN} run_name=b bogus_two=1\n'
    assert _at(_in(tmp_path, script)) == [("FL004", 1), ("FL004", 3)]
    assert _at(_in(tmp_path, "set -e\n" + script)) == [("FL004", 2)]  # under set -e bash stops there


@pytest.mark.parametrize("read", ['echo "${MAX_SEQ_TOKEN_PER_TPU}"', 'echo "${MAXTEXT_EXTRA_FLAGS}"', 'echo "$HF_TOKEN"'])
def test_a_variable_the_launcher_gives_a_default_is_never_the_callers(tmp_path, read):
    """The flags, Tunix's variables and HF_TOKEN keep the launcher's default where the script leaves
    them unset: the flags are judged whole, and the fix is offered as for any script."""
    result = _in(tmp_path, f'{read}\nexport MAXTEXT_EXTRA_FLAGS="num_moe_token_chunks=2 use_ring_of_experts=false"\n')
    assert [f.rule for f in result.findings if f.severity == "error"] == ["MXCQ1N5"] and result.fixes
    assert not [n for n in result.notes if "is not judged" in n]


# -- an undecidable rule, and arithmetic MaxText does on floats -------------------------------------


def test_floor_division_on_a_float_is_decided_and_hides_no_finding():
    # MXB527C reads num_devices * per_device_batch_size // 1 (a float): once FL011 at an unrelated
    # line, hiding every rule of the launch. It is decided now; the 256-chip recipe's FL101 is found.
    recipe = Path(__file__).parents[3] / "examples" / "recipes" / "mlperf_gbs1024_submission.sh"
    ran = run_flaglint("lint", "--pin", "bbd0f6f10", "--format", "json", str(recipe))
    assert "FL011" not in ran.stdout, ran.stdout
    # the before variant, which the sourced file's name takes in the tree, is followed unasked
    assert [(f["rule"], Path(f["location"]["file"]).name, f["witness"]["env"].get("RECIPE_VARIANT"))
            for f in json.loads(ran.stdout)["findings"] if f["severity"] == "error"] == [
        ("FL101", "mlperf_397b_256_v7x_before.sh", "before")], ran.stdout
    before = run_flaglint("lint", "--pin", "bbd0f6f10", "--format", "json", "--env", "RECIPE_VARIANT=before",
                          "--env", "TRAINER_TPU_SLICE=tpu7x:4x8x8", str(recipe))
    found = [(f["rule"], Path(f["location"]["file"]).name, f["location"]["line"]) for f in json.loads(before.stdout)["findings"]
             if f["severity"] == "error"]
    assert found == [("FL101", "mlperf_397b_256_v7x_before.sh", 24)], before.stdout


# -- launchers through xargs and bash -c ------------------------------------------------------------


@pytest.mark.parametrize("runner", [
    'seq 0 3 | xargs -P 4 -I {} bash -c \'echo "worker $1 of $2"; $3\' _ {} 4 "$command"',
    'bash -c \'echo "worker $1 of $2"; $3\' _ 0 4 "$command"',
    "bash -c 'exec $@' _ $command",
])
def test_a_command_a_bash_c_string_runs_from_its_arguments_is_judged(tmp_path, runner):
    result = _in(tmp_path, f'command="{TRAIN} run_name=r bogus_key=1"\n{runner}\n')
    assert [(f.rule, f.location.line) for f in result.findings if f.severity == "error"] == [("FL004", 1)]


def test_a_wrapper_whose_command_starts_nothing_is_no_launch(tmp_path):
    # xargs without -I appends what it reads after the command's words, but the command (kubectl
    # delete, echo) is known: it starts nothing, so the options loop's arguments its words read
    # leave nothing unverified before the Tunix launch
    script = ('NS=default\nDRY=false\nwhile [[ $# -gt 0 ]]; do\n  case "$1" in\n    --namespace) NS="$2"; shift 2 ;;\n'
              '    --dry-run) DRY=true; shift ;;\n    --a) A="$2"; shift 2 ;;\n    --b) B="$2"; shift 2 ;;\n'
              '    *) shift ;;\n  esac\ndone\nif [[ "$DRY" == "true" ]]; then\n'
              '  kubectl get workload -n "$NS" -o name | grep -E "jobset-x" | xargs -r echo kubectl delete -n "$NS"\nelse\n'
              '  kubectl get workload -n "$NS" -o name | xargs -r kubectl delete -n "$NS" --wait=false\nfi\n'
              "python -m tunix.cli.grpo_main base_config.yaml batch_size=4\n")
    result = _in(tmp_path, script)
    assert "FL011" not in {f.rule for f in result.findings}


def test_a_bash_c_argument_bash_would_not_read_as_its_text_is_fl011(tmp_path):
    # `$1` expands to text with a `;` in it: bash does not read it as two commands, flaglint cannot
    # say what the words are
    result = _in(tmp_path, f'command="{TRAIN} run_name=r bogus_key=1; echo done"\nbash -c \'$1\' _ "$command"\n')
    assert [f.rule for f in result.findings if f.severity == "error"] == ["FL011"]


# -- a module's own words before pyconfig -----------------------------------------------------------

CONVERT = ("python3 -m maxtext.checkpoint_conversion.to_maxtext src/maxtext/configs/base.yml model_name=llama3.1-8b"
           " base_output_directory=gs://b/o scan_layers=true")


@pytest.mark.parametrize(("pin", "words", "refused"), [
    # 0.2.5 takes `hf_model_path=…` off the argv itself; 0.2.4 only `--hf_model_path=…`
    ("maxtext-0.2.5", "hf_model_path=/tmp/hf", []),
    ("maxtext-0.2.4", "hf_model_path=/tmp/hf", ["hf_model_path"]),
    ("maxtext-0.2.4", "--hf_model_path=/tmp/hf --save_dtype bfloat16", []),
    ("maxtext-0.2.5", "hf_model_path=/tmp/hf bogus_key=1", ["bogus_key"]),
])
def test_the_conversion_modules_own_options_are_not_pyconfig_keys(tmp_path, pin, words, refused):
    script = tmp_path / "convert.sh"
    script.write_text(f"{CONVERT} {words}\n")
    result = check_script(script, Checker(pin)).result
    assert [k for f in result.findings if f.rule == "FL004" for k in f.keys] == refused


def test_the_last_word_a_conversion_script_reads_itself_is_no_key(tmp_path):
    script = "python3 src/MaxText/utils/ckpt_scripts/llama_mistral_mixtral_orbax_to_hf.py MaxText/configs/base.yml"
    assert not [f for f in _in(tmp_path, f"{script} model_name=llama2-7b hf_model_path=/tmp/hf\n").findings if f.severity == "error"]


# -- inputs a launch depends on: file tests and argument loops --------------------------------------


def test_a_launch_behind_a_directory_test_is_judged(tmp_path):
    script = f'CKPT=/ckpt/llama\nif [ ! -d "$CKPT" ]; then echo missing; exit 1; fi\n{TRAIN} run_name=r bogus_key=1\n'
    assert _at(_in(tmp_path, script)) == [("FL004", 3)]


def test_a_launch_after_an_options_loop_over_the_arguments_is_judged(tmp_path):
    script = ('for arg in "$@"; do\n  case $arg in\n    --model=*) MAXTEXT_MODEL="${arg#*=}" ;;\n  esac\ndone\n'
              '[[ -z ${MAXTEXT_MODEL} ]] && exit 1\n'
              f'{TRAIN} run_name=r model_name=${{MAXTEXT_MODEL}} bogus_key=1\n')
    assert _at(_in(tmp_path, script)) == [("FL004", 7)]


def test_set_u_never_stops_at_a_variable_bash_sets_itself(tmp_path):
    # run_distill_xpk.sh's shape: a workload name from ${RANDOM} under set -u, then the launch
    script = f'set -euo pipefail\n: "${{WORKLOAD:=d-${{RANDOM}}}}"\n{TRAIN} run_name=$WORKLOAD bogus_key=1\n'
    assert _at(_in(tmp_path, script)) == [("FL004", 3)]


@pytest.mark.parametrize(("read", "errors"), [
    # the text of a file beside the script is the command string: its MaxText command line is
    # judged (the finding at the launch: the file's text has no place in the script)
    ('"$(cat host.sh)"', [("FL004", "run.sh")]),
    ('"$(< host.sh)"', [("FL004", "run.sh")]),
    # a file the recipe's tree does not hold is not known: FL011
    ('"$(cat /etc/host.sh)"', [("FL011", "run.sh")]),
])
def test_a_command_string_read_from_a_file_of_the_recipe_is_judged(tmp_path, read, errors):
    # tpu-recipes' GCE benchmarks: gcloud … tpu-vm ssh --worker=all --command="$(cat host.sh)"
    (tmp_path / "host.sh").write_text(f"cd /app\n{TRAIN} run_name=r bogus_key=1\n")
    result = _in(tmp_path, f"gcloud compute tpus tpu-vm ssh $TPU_NAME --worker=all --command={read}\n")
    assert [(f.rule, Path(f.location.file).name) for f in result.findings if f.severity == "error"] == errors


def test_a_maxtext_launch_many_inputs_decide_is_no_tunix_fl011():
    # microbenchmark_llama2-70b_h100-8.sh's shape: an options loop that shifts inside `for arg in
    # "$@"` and two caller variables decide the launch's words together, past the 64 combinations
    # enumerated: the solver judges the MaxText launch, and Tunix's check of it has nothing to judge
    result = _lint("options_loop_many_inputs.sh")
    assert sorted(f.rule for f in result.findings if f.severity == "error") == ["FL004", "FL005"]


# -- a file sourced by a name an input picks --------------------------------------------------------


def test_each_variant_a_sourced_file_name_picks_in_the_tree_is_judged(tmp_path):
    # `source "${DIR}/v_${VARIANT:-after}.sh"`: the script never compares VARIANT, but the tree holds
    # v_before.sh beside v_after.sh; the variant's error is found, with its witness
    (tmp_path / "v_before.sh").write_text('export MAXTEXT_EXTRA_FLAGS="steps=10 stepz=20"\n')
    (tmp_path / "v_after.sh").write_text('export MAXTEXT_EXTRA_FLAGS="steps=10"\n')
    (tmp_path / "v_.sh").write_text("exit 3\n")  # an empty variant is no value of a name the default fills
    result = _in(tmp_path, 'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\nsource "${DIR}/v_${VARIANT:-after}.sh"\n'
                           f"{TRAIN} $MAXTEXT_EXTRA_FLAGS\n")
    errors = [f for f in result.findings if f.severity == "error"]
    assert [(f.rule, Path(f.location.file).name) for f in errors] == [("FL004", "v_before.sh")]
    assert errors[0].witness["env"] == {"VARIANT": "before"}


# -- a command word that expands to nothing, and variables read by name -----------------------------


def test_a_launch_behind_a_command_word_that_is_empty_is_judged_once_on_its_line():
    # MaxText's mlperf offline scripts' shape: `${RUNNER} python3 -m …` with RUNNER empty unless -n,
    # its words reading eight caller variables each defaulted by `[ -z "$X" ]`. bash drops the
    # empty word and runs python3: the launch is judged (it was FL011 over 3**8 combinations, after
    # forking on each variable in turn, past a minute)
    result = _lint("dry_run_prefix.sh")
    assert _at(result) == [("FL004", 31)]
    assert result.findings[0].witness["env"] == {"$#": "0"}


def test_the_launch_only_echoed_under_the_dry_run_switch_is_no_launch():
    assert _at(_lint("dry_run_prefix.sh", args=["-n"])) == []


def test_a_program_of_neither_maxtext_nor_tunix_behind_an_empty_command_word_has_nothing_to_judge():
    # `python3 -m serve_offline … --engine "model_name=… tokenizer_path=${VOCAB} …"`: no FL011 of
    # Tunix's check over its caller variables; no value they are judged at names Tunix
    assert _at(_lint("dry_run_other_program.sh")) == []


def test_a_variable_checked_by_name_is_set_on_the_path_that_launches():
    # MaxText's run_distill_xpk.sh shape: `[ -z "${!name:-}" ]` over the names a helper is given,
    # one of them read with a default first. The launch is reached where both are set (it was read
    # as unset there, so no path launched)
    result = _lint("required_by_name.sh")
    assert _at(result) == [("FL004", 16)]
    assert result.findings[0].witness["env"] == {"JOB_BUCKET": "<any other value>", "JOB_ZONE": "<any other value>"}


def test_a_launch_whose_program_a_branch_picks_is_judged(tmp_path):
    # `"$PY" -m maxtext…` with PY a virtual environment's python or python3: the program is what
    # each path gives (the launch was missed: its program word stayed a choice, no program at all)
    script = f'if [ -n "$VENV" ]; then PY="$VENV/bin/python"; else PY=python3; fi\n"$PY" {TRAIN.removeprefix("python3 ")} run_name=r bogus_key=1\n'
    assert _at(_in(tmp_path, script)) == [("FL004", 2)]

"""An option a script reads before it loads the file that compares it: a submit script whose
option is handed to the script it runs (`RUN_PACKING="${PACKING}" bash train.sh`, google/tunix's
math_gsm8k_dist/submit_gsm8k.sh and its `--image`), where only that script compares it. The values
the later file compares it with are explored too: the script is explored again with that file
loaded from the start."""

from __future__ import annotations

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate, render
from flaglint.render.bash import symbolic

PIN = "bbd0f6f10"
DPO_AND_PACKING = {"MXXYHDE", "MXG84NB"}  # MaxText refuses use_dpo with packing
TRAIN = "python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml"


def _launched_words(rendering) -> list:
    return [w.text for launch in rendering.launched for w in launch.words] + [
        word for handoff in rendering.handoffs for word in _launched_words(handoff)]


def test_a_variable_compared_only_in_a_file_sourced_after_it_is_read_is_named_not_explored(tmp_path):
    # google/tunix's k8s_launcher.sh sets TRAINER_BACKEND=${TRAINER_BACKEND:-tunix}, then sources
    # common/maxtext_config.sh, which switches on `maxtext`: that run is not explored, and says so
    (tmp_path / "main.sh").write_text(
        '#!/bin/bash\nexport TRAINER_BACKEND=${TRAINER_BACKEND:-tunix}\nFLAGS="steps=10 packing=true"\n'
        'source "$(dirname "${BASH_SOURCE[0]}")/backend.sh"\n' f"{TRAIN} $FLAGS\n")
    (tmp_path / "backend.sh").write_text('if [[ "${TRAINER_BACKEND}" == "dpo" ]]; then\n  FLAGS="$FLAGS use_dpo=true"\nfi\n')
    result = check_script(tmp_path / "main.sh", Checker(PIN)).result
    assert [n for n in result.notes if "not explored" in n] == [
        "variables read before a file that compares them is loaded, not explored with the values it compares them with:"
        " TRAINER_BACKEND=dpo (--env NAME=VALUE checks a run with one)"]
    # the run the note names: the conflict is found there
    given = check_script(tmp_path / "main.sh", Checker(PIN), fixed={"TRAINER_BACKEND": "dpo"}).result
    assert DPO_AND_PACKING <= {f.rule for f in given.findings}
    assert not [n for n in given.notes if "not explored" in n]


def test_an_option_handed_to_a_script_it_runs_takes_the_values_that_script_compares_it_with(tmp_path):
    (tmp_path / "submit.sh").write_text(
        '#!/bin/bash\nPACKING=false\nDPO=false\nwhile [[ $# -gt 0 ]]; do\n  case "$1" in\n'
        '    --packing) PACKING="$2"; shift 2 ;;\n    --dpo) DPO="$2"; shift 2 ;;\n'
        '    *) echo "unknown $1" >&2; exit 1 ;;\n  esac\ndone\n'
        'RUN_PACKING="${PACKING}" RUN_DPO="${DPO}" bash "${BASH_SOURCE[0]%/*}/train.sh"\n')
    (tmp_path / "train.sh").write_text(
        '#!/bin/bash\nFLAGS="steps=10"\nif [[ "$RUN_DPO" == "true" ]]; then FLAGS="$FLAGS use_dpo=true"; fi\n'
        'if [[ "$RUN_PACKING" == "true" ]]; then FLAGS="$FLAGS packing=true"; else FLAGS="$FLAGS packing=false"; fi\n'
        f"{TRAIN} $FLAGS\n")
    findings = [f for f in check_script(tmp_path / "submit.sh", Checker(PIN)).result.findings if f.rule in DPO_AND_PACKING]
    assert {f.rule for f in findings} == DPO_AND_PACKING
    for finding in findings:
        env = finding.witness["env"]
        args = [env[f"${i}"] for i in range(1, int(env["$#"]) + 1)]
        assert sorted(zip(args[::2], args[1::2])) == [("--dpo", "true"), ("--packing", "true")]
        words = _launched_words(render(tmp_path / "submit.sh", {}, None, args))
        assert "use_dpo=true" in words and "packing=true" in words


def test_files_that_each_compare_what_the_one_before_read_are_explored_a_bounded_number_of_times(tmp_path, monkeypatch):
    # an option's value handed on from file to file, each comparing it with a value of its own:
    # one more exploration per file found late, up to symbolic.PASSES; past them, the values found so far
    files = 6
    options = 'while [[ $# -gt 0 ]]; do\n  case "$1" in\n    --v) V0="$2"; shift 2 ;;\n    *) exit 1 ;;\n  esac\ndone\n'
    for i in range(files):
        nxt = f'V{i + 1}="${{V{i}}}" bash "${{BASH_SOURCE[0]%/*}}/s{i + 1}.sh"\n' if i + 1 < files else f"{TRAIN} steps=$V{i}\n"
        check = f'if [[ "$V{i}" == "{i}" ]]; then echo {i}; fi\n' if i else options
        (tmp_path / f"s{i}.sh").write_text(f"#!/bin/bash\n{check}{nxt}")
    explored = []

    class Counted(symbolic.Interp):  # one interpreter an exploration
        def __init__(self, *args, **kwargs):
            explored.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(symbolic, "Interp", Counted)
    exploration = evaluate(tmp_path / "s0.sh")
    assert len(explored) == symbolic.PASSES
    assert exploration.outcomes

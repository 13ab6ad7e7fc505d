"""The judged sweep's classifier (bench/judging.py) on verdicts written here: what each class
means, the key match that tells a found error from one on another key, what lint printed as the
launch's verdict, and the grep-level cross-check for launches flaglint did not report."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from judging import (  # noqa: E402
    ACCEPTED,
    FALSE_ERROR,
    FOUND,
    MISSED,
    NOT_VERIFIED,
    OTHER_KEY,
    as_linted,
    classify,
    unseen,
)


def error(rule, *keys, message="m"):
    return {"rule": rule, "keys": list(keys), "message": message}


@pytest.mark.parametrize(("flaglint", "refused", "expected"), [
    ([error("FL004", "steps")], "ValueError: steps must be a positive integer", FOUND),
    ([error("FL101", "ici_fsdp_parallelism", "ici_tensor_parallelism")],
     "AssertionError: Number of devices 8 does not match the product of ici_tensor_parallelism", FOUND),
    ([error("FL004", "steps")], "ValueError: warmup_steps_fraction out of range", OTHER_KEY),
    ([], None, ACCEPTED),
    ([error("FL016", "tokenizer_path")], None, ACCEPTED),
    ([error("FL004", "model_name")], None, FALSE_ERROR),
    ([], "ValueError: quantization fp9 unknown", MISSED),
])
def test_each_class_from_both_verdicts(flaglint, refused, expected):
    assert classify(flaglint, refused).cls == expected


def test_a_key_is_met_only_as_a_whole_word():
    # `steps` is not the key `warmup_steps` MaxText names, nor `steps_per_eval`
    judged = classify([error("FL004", "steps")], "ValueError: warmup_steps=0 and steps_per_eval=-1")
    assert judged.cls == OTHER_KEY
    assert (judged.ours, judged.theirs) == ("FL004 steps", "ValueError: warmup_steps=0 and steps_per_eval=-1")


def test_a_finding_on_no_key_meets_the_word_it_quotes():
    empty_word = error("FL002", message="'' has an empty key")
    assert classify([empty_word], "ValueError: '' not in 'emb_dim', 'mlp_dim'").cls == FOUND
    assert classify([empty_word], "ValueError: 'steps' must be positive").cls == OTHER_KEY


def test_a_check_that_names_no_key_meets_by_its_sentence():
    dcn = error("MXRQ7R8", "dcn_data_parallelism", "num_slices",
                message="DCN parallelism requested but only one slice available. (dcn_data_parallelism=16, num_slices=-1)")
    assert classify([dcn], "ValueError: DCN parallelism requested but only one slice available.").cls == FOUND
    assert classify([dcn], "ValueError: Only one slice.").cls == OTHER_KEY  # too short a sentence to tell


def test_not_verified_names_the_construct_whatever_the_program_says():
    construct = "a loop over the output of a command is not followed"
    for refused in (None, "ValueError: steps"):
        judged = classify([error("FL011", message=construct), error("FL004", "steps")], refused)
        assert (judged.cls, judged.construct) == (NOT_VERIFIED, construct)


def test_a_check_flaglint_cannot_judge_excuses_a_miss_only():
    not_judged = error("FL016", "tokenizer_path", message="reads a file on the trainer's disk")
    assert classify([not_judged], "FileNotFoundError: tokenizer").cls == NOT_VERIFIED
    assert classify([not_judged], "FileNotFoundError: tokenizer").construct == "reads a file on the trainer's disk"
    assert classify([not_judged, error("FL004", "steps")], "ValueError: steps").cls == FOUND


LAUNCH = {"file": "run.sh", "line": 7, "flaglint": [error("FL004", "steps"), error("FL016", "tokenizer_path")]}


def lint_finding(rule, line, severity="error", message="m"):
    return {"rule": rule, "severity": severity, "message": message, "location": {"file": "run.sh", "line": line}}


def test_the_launch_verdict_is_what_lint_printed():
    printed = [lint_finding("FL004", 3), lint_finding("FL016", 7, "warning")]
    assert [f["rule"] for f in as_linted(LAUNCH, printed, [])] == ["FL004", "FL016"]
    # a rule lint did not print for the script is not the user's verdict
    assert as_linted(LAUNCH, [lint_finding("FL016", 7, "warning")], []) == [LAUNCH["flaglint"][1]]


def test_fl011_at_the_launch_line_or_a_path_not_made_concrete_is_not_verified():
    at_line = as_linted(LAUNCH, [lint_finding("FL011", 7, message="a loop is not followed")], [])
    assert classify(at_line, None).construct == "a loop is not followed"
    elsewhere = as_linted(LAUNCH, [lint_finding("FL011", 9, message="a loop is not followed")], [])
    assert all(f["rule"] != "FL011" for f in elsewhere)
    path = as_linted(LAUNCH, [], [{"file": "run.sh", "line": 7, "reason": "over the path cap"}])
    assert classify(path, None).construct == "over the path cap"
    hung = as_linted(LAUNCH, [], [], hang="did not end within 120 s")
    assert classify(hung, None).construct == "did not end within 120 s"


SCRIPT = """\
#!/bin/bash
# python3 -m maxtext.train base.yml   (a comment: not a launch)
python3 -m maxtext.train src/maxtext/configs/base.yml steps=10
python3 -m MaxText.train MaxText/configs/base.yml \\
  steps=20
xpk workload create --workload w \\
  --command "cd /app &&
    python3 -m maxtext.train base.yml steps=30"
python -m tunix.cli.grpo_main base_config.yaml batch_size=2
python3 src/maxtext/decode.py base.yml
python3 train.py --lr 1
echo python3 is here
"""


def test_unseen_lists_launch_lines_flaglint_did_not_report():
    assert [line for line, _ in unseen(SCRIPT, set())] == [3, 4, 8, 9, 10, 11]
    # each reported at its command's first line: the continued and the quoted ones count there
    assert unseen(SCRIPT, {3, 4, 6, 9, 10}) == [(11, "python3 train.py --lr 1")]

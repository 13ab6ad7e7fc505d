"""The safe fixes of Tunix command lines against the real Tunix 0.1.7 (tests/tunix_env.py): a command
line with planted defects that Tunix refuses (or silently ignores) is, after flaglint's safe fixes,
one the real Tunix takes, and Tunix merges it into the config it merges from the same command line
without the defects, as a safe fix promises."""

from __future__ import annotations

from pathlib import Path

import pytest
from oracle.tunix_differential import CLEAN, ORACLE, PROGRAM
from tunix_env import run_in_tunix, tunix_python, unavailable

from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.read.argv import shell_words
from flaglint.tunix.launch import TunixCommand
from flaglint.tunix.pins import load_tunix_pin

pytestmark = pytest.mark.oracle

VERSION = "0.1.7"
# Each: the words planted in a clean command line, the T_ variables, and the clean words they stand
# for (a retyped value is written as Tunix types it).
PLANTED = [
    (["batch_sise=4"], {}, []),  # a top-level key the base does not define: refused at start-up
    ([], {"T_BATCH_SIZE": "1"}, []),  # batch_size=1 set by a word and by T_: refused at start-up
    (["grpo_config.num_generationz=3"], {}, []),  # not a field of GrpoConfig: refused after downloads
    (["tokenizer_config.tokenizer_pathh=/tmp/t"], {}, []),  # a nested key Tunix ignores
    (["num_batches=200.0"], {}, ["num_batches=200"]),  # retyped to 200 (at 0.1.7 at least max_steps, 100)
    (["batch_sise=4", "num_batches=200.0", "grpo_config.num_generationz=3"], {}, ["num_batches=200"]),
]

MERGED = ORACLE.split("OUTPUT = []")[0] + r'''
import json
OUTPUT = []
for case in INPUT:
    for name in [k for k in os.environ if k.startswith("T_") or k == "HF_TOKEN"]:
        del os.environ[name]
    os.environ.update(case["env"])
    try:
        hp = config.HyperParameters([case["program"], *case["argv"]])
        builders(hp, case["entry"], {})  # no dataset whose length is known: max_steps is held to num_batches alone
    except BaseException as err:
        OUTPUT.append({"refused": f"{type(err).__name__}: {str(err)[:200]}"})
    else:
        OUTPUT.append({"refused": None, "config": json.loads(json.dumps(dict(hp.config), default=str))})
'''


def _safe_fixed(words: list[str], env: dict[str, str]) -> list[str]:
    pin = load_tunix_pin(f"tunix-{VERSION}")
    command = TunixCommand("grpo_main", PROGRAM.format(entry="grpo_main"), 0)
    for _ in range(4):
        checked = check_tunix_words(pin, command, words, env, (Path.cwd(),), fix=True)
        safe = [f for f in checked.fixes if f.safe]
        if not safe:
            return words
        words = [t.text for t in shell_words(safe[0].flags)]
    raise AssertionError(words)


def test_the_real_tunix_takes_the_safely_fixed_command_line_as_the_one_without_the_defects():
    if tunix_python(VERSION) is None:
        pytest.skip(unavailable(VERSION))
    clean = ["base_config.yaml", *CLEAN["grpo_main"][0]]
    cases = []
    for planted, env, meant in PLANTED:
        original = [*clean, *planted]
        fixed = _safe_fixed(original, env)
        assert fixed != original
        cases += [(original, env), (fixed, env), ([*clean, *meant], {})]
    given = [{"entry": "grpo_main", "program": PROGRAM.format(entry="grpo_main"), "argv": argv, "env": env} for argv, env in cases]
    answers = run_in_tunix(VERSION, MERGED, given)
    for at, (planted, _, _) in enumerate(PLANTED):
        original, fixed, meant = answers[3 * at:3 * at + 3]
        assert meant["refused"] is None, (planted, meant)
        assert fixed["refused"] is None, (planted, fixed, cases[3 * at + 1][0])
        assert fixed["config"] == meant["config"], planted
        if any(word.startswith(("batch_sise", "grpo_config.num_generationz")) for word in planted) or "T_BATCH_SIZE" in cases[3 * at][1]:
            assert original["refused"] is not None, planted  # the defect is one Tunix stops on


def test_the_real_tunix_takes_the_renamed_key_of_the_unsafe_fix_as_the_key_meant():
    if tunix_python(VERSION) is None:
        pytest.skip(unavailable(VERSION))
    pin = load_tunix_pin(f"tunix-{VERSION}")
    command = TunixCommand("grpo_main", PROGRAM.format(entry="grpo_main"), 0)
    clean = ["base_config.yaml", *CLEAN["grpo_main"][0]]
    planted = {"max_target_lenght=512": "max_target_length=512", "grpo_config.epsilonn=0.3": "grpo_config.epsilon=0.3"}
    original = [*clean, *planted]
    fixes = check_tunix_words(pin, command, original, {}, (Path.cwd(),), fix=True).fixes
    unsafe = next(fix for fix in fixes if not fix.safe)
    renamed = [t.text for t in shell_words(unsafe.flags)]
    meant = [*clean, *planted.values()]
    assert sorted(renamed) == sorted(meant)
    given = [{"entry": "grpo_main", "program": PROGRAM.format(entry="grpo_main"), "argv": argv, "env": {}}
             for argv in (original, renamed, meant)]
    refused, fixed, expected = run_in_tunix(VERSION, MERGED, given)
    assert refused["refused"] is not None and fixed["refused"] is None and fixed["config"] == expected["config"]


# The guesses of the unsafe fix (a mesh shape to its axis names' length, an optimizer name to the
# nearest the release takes), per release: the word planted in place of the clean word, and what
# the fix must make of it.
GUESSES = {
    "0.1.0": [("model_config.mesh.shape=(4,1,1)", "model_config.mesh.shape=(4,1)"),
              ("optimizer_config.opt_type=sgdd", "optimizer_config.opt_type=sgd")],
    "0.1.7": [("model_config.mesh.shape=(4,1,1)", "model_config.mesh.shape=(4,1)"),
              ("optimizer_config.opt_type=adamz", "optimizer_config.opt_type=adam")],
}


@pytest.mark.parametrize("version", sorted(GUESSES))
def test_the_real_tunix_takes_the_mesh_and_optimizer_the_unsafe_fix_guesses(version):
    if tunix_python(version) is None:
        pytest.skip(unavailable(version))
    pin = load_tunix_pin(f"tunix-{version}")
    command = TunixCommand("peft_main", PROGRAM.format(entry="peft_main"), 0)
    clean = ["base_config.yaml", *CLEAN["peft_main"][0]]
    cases = []
    for planted, meant in GUESSES[version]:
        key = planted.split("=")[0]
        original = [w for w in clean if not w.startswith(f"{key}=")] + [planted]
        unsafe = [fix for fix in check_tunix_words(pin, command, original, {}, (Path.cwd(),), fix=True).fixes if not fix.safe]
        fixed = [t.text for t in shell_words(unsafe[0].flags)]
        assert fixed == [*original[:-1], meant]
        cases += [original, fixed]
    given = [{"entry": "peft_main", "program": PROGRAM.format(entry="peft_main"), "argv": argv, "env": {}} for argv in cases]
    answers = run_in_tunix(version, MERGED, given)
    for at, (planted, _) in enumerate(GUESSES[version]):
        refused, fixed = answers[2 * at:2 * at + 2]
        assert refused["refused"] is not None and fixed["refused"] is None, (planted, refused, fixed)

"""`flaglint lint` of scripts that run `python -m tunix.cli.<entry>` (tests/frontends/lint/tunix/,
written with the constructs of Tunix's example scripts): every branch, the override file the
command names, XPK's --command, arguments forwarded to another script, T_ variables and HF_TOKEN
from the launch's environment; each finding at the word or line that set the value, with its
stage and witness."""

from __future__ import annotations

import json

import pytest
from commandline import REPO, run_flaglint

SCRIPTS = REPO / "tests" / "frontends" / "lint" / "tunix"


def lint(script: str, *args: str) -> tuple[int, list[dict]]:
    done = run_flaglint("lint", "--format", "json", *args, script, cwd=SCRIPTS)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)["findings"]


def at(findings: list[dict], rule: str) -> list[tuple]:
    return [(f["location"]["file"], f["location"]["line"], f["stage"], f["witness"]["env"]) for f in findings if f["rule"] == rule]


def test_a_grpo_recipe_is_checked_on_every_branch_with_its_override_file():
    code, findings = lint("grpo_recipe.sh")
    assert code == 1
    assert at(findings, "FL212") == [("grpo_recipe.sh", 17, "after downloads", {"MODE": "small"})]  # the branch that sets it
    assert at(findings, "FL204")[0][:3] == ("grpo_recipe.sh", 19, "start-up")  # batch_sise
    assert at(findings, "TX13FFD") == [("configs/run.yaml", 3, "start-up", {})]  # model_source: "hf" in the override file
    assert at(findings, "FL208")[0][:3] == ("grpo_recipe.sh", 21, "never checked")  # use_flash_attn
    assert not at(findings, "FL205")  # the exported T_NUM_BATCHES names a key the words leave alone
    assert not any(f["rule"] == "FL012" for f in findings)  # the script runs Tunix: no MAXTEXT_EXTRA_FLAGS expected


def test_a_t_variable_the_script_exports_meets_the_word_that_sets_its_key(tmp_path):
    script = tmp_path / "conflict.sh"
    script.write_text("export T_BATCH_SIZE=8\npython -m tunix.cli.grpo_main base_config.yaml batch_size=4 "
                      "tokenizer_config.tokenizer_path=/t tokenizer_config.tokenizer_type=sentencepiece\n")
    _, findings = lint(str(script))
    assert [(f["rule"], f["location"]["line"]) for f in findings if f["rule"] == "FL205"] == [("FL205", 2)]


def test_a_command_line_inside_an_xpk_command_string_is_placed_in_the_string():
    _, findings = lint("xpk_peft.sh")
    family = [f for f in findings if f["stage"] == "start-up"]
    assert [(f["location"]["line"], f["location"]["column"]) for f in family] == [(6, 5)]  # model_source=huggingface for gemma3


def test_the_dashed_form_of_tunix_docs_dies_in_absl_at_the_words_the_caller_wrote():
    code, findings = lint("forwards.sh")
    assert code == 1
    assert [(f["rule"], f["location"]["file"], f["location"]["line"]) for f in findings] == [
        ("FL201", "forwards.sh", 4), ("FL201", "forwards.sh", 5)]


def test_hf_token_is_an_input_whose_presence_decides():
    _, findings = lint("hub_tokenizer.sh")
    token = [f for f in findings if "HF_TOKEN" in f["keys"]]
    assert token and token[0]["witness"]["env"] == {"HF_TOKEN": None} and token[0]["stage"] == "start-up"
    code, clean = lint("clean.sh")  # exports HF_TOKEN (with a default) before the launch
    assert code == 0 and {f["rule"] for f in clean} == {"FL211"}


@pytest.mark.parametrize(("pin", "expected"), [("0.1.5", "FL204"), ("0.1.7", None)])
def test_the_tunix_pin_decides_what_a_word_means(pin, expected):
    """override_config_file is a word of its own from 0.1.6; before, a key the base does not define."""
    _, findings = lint("grpo_recipe.sh", "--tunix-pin", pin)
    unknown = [f for f in findings if f["rule"] == "FL204" and "override_config_file" in f["message"]]
    assert bool(unknown) == (expected is not None)


def test_a_tunix_launch_that_cannot_be_decided_is_not_verified_even_where_nothing_else_is_checked(tmp_path):
    # thirteen switches write one word together, 2^13 texts: more than the 4096 command lines a
    # launch's word is checked on, so the one launch is FL011, never a clean exit because no
    # MaxText or Tunix command line was checked
    names = "ABCDEFGHIJKLM"
    switches = "".join(f'[[ "${name}" == 1 ]] && {name.lower()}=1 || {name.lower()}=2\n' for name in names)
    script = tmp_path / "undecided.sh"
    script.write_text(switches + f'python -m tunix.cli.grpo_main base_config.yaml "training_config.max_steps={"".join("$" + n.lower() for n in names)}"\n')
    code, findings = lint(str(script))
    assert code == 1
    assert [(f["rule"], f["location"]["line"]) for f in findings] == [("FL011", 14)]
    assert ", ".join(names) in findings[0]["message"]


def test_a_tunix_launch_of_a_few_thousand_texts_is_checked_on_each(tmp_path):
    # seven switches write one word together: its 2^7 command lines are each checked (a finding
    # of the base config is reported, no FL011)
    switches = "".join(f'[[ "${name}" == 1 ]] && {name.lower()}=1 || {name.lower()}=2\n' for name in "ABCDEFG")
    script = tmp_path / "decided.sh"
    script.write_text(switches + 'python -m tunix.cli.grpo_main base_config.yaml "training_config.max_steps=$a$b$c$d$e$f$g"\n')
    _, findings = lint(str(script))
    assert "FL011" not in {f["rule"] for f in findings}
    assert {"FL211", "TXSS7T5"} <= {f["rule"] for f in findings}

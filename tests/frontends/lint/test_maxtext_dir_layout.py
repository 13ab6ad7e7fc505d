"""Recipes of the MaxText/ package (MaxText 0.1.0 and before: `python3 MaxText/train.py
MaxText/configs/base.yml …`): judged by the bundled maxtext-0.1.0 when the settings choose it, and
told which pin judged them; with no pin set, told how to choose 0.1.0's."""

from __future__ import annotations

import re
from pathlib import Path

from commandline import run_flaglint

from flaglint.frontends.checker import Checker
from flaglint.maxtext.launch import recognise
from flaglint.pins.pins import bundled_pins, load_pin
from flaglint.read.flags import FlagSource
from flaglint.rules.ruleset import load_ruleset
from flaglint.schema.config_index import load_index

SCRIPT = Path(__file__).with_name("scripts") / "maxtext_dir_layout.sh"
LAYOUT_NOTE = "lines 10, 13: the config is in the MaxText/ layout of MaxText 0.1.0 and before; judged by"


def _errors(stdout: str) -> list[tuple[int, int, str]]:
    """(line, column, rule) of each error the text report lists for the script."""
    return [(int(m[1]), int(m[2]), m[3]) for m in re.finditer(rf"^\S*{SCRIPT.name}:(\d+):(\d+): error (\S+)", stdout, re.M)]


def test_the_0_1_0_pin_loads_with_base_yml_keys_and_pyconfig_checks():
    assert bundled_pins()[0] == "maxtext-0.1.0"
    pin = load_pin("0.1.0")
    assert pin.pin == "maxtext-0.1.0" and pin.version == "0.1.0" and pin.rules == "0.1.0"
    assert pin.keys["kv_quant_axis"].kind == "str" and pin.default("kv_quant_axis") == "heads_and_dkv"
    assert pin.default("model_fsdp_ag_once") is False
    rules = [r for r in load_ruleset(pin.rules).rules if r.id.startswith("MX")]
    # pyconfig.py's checks, with the TypeError of an empty value it computes with, constant_bound_config's
    # piece count, and the compile topology lookup of accelerator_to_spec_map.py
    assert len(rules) == 126 and all(r.pins == ("maxtext-0.1.0",) for r in rules)
    assert all(r.source.startswith(("MaxText/pyconfig.py:", "MaxText/accelerator_to_spec_map.py:")) for r in rules)


def test_a_key_of_0_1_0_only_is_known_there_and_unknown_at_0_2_5():
    flags = FlagSource("model_fsdp_ag_once=true")
    assert not [f for f in Checker("maxtext-0.1.0").check(flags, fix=False).findings if f.severity == "error"]
    (unknown,) = [f for f in Checker("maxtext-0.2.5").check(flags, fix=False).findings if f.severity == "error"]
    assert unknown.rule == "FL004" and "not a key of MaxText 0.2.5" in unknown.message
    assert "(a key at 0.1.0)" in unknown.message


def test_only_a_config_under_maxtext_configs_is_the_maxtext_dir_layout():
    index = load_index("0.1.0")
    assert recognise(["python3", "MaxText/train.py", "MaxText/configs/base.yml", "steps=1"], index).old_layout
    assert recognise(["python3", "-m", "MaxText.train", "src/MaxText/configs/models/gpu/llama2_7b.yml"], index).old_layout
    assert not recognise(["python3", "-m", "MaxText.train", "src/maxtext/configs/base.yml"], index).old_layout
    assert not recognise(["python3", "-m", "MaxText.train", "run_name=x"], index).old_layout


def test_with_the_0_1_0_pin_findings_are_at_the_words_and_the_note_names_the_pin():
    done = run_flaglint("lint", "--isolated", "--pin", "maxtext-0.1.0", str(SCRIPT))
    assert done.returncode == 1, done.stdout
    # kv_quant_axis and profiler are refused by 0.1.0's pyconfig; model_fsdp_ag_once is its key
    assert _errors(done.stdout) == [(12, 25, "MXF2YSW"), (13, 70, "MXGD0PM")], done.stdout
    assert f"{LAYOUT_NOTE} maxtext-0.1.0 (--pin)" in done.stdout


def test_a_maxtext_requirement_of_0_1_0_chooses_the_pin(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("jax==0.6.0\nmaxtext==0.1.0\n")
    done = run_flaglint("lint", "--isolated", "--requirements", str(requirements), str(SCRIPT))
    assert [rule for _, _, rule in _errors(done.stdout)] == ["MXF2YSW", "MXGD0PM"], done.stdout
    assert f"{LAYOUT_NOTE} maxtext-0.1.0 (--requirements {requirements})" in done.stdout


def test_without_a_pin_the_note_says_which_pin_judged_and_how_to_choose_0_1_0():
    done = run_flaglint("lint", "--isolated", str(SCRIPT))
    assert (11, 19, "FL004") in _errors(done.stdout)  # model_fsdp_ag_once: not a key of 0.2.5
    assert f"{LAYOUT_NOTE} maxtext-0.2.5, the default pin" in done.stdout
    assert "give --pin maxtext-0.1.0" in done.stdout


def test_a_command_line_of_src_maxtext_gets_no_layout_note(tmp_path):
    script = tmp_path / "train.sh"
    script.write_text("python3 -m maxtext.trainers.pre_train.train src/maxtext/configs/base.yml run_name=x steps=10\n")
    done = run_flaglint("lint", "--isolated", str(script))
    assert done.returncode == 0 and "MaxText/ layout" not in done.stdout, done.stdout

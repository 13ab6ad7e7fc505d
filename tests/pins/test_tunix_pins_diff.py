"""`flaglint pins diff` of two Tunix pins: the same tables and JSON as for two MaxText pins, over the
base YAMLs' keys and the imported checks (whose ids are one check at every Tunix pin)."""

from __future__ import annotations

import json

import pytest
from commandline import run_flaglint

from flaglint.pins.pindiff import diff_pins
from flaglint.tunix.pins import bundled_tunix_pins, load_tunix_pin


def diff(*args: str) -> str:
    done = run_flaglint("pins", "diff", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_text_has_maxtexts_counts_and_tables():
    lines = diff("tunix-0.1.6", "tunix-0.1.7").splitlines()
    maxtext = diff("maxtext-0.2.4", "maxtext-0.2.5").splitlines()
    assert lines[0] == "tunix-0.1.6 -> tunix-0.1.7" and lines[2:10] == [
        "change              count",
        "keys added          53",
        "keys removed        0",
        "keys retyped        0",
        "defaults changed    6",
        "validators added    2",
        "validators changed  6",
        "validators removed  2",
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[2:10]] == [line.split()[0] for line in maxtext[2:10]]
    text = "\n".join(lines)
    assert "\n  model_config.use_flash_attention\n" in text  # a key of base_config.yaml
    assert "\n  base_agentic_config.yaml:grpo_config\n" in text  # a section of the new base file, not its keys
    assert "base_agentic_config.yaml:grpo_config.beta" not in text
    assert '  model_config.model_name            "llama3.1-8b" -> "llama-3.1-8b"' in text
    # model_source's choices, with maxtext added: one check of the same function, new id
    assert "validators changed (what the same function checks, with other constants):" in text
    assert "  TXJ1RNK  TX13FFD  HyperParameters._validate_model_source" in text


def test_the_json_has_maxtexts_fields():
    tunix = json.loads(diff("tunix-0.1.6", "tunix-0.1.7", "--format", "json"))
    maxtext = json.loads(diff("maxtext-0.2.4", "maxtext-0.2.5", "--format", "json"))
    assert tunix.keys() == maxtext.keys() and tunix["counts"].keys() == maxtext["counts"].keys()
    assert (tunix["from"], tunix["to"]) == ("tunix-0.1.6", "tunix-0.1.7")
    assert {"from": {"id": "TXJ1RNK", "title": tunix["validators_changed"][2]["from"]["title"],
                     "function": "HyperParameters._validate_model_source"},
            "to": {"id": "TX13FFD", "title": tunix["validators_changed"][2]["to"]["title"],
                   "function": "HyperParameters._validate_model_source"}} in tunix["validators_changed"]
    assert {"key": "num_batches", "field": "default", "from": 3738, "to": 0} in tunix["defaults_changed"]


@pytest.mark.parametrize("pin", bundled_tunix_pins())
def test_a_pin_against_itself_changes_nothing(pin):
    assert not any(diff_pins(pin, pin).counts().values())


@pytest.mark.parametrize("old, new", list(zip(bundled_tunix_pins(), bundled_tunix_pins()[1:])))
def test_every_check_of_the_new_pin_is_kept_added_or_changed(old, new):
    changes = diff_pins(old, new)
    kept = {r.id for r in load_tunix_pin(old).rules} & {r.id for r in load_tunix_pin(new).rules}
    listed = {v.id for v in changes.validators_added} | {n.id for _, n in changes.validators_changed}
    assert kept | listed == {r.id for r in load_tunix_pin(new).rules} and not kept & listed
    gone = {v.id for v in changes.validators_removed} | {o.id for o, _ in changes.validators_changed}
    assert kept | gone == {r.id for r in load_tunix_pin(old).rules}


@pytest.mark.parametrize(("old", "new", "message"), [
    ("maxtext-0.2.5", "tunix-0.1.7", "pins diff compares two MaxText pins or two Tunix pins, not maxtext-0.2.5 and tunix-0.1.7"),
    ("tunix-0.1.7", "tunix-9.9", "unknown Tunix pin 'tunix-9.9'"),
])
def test_a_pair_that_cannot_be_compared_is_one_line_exit_2(old, new, message):
    done = run_flaglint("pins", "diff", old, new)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1

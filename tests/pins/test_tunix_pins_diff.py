"""`flaglint pins diff` of two Tunix pins: the same tables and JSON as for two MaxText pins, over the
base YAMLs' keys and the imported checks (whose ids are one check at every Tunix pin)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from commandline import run_flaglint

from flaglint.pins.pindiff import diff_pins, diff_tunix_pins
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
        "validators added    0",
        "validators changed  8",
        "validators removed  0",
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[2:10]] == [line.split()[0] for line in maxtext[2:10]]
    text = "\n".join(lines)
    assert "\n  model_config.use_flash_attention\n" in text  # a key of base_config.yaml
    assert "\n  base_agentic_config.yaml:grpo_config\n" in text  # a section of the new base file, not its keys
    assert "base_agentic_config.yaml:grpo_config.beta" not in text
    assert '  model_config.model_name            "llama3.1-8b" -> "llama-3.1-8b"' in text
    # model_source's choices, with maxtext added: one check of the same function, new id
    assert "validators changed (the same check of a function, checking another condition):" in text
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


def changed_ids(old: str, new: str) -> list[tuple[str, str]]:
    return [(o.id, n.id) for o, n in diff_pins(old, new).validators_changed]


def test_a_check_whose_condition_changed_is_changed_not_removed_and_added():
    # 0.1.7 asks for HF_TOKEN only for a tokenizer path that is neither local nor gs://: the second
    # raise of _validate_tokenizer changed its condition, and the third (no tokenizer path) is
    # reached on other paths; each is the changed check at its place in the function
    assert ("TXN2387", "TXSS7T5") in changed_ids("tunix-0.1.6", "tunix-0.1.7")
    assert ("TXZG1SH", "TXT3NBV") in changed_ids("tunix-0.1.6", "tunix-0.1.7")
    # 0.1.6 spells each model family two ways and allows `internal`: the four raises of
    # check_supported_workflow pair in their order (gemma3, gemma2, gemma, the others)
    old, new = load_tunix_pin("tunix-0.1.5"), load_tunix_pin("tunix-0.1.6")
    pairs = [(o, n) for o, n in diff_tunix_pins(old, new).validators_changed if o.source.endswith("check_supported_workflow")]
    requires = {r.id: r.require_text for r in (*old.rules, *new.rules)}
    assert sorted((requires[o.id], requires[n.id]) for o, n in pairs) == [
        ("model_config.model_source in ('gcs',)", "model_config.model_source in ('gcs', 'internal')"),
        ("model_config.model_source in ('huggingface',)", "model_config.model_source in ('huggingface', 'internal')"),
        ("model_config.model_source in ('kaggle',)", "model_config.model_source in ('kaggle', 'internal')"),
        ("model_config.model_source in ('kaggle',)", "model_config.model_source in ('kaggle', 'internal')"),
    ]
    whens = {r.id: r.when_text for r in (*old.rules, *new.rules)}
    gemma3 = next(n for o, n in pairs if whens[o.id] == "startswith(model_config.model_name, 'gemma3')")
    assert whens[gemma3.id] == "startswith(model_config.model_name, 'gemma3') or startswith(model_config.model_name, 'gemma-3')"


def test_checks_of_another_function_or_unequal_in_number_are_not_paired():
    changes = diff_pins("tunix-0.1.5", "tunix-0.1.6")  # check_positive became is_positive_integer
    assert [v.source for v in changes.validators_removed] == ["check_positive"]
    assert "is_positive_integer" in [v.source for v in changes.validators_added]
    # 0.1.2 rewrote RLTrainingConfig.__post_init__'s two raises: each is paired with its successor
    changes = diff_pins("tunix-0.1.1", "tunix-0.1.2")
    assert [(o.id, n.id) for o, n in changes.validators_changed] == [("TXH0RC9", "TXR8MXC"), ("TXXSS8Y", "TX11FSE")]
    # with one of the two gone, the function's raises are unequal in number: none is paired
    old, new = load_tunix_pin("tunix-0.1.1"), load_tunix_pin("tunix-0.1.2")
    one = replace(new, rules=tuple(r for r in new.rules if r.id != "TXR8MXC"))
    changes = diff_tunix_pins(old, one)
    assert not changes.validators_changed
    assert {"TXH0RC9", "TXXSS8Y"} <= {v.id for v in changes.validators_removed}


@pytest.mark.parametrize("field, value", [
    ("message", "Tunix 0.1.7 stops at start-up, before any download: another message"),
    ("require_text", "model_config.model_source in ('kaggle',)"),
    ("stage", "after downloads"),
])
def test_a_check_with_one_id_at_both_pins_that_checks_or_says_another_thing_is_changed(field, value):
    # a pin imported otherwise than the bundled ones may keep an id for a check it changed
    old, new = load_tunix_pin("tunix-0.1.6"), load_tunix_pin("tunix-0.1.7")
    edited = replace(new, rules=tuple(r.replace(**{field: value}) if r.id == "TXS96YR" else r for r in new.rules))
    assert ("TXS96YR", "TXS96YR") in [(o.id, n.id) for o, n in diff_tunix_pins(new, edited).validators_changed]
    assert not any(diff_tunix_pins(new, new).counts().values())
    # the message names its release: that alone is no change
    assert not diff_tunix_pins(old, old).validators_changed


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

"""A Tunix model section with `model_source: maxtext` (Tunix 0.1.7): the MaxText argv Tunix builds
for it (`base.yml model_name=<from model_id> load_parameters_path=… skip_jax_distributed_system=true
hf_access_token=…`) is checked at the MaxText pin, each finding at the Tunix word that set the
value, labelled with Tunix's stage; a key under the section's `kwargs` never reaches MaxText."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from commandline import REPO, run_flaglint
from hypothesis import given
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.frontends.tunix_commands import check_tunix_words
from flaglint.read.argv import argv_source
from flaglint.tunix.launch import recognise_tunix
from flaglint.tunix.maxtext_model import model_name_from_id, naming_refusal
from flaglint.tunix.pins import load_tunix_pin

PEFT = ("--", "python", "-m", "tunix.cli.peft_main", "base_config.yaml", "model_config.model_source=maxtext",
        "tokenizer_config.tokenizer_path=/t", "tokenizer_config.tokenizer_type=sentencepiece")


def check(*args: str) -> tuple[int, dict]:
    done = run_flaglint("check", "--format", "json", *args)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_the_model_name_tunix_derives_is_checked_at_the_maxtext_pin():
    code, result = check(*PEFT, "model_config.model_id=meta-llama/Llama-3.1-8B")
    assert code == 1
    [finding] = [f for f in result["findings"] if f["rule"] == "FL005"]
    assert "'llama-3.1-8b'" in finding["message"] and "llama3.1-8b" in finding["message"]
    assert "the MaxText argv Tunix 0.1.7 builds for model_config" in finding["message"] and "maxtext-0.2.5" in finding["message"]
    assert finding["stage"] == "after downloads"
    text = argv_text(PEFT[4:] + ("model_config.model_id=meta-llama/Llama-3.1-8B",))
    assert text[finding["location"]["column"] - 1:].startswith("model_config.model_id=")  # the Tunix word that set it


def test_a_model_maxtext_knows_is_clean_and_other_sources_build_no_maxtext_argv():
    # qwen3-8b: a model family Tunix names (tunix/models/naming.py) and a model MaxText defines
    assert check(*PEFT, "model_config.model_id=Qwen/Qwen3-8B")[0] == 0
    hub = [a if a != "model_config.model_source=maxtext" else "model_config.model_source=gcs" for a in PEFT]
    _, result = check(*hub, "model_config.model_id=meta-llama/Llama-3.1-8B", "model_config.model_path=gs://b/m")
    assert not any("MaxText argv" in f["message"] for f in result["findings"])


def test_a_maxtext_model_name_tunix_cannot_name_stops_before_maxtext_reads_it():
    # llama3.1-8b is MaxText's name, but Tunix's ModelNaming knows only llama-3.1-… (Hugging Face) or llama3p1_…
    code, result = check(*PEFT, "model_config.model_id=llama3.1-8b")
    assert code == 1
    [finding] = result["findings"]
    assert finding["rule"] == "FL215" and finding["stage"] == "after downloads"
    assert "Tunix 0.1.7 names the model 'llama3.1-8b'" in finding["message"] and "llama-3.1-" in finding["message"]
    text = argv_text(PEFT[4:] + ("model_config.model_id=llama3.1-8b",))
    assert text[finding["location"]["column"] - 1:].startswith("model_config.model_id=llama3.1-8b")


def test_the_maxtext_pin_is_the_one_selected():
    # qwen2.5-7b is a MaxText model at 0.2.5 and not at 0.2.0
    args = (*PEFT, "model_config.model_id=Qwen/Qwen2.5-7B")
    at_new = [f for f in check(*args)[1]["findings"] if "MaxText argv" in f["message"]]
    at_old = [f for f in check("--pin", "maxtext-0.2.0", *args)[1]["findings"] if "MaxText argv" in f["message"]]
    assert not at_new and [f["rule"] for f in at_old] == ["FL005"] and "maxtext-0.2.0" in at_old[0]["message"]


def test_a_key_under_kwargs_never_reaches_maxtext():
    _, result = check(*PEFT, "model_config.model_id=Qwen/Qwen3-8B", "model_config.kwargs.base_emb_dim=4096")
    [finding] = [f for f in result["findings"] if f["rule"] == "FL208"]
    assert finding["stage"] == "never checked" and "model_config.kwargs.base_emb_dim never reaches the model" in finding["message"]


def test_before_0_1_7_tunix_builds_no_maxtext_model():
    assert load_tunix_pin("0.1.6").maxtext_model is None
    _, result = check("--tunix-pin", "0.1.6", *PEFT, "model_config.model_id=meta-llama/Llama-3.1-8B")
    assert not any("MaxText argv" in f["message"] for f in result["findings"])
    assert any(f["rule"].startswith("TX") and "model_source not in" in f["message"] for f in result["findings"])  # refused itself


def test_a_word_tunix_writes_that_flaglint_cannot_follow_is_fl011():
    pin = load_tunix_pin("0.1.7")
    facts = json.loads(json.dumps(pin.maxtext_model))
    facts["words"][0]["value"] = {"unknown": "naming_info.other_name"}
    changed = dataclasses.replace(pin, maxtext_model=facts)
    words = list(PEFT[4:]) + ["model_config.model_id=Qwen/Qwen3-8B"]
    checked = check_tunix_words(changed, recognise_tunix(list(PEFT[1:5])), words, {}, (Path.cwd(),),
                                maxtext=lambda: Checker("maxtext-0.2.5"))
    [unverified] = [f for f in checked.findings if f.rule == "FL011"]
    assert "naming_info.other_name" in unverified.message and unverified.severity == "error"


def test_a_script_that_runs_a_maxtext_model_is_checked_on_every_branch():
    done = run_flaglint("lint", "--format", "json", "maxtext_model.sh", cwd=REPO / "tests" / "frontends" / "lint" / "tunix")
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    [model] = [f for f in findings if f["rule"] == "FL005"]
    assert (model["location"]["line"], model["stage"], model["witness"]["env"]) == (10, "after downloads", {"FROM_HUB": "1"})
    assert [f["location"]["line"] for f in findings if f["rule"] == "FL208"] == [11]


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-._", min_size=1, max_size=20),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12))
def test_a_hub_id_gives_its_last_part_in_lower_case(name, owner):
    derived = model_name_from_id(f"{owner}/{name}")
    lowered = name.lower()
    assert derived == (lowered.replace("meta-llama-", "llama-", 1) if lowered.startswith("meta-llama-") else lowered)
    assert model_name_from_id("Gemma2_2B_IT") == "gemma2_2b_it"


def argv_text(words: tuple[str, ...]) -> str:
    return argv_source(list(words)).text


FAMILIES = load_tunix_pin("0.1.7").maxtext_model["model_families"]


@given(st.sampled_from(FAMILIES["hub"]), st.text(alphabet="abcxyz0189", max_size=6))
def test_a_name_of_a_known_family_is_taken_and_one_of_no_family_is_refused(family, version):
    assert naming_refusal(family + version, FAMILIES) is None
    unknown = "zz" + family  # no family starts with zz
    assert "none of the model families" in naming_refusal(unknown, FAMILIES)
    assert "version" in naming_refusal(family + "_" + version + "x", FAMILIES)


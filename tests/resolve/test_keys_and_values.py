"""Resolving a flag string: keys against the pin's schema (did-you-mean, the pins that define a key), values typed as MaxText types them, the last token of a key wins, Tunix variables and the keys they bind."""

import json

from commandline import run_flaglint


def _json(proc):
    return json.loads(proc.stdout)


def test_undefined_key_with_suggestion_location_and_defining_pins():
    proc = run_flaglint("check", "--format", "json", "log_period=100 moe_chunk_pipline=true")
    assert proc.returncode == 1
    (finding,) = _json(proc)["findings"]
    assert finding["rule"] == "FL004" and finding["keys"] == ["moe_chunk_pipline"]
    assert finding["location"] == {"file": None, "line": 1, "column": 16, "end_column": 38}
    defined = run_flaglint("check", "--format", "json", "moe_chunk_pipeline=true")
    message = _json(defined)["findings"][0]["message"]
    assert "not a key of MaxText 0.2.5" in message and "e526ea02" in message and "bbd0f6f10" in message


def test_did_you_mean():
    proc = run_flaglint("check", "log_perod=100")
    assert "did you mean log_period" in proc.stdout


def test_every_problem_at_once_with_positions():
    proc = run_flaglint("check", "--format", "json", "log_period=1.5 context=Offload num_moe_token_chunks=0 bogus")
    rules = sorted((f["rule"], f["location"]["column"]) for f in _json(proc)["findings"])
    assert rules == [("FL001", 55), ("FL005", 1), ("FL005", 16), ("FL005", 32)]


def test_overridden_key_is_info_with_both_positions():
    proc = run_flaglint("check", "--format", "json", "log_period=1 log_period=2")
    assert proc.returncode == 0
    (finding,) = _json(proc)["findings"]
    assert finding["rule"] == "FL003" and finding["severity"] == "info"
    assert finding["location"]["column"] == 1 and finding["related"][0]["column"] == 14
    assert run_flaglint("check", "--fail-on", "info", "log_period=1 log_period=2").returncode == 1


def test_tunix_variables_named_by_their_variable():
    proc = run_flaglint("check", "--format", "json", "--env", "PACK_PAD_POSITION=middle", "log_period=1")
    (finding,) = _json(proc)["findings"]
    assert finding["rule"] == "FL008" and finding["keys"] == ["PACK_PAD_POSITION"]


def test_tunix_bindings_reach_maxtext_keys():
    # TRAINER_MESH_EXPERT=2 gives ici_expert_parallelism=2, so the ring of experts is allowed.
    proc = run_flaglint("check", "--env", "TRAINER_MESH_EXPERT=2", "num_moe_token_chunks=2 use_ring_of_experts=true")
    assert proc.returncode == 0, proc.stdout
    assert run_flaglint("check", "num_moe_token_chunks=2 use_ring_of_experts=true").returncode == 1

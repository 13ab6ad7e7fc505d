"""The compiler's answers read as verdicts: answers recorded from real compiles of MaxText 0.2.5's
train step for v5e-8 (jax 0.12.0.1, libtpu 0.0.52; tests/memory/recorded/, written by
flaglint/memory/compile_runner.py), and messages in both of libtpu's out-of-memory forms."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flaglint.memory.verdict import (
    FAILED,
    FITS,
    GIB,
    OUT_OF_MEMORY,
    Verdict,
    labelled,
    out_of_memory,
    read_answer,
)

RECORDED = Path(__file__).with_name("recorded")


def recorded(name: str) -> dict:
    return json.loads((RECORDED / name).read_text())


def test_a_fitting_train_step_reports_its_peak_against_the_chip_the_compiler_names():
    verdict = read_answer(recorded("default-batch1-v5e-8.json"))
    assert verdict.outcome == FITS
    assert verdict.required == 2868462080  # jax's peak_memory_in_bytes, not argument + output + temp - alias
    assert verdict.capacity == round(15.75 * GIB)  # a v5e chip, as libtpu states it
    assert verdict.headroom == round(15.75 * GIB) - 2868462080
    assert verdict.versions == {"maxtext": "0.2.5", "jax": "0.12.0.1", "jaxlib": "0.12.0.1", "libtpu": "0.0.52"}


def test_a_train_step_near_the_line_fits_with_the_headroom_its_peak_leaves():
    verdict = read_answer(recorded("default-batch32-v5e-8.json"))  # batch 32: 14.49 GiB of 15.75
    assert verdict.outcome == FITS and verdict.required == 15556186112
    assert verdict.headroom == round(15.75 * GIB) - 15556186112


def test_an_out_of_memory_train_step_reports_what_it_needs_and_what_the_chip_has():
    verdict = read_answer(recorded("default-batch64-v5e-8.json"))
    assert verdict.outcome == OUT_OF_MEMORY
    assert verdict.capacity == round(15.75 * GIB)
    assert verdict.required > verdict.capacity


@pytest.mark.parametrize(("text", "need", "have"), [
    ("RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: Ran out of memory on HBM, the total memory required for HLO temporaries "
     "(15.92G) exceeds available HBM (15.75G). HLO module: jit_train_step.", 15.92, 15.75),
    ("RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used 33.27G of 30.75G hbm. Exceeded hbm capacity by 2.52G.",
     33.27, 30.75),
    ("... required for HLO temporaries (512.00M) exceeds available HBM (95.74G)", 0.5, 95.74),
])
def test_both_forms_of_libtpus_message_give_the_figures_in_bytes(text, need, have):
    assert out_of_memory(text) == (round(need * GIB), round(have * GIB))


@given(st.decimals(0, 10_000, places=2), st.decimals(0, 10_000, places=2))
def test_figures_round_trip_through_the_message(need, have):
    text = f"E1000: CompileTimeHbmOom: the total memory required for HLO temporaries ({need}G) exceeds available HBM ({have}G)."
    assert out_of_memory(text) == (round(float(need) * GIB), round(float(have) * GIB))


def test_another_failure_is_labelled_and_keeps_the_message():
    verdict = read_answer({"versions": {}, "error": "AssertionError: You must set compile_topology_num_slices to a positive integer"})
    assert verdict.outcome == FAILED
    assert verdict.message == "the compile failed: You must set compile_topology_num_slices to a positive integer"
    status = labelled("jax.errors.JaxRuntimeError: INVALID_ARGUMENT: Mesh axis sizes do not divide the devices")
    assert status == "the compiler refused the program: INVALID_ARGUMENT: Mesh axis sizes do not divide the devices"


def test_a_verdict_survives_the_cache_as_json():
    verdict = read_answer(recorded("default-batch1-v5e-8.json"))
    assert Verdict.from_json(json.loads(json.dumps(verdict.to_json()))) == verdict

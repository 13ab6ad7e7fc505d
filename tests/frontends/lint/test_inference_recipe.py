"""An inference microbenchmark launcher (tests/frontends/lint/scripts/inference_bench.sh): an option loop
over "$@", stages read from a comma-separated list with `read -ra <<<`, a default for each unset
input, the longest prefill picked from a list, then one MaxText command line. lint follows it to
the command line and finds the three keys MaxText 0.2.5 refuses, each where the script wrote it
and with only the input whose absence gives it (tests/oracle/test_channels_oracle.py confirms
each on the real MaxText)."""

from __future__ import annotations

from pathlib import Path

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script

SCRIPT = Path(__file__).with_name("scripts") / "inference_bench.sh"


def _errors():
    result = check_script(SCRIPT, Checker()).result
    return [f for f in result.findings if f.severity != "info"]


def test_the_refused_keys_are_found_at_their_words_with_their_inputs():
    lines = SCRIPT.read_text().splitlines()
    found = {}
    for f in _errors():
        word = lines[f.location.line - 1][f.location.column - 1:].split("=", 1)[0]
        found[word] = (f.rule, {k: v for k, v in f.witness["env"].items()})
    # With no arguments: `--stages=VALUE` of a stage the script does not know makes it exit first.
    none = {"$#": "0"}
    assert found == {
        "inference_microbenchmark_prefill_lengths": ("FL005", {**none, "PREFILLS": None}),  # 1024 is no string
        "kv_quant_dtype": ("FL005", {**none, "KV_DTYPE": None}),  # fp8: int8 or int4 only
        "quantization": ("FL005", {**none, "QUANT": None}),  # aqt_fp8 is no quantization mode
        # KV_QUANT is set only with the default KV_DTYPE: given KV_DTYPE, quantize_kvcache= is None
        "quantize_kvcache": ("FL005", {**none, "KV_DTYPE": "<any other value>", "KV_QUANT": None}),
    }


def test_the_longest_prefill_is_read_from_the_list_not_left_unknown():
    assert not [f for f in _errors() if "max_prefill_predict_length" in f.message]

"""The bundled releases 0.1.0, 0.2.0, 0.2.3, 0.2.4 and 0.2.5: each is what its wheel regenerates,
each works as a pin, and a key undefined at one pin names the pins that define it."""

from __future__ import annotations

import json
import shutil

import pytest
from maxtext_env import RELEASES, REPO, maxtext_wheel, unavailable

from flaglint.frontends.checker import Checker
from flaglint.importer.importer import import_schema, write_schema
from flaglint.importer.validators import write_rules
from flaglint.pins.pins import load_pin
from flaglint.read.flags import FlagSource
from flaglint.rules.ruleset import load_ruleset
from flaglint.schema.model import MaxTextSchemaFile

# Keys (top level) per release, as MaxTextConfig.model_fields counts them (0.1.0: base.yml's keys).
KEYS = {"0.1.0": 384, "0.2.0": 638, "0.2.3": 734, "0.2.4": 774, "0.2.5": 865}


@pytest.mark.oracle
@pytest.mark.parametrize("version", RELEASES)
def test_each_bundled_release_is_what_its_wheel_regenerates(version, tmp_path):
    wheel = maxtext_wheel(version)
    if wheel is None:
        pytest.skip(unavailable("wheel", version))
    schema = import_schema(wheel)
    write_schema(schema, tmp_path / "schema.json")
    assert (tmp_path / "schema.json").read_text() == (REPO / "schemas" / f"maxtext-{version}.json").read_text()
    write_rules(wheel, tmp_path / "rules", schema=schema)
    for name in ("rules.yml", "derived.yml", "unexpressible.yml"):
        assert (tmp_path / "rules" / name).read_text() == (REPO / "rules" / "maxtext" / version / name).read_text(), name


@pytest.mark.parametrize("version", RELEASES)
def test_each_release_is_a_pin_with_its_own_keys_and_rules(version):
    data = json.loads((REPO / "schemas" / f"maxtext-{version}.json").read_text())
    schema = MaxTextSchemaFile.model_validate(data)
    assert schema.version == version
    assert len([k for k in schema.keys if "." not in k]) == KEYS[version]
    pin = load_pin(version)
    assert pin.pin == f"maxtext-{version}" and pin.rules == version
    rules = [r for r in load_ruleset(pin.rules).rules if r.id.startswith("MX")]
    assert rules and all(r.pins == (f"maxtext-{version}",) for r in rules)
    # a run-time default is recorded as its expression, never guessed
    cache = schema.keys["jax_cache_dir"]
    if version not in ("0.1.0", "0.2.5"):  # 0.1.0 takes base.yml's value as it is
        assert cache.default is None and "expanduser" in cache.default_at_runtime


@pytest.mark.parametrize(
    "version, flags, rules",
    [
        ("0.2.0", "ici_fsdp_parallelism=x", ["FL005"]),
        ("0.2.0", "adamw_mask=x", ["FL005"]),  # no list coercion in 0.2.0's pyconfig
        ("0.2.3", "adamw_mask=x", []),
        ("0.2.0", "use_tokamax_splash=true use_jax_splash=true", ["FL014", "MXT3BVZ"]),  # as at 0.2.5
        ("0.2.3", "check_vma=true use_ring_of_experts=true", ["MXBHBWH"]),
        ("0.2.4", "num_moe_token_chunks=2", ["MXCQ1N5"]),
        # 0.2.4 has the EP-rank check too: a ring of experts needs expert parallelism
        ("0.2.4", "use_ring_of_experts=true num_moe_token_chunks=2", ["MXKF2FV"]),
        ("0.2.4", "use_ring_of_experts=true num_moe_token_chunks=2 ici_expert_parallelism=2", []),
    ],
)
def test_checks_at_a_bundled_release(version, flags, rules):
    result = Checker(f"maxtext-{version}").check(FlagSource(flags), fix=False)
    assert [f.rule for f in result.findings if f.severity == "error"] == rules


@pytest.mark.parametrize("version, refused", [("0.2.0", []), ("0.2.3", ["FL006"]), ("0.2.4", ["FL006"]), ("0.2.5", ["FL006"])])
def test_a_model_file_conflict_is_refused_from_0_2_3_on(version, refused):
    # 0.2.0's pyconfig merges base, model, then argv: the command line wins silently
    result = Checker(f"maxtext-{version}").check(FlagSource("model_name=llama2-7b base_emb_dim=1024"), fix=False)
    assert [f.rule for f in result.findings if f.severity == "error"] == refused
    env = Checker(f"maxtext-{version}", model="llama2-7b").check(FlagSource("steps=3"), {"M_BASE_EMB_DIM": "1024"}, fix=False)
    assert [f.rule for f in env.findings if f.severity == "error"] == (["FL041"] if refused else [])


def test_an_undefined_key_names_every_pin_that_defines_it():
    result = Checker("maxtext-0.2.0").check(FlagSource("num_moe_token_chunks=2"), fix=False)
    (finding,) = [f for f in result.findings if f.rule == "FL004"]
    assert "not a key of MaxText 0.2.0" in finding.message
    assert "(a key at 0.2.4, 0.2.5, 22fa0c559" in finding.message
    # not misspelled, so no "did you mean" of itself or of its neighbours at other pins
    assert "did you mean" not in finding.message and finding.message.count("a key") == 2


def test_a_wheel_without_types_py_is_refused(tmp_path):
    wheel = maxtext_wheel("0.2.5")
    if wheel is None:
        pytest.skip(unavailable("wheel", "0.2.5"))
    import zipfile

    stripped = tmp_path / "maxtext-0.2.5-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(stripped, "w") as out:  # stored: deflating 13 MB again takes seconds
        for item in source.infolist():
            if not item.filename.endswith("configs/types.py"):
                out.writestr(item.filename, source.read(item.filename))
    from flaglint.core.findings import InputError

    with pytest.raises(InputError, match="holds no maxtext/configs/types.py"):
        import_schema(stripped)
    shutil.rmtree(tmp_path)


@pytest.mark.parametrize("version", RELEASES)
def test_a_message_says_the_values_its_validator_computed(version):
    # MaxText words these with a local (num_stages = ici * dcn pipeline parallelism) and with an
    # expression over a key (max_ngram_size - 1): the finding says their values.
    result = Checker(f"maxtext-{version}").check(FlagSource("ici_pipeline_parallelism=2 dcn_pipeline_parallelism=2 num_pipeline_microbatches=6"), fix=False)
    (stages,) = [f for f in result.findings if "microbatches" in f.message and "stages" in f.message]
    assert "number of stages (4)" in stages.message and "{" not in stages.message
    if version == "0.1.0":
        return  # no engram keys before 0.2.0
    engram = Checker(f"maxtext-{version}").check(FlagSource("engram_max_ngram_size=3 engram_layers=[1]"), fix=False)
    assert any("expected 2" in f.message for f in engram.findings), [f.message for f in engram.findings]


@pytest.mark.parametrize("version", RELEASES)
def test_an_empty_batch_size_is_an_error_at_every_release(version):
    # 0.1.0 passes `key=` on as None and fails computing with it (TypeError); 0.2.0 and later refuse
    # None for a key that is not nullable
    result = Checker(f"maxtext-{version}").check(FlagSource("per_device_batch_size="), fix=False)
    errors = [f for f in result.findings if f.severity == "error"]
    assert errors and all("per_device_batch_size" in f.message for f in errors)
    assert errors[0].rule == ("MX0THKX" if version == "0.1.0" else "FL005")


@pytest.mark.parametrize("version", [v for v in RELEASES if v != "0.1.0"])
def test_from_0_2_0_every_number_that_is_not_nullable_refuses_an_empty_value(version):
    pin = load_pin(version)
    checker = Checker(pin.pin)
    numbers = [k for k, s in pin.keys.items() if "." not in k and s.kind in ("int", "float") and not s.nullable]
    passed = [k for k in numbers if not any(f.severity == "error" for f in checker.check(FlagSource(f"{k}="), fix=False).findings)]
    assert numbers and passed == []


@pytest.mark.parametrize(("flags", "rules"), [
    ("per_device_batch_size=", ["MX0THKX"]),  # calculate_global_batch_sizes multiplies it
    ("eval_per_device_batch_size=", ["MXN2DR1"]),  # compared with 0
    ("adam_b1=", []),  # pyconfig passes it on untouched
    ("run_name=", []),
    ("mesh_axes=", ["FL005"]),  # a list key takes no other value, None included
    ("attention_type=chunk", ["MXDMDFG"]),  # base.yml's window size is 0
    ("attention_type=chunk chunk_attn_window_size=", ["MXDMDFG"]),
    ("attention_type=chunk chunk_attn_window_size=4", []),
    ("compile_topology=", []),  # an empty topology is not looked up
    ("constant_bound_config=", ["FL005"]),  # validate_constant_bound splits it at ','
    ("constant_bound_config=0.5,x", ["FL005"]),  # and reads each piece as a float
    ("mu_dtype=adam_pax", ["MXZVKH5"]),  # a word no numpy reads as a dtype
    ("mu_dtype=float8_e4m3fn", []),  # ml_dtypes' name: not judged (FL016), a warning
])  # fmt: skip
def test_an_empty_value_at_0_1_0_is_judged_as_its_pyconfig_treats_none(flags, rules):
    result = Checker("maxtext-0.1.0").check(FlagSource(flags), fix=False)
    assert [f.rule for f in result.findings if f.severity == "error"] == rules

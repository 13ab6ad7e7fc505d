"""Every rule as a (rule, good case, bad case) pair from its own data, and the fixes the solver proposes."""

import itertools
import re
import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flaglint.frontends.check.tunix_argv import check_tunix_argv
from flaglint.frontends.checker import Checker, argv_with_chain
from flaglint.maxtext.mesh import MESH_AXIS
from flaglint.read.flags import FlagSource
from flaglint.resolve.topology import from_option
from flaglint.rules.ruleset import load_ruleset
from flaglint.schema.config_index import load_index
from flaglint.solve.rules import applicable, holds, rule_names
from flaglint.solve.solutions import fixed_names

ROOT = Path(__file__).parents[2]
RULES = load_ruleset("0.2.5").rules
HAND_WRITTEN = [r for r in RULES if r.id.startswith("FL")]


def _case(rule, example):
    """The checker, flags and environment of an example; one of another config class (RLConfig) is
    judged as an entry point that validates with it, after MaxText's config it names (`config`)."""
    example = {"flags": example} if isinstance(example, str) else example
    # a rule of one config class names it after its pins: maxtext-0.2.5/RLConfig
    pin = example.get("pin") or (rule.pins[0].split("/")[0] if rule.pins else "maxtext-0.2.5")
    checker = Checker(pin, example.get("model"))
    if example.get("config_class"):
        checker = checker.for_config_class(example["config_class"])
    env = {k: str(v) for k, v in (example.get("env") or {}).items() if k != "__line__"}
    source = FlagSource(example.get("flags", ""))
    if example.get("config"):
        config = f"src/maxtext/configs/{example['config']}"
        source = argv_with_chain(example.get("flags", "").split(), config, load_index(checker.pin.configs))
    return checker, source, env


def _tunix_rules(example) -> set[str] | None:
    """The rules a Tunix command line example breaks (None: the example is a flag string's)."""
    if not isinstance(example, dict) or "tunix" not in example:
        return None
    env = {k: str(v) for k, v in (example.get("env") or {}).items() if k != "__line__"}
    devices = from_option(example["topology"], 1, "0.2.5") if example.get("topology") else None
    _, result = check_tunix_argv(tuple(shlex.split(example["tunix"])), example.get("tunix_pin"), env, devices)
    return {f.rule for f in result.findings}


@pytest.mark.parametrize("rule", HAND_WRITTEN, ids=lambda r: r.id)
def test_good_example_passes(rule):
    assert "good" in rule.examples, f"{rule.id} has no good example"
    tunix = _tunix_rules(rule.examples["good"])
    if tunix is not None:
        assert rule.id not in tunix
        return
    checker, source, env = _case(rule, rule.examples["good"])
    result = checker.check(source, env)
    assert rule.id not in {f.rule for f in result.findings}


# Checked on inputs the examples cannot carry: FL009 (a 1 MB string) in test_check_cli.py, the script
# and suppression rules in tests/lint/, the config-file rules in tests/channels/, FL090 (it needs a rule
# no flags satisfy) in test_rule_that_cannot_hold_is_reported, FL017 (`flaglint smoke` runs the
# trainer core) in tests/cli/test_ux.py, FL018 and FL019 (`flaglint memory` compiles the train
# step) in tests/memory/.
ELSEWHERE = {"FL009", "FL010", "FL011", "FL017", "FL018", "FL019", "FL020", "FL021", "FL022", "FL043", "FL090"}


@pytest.mark.parametrize("rule", [r for r in HAND_WRITTEN if r.id not in ELSEWHERE], ids=lambda r: r.id)
def test_bad_example_is_caught_and_every_fix_rechecks_clean(rule):
    tunix = _tunix_rules(rule.examples["bad"])
    if tunix is not None:
        assert rule.id in tunix
        return
    checker, source, env = _case(rule, rule.examples["bad"])
    result = checker.check(source, env)
    assert rule.id in {f.rule for f in result.findings}
    for fix in result.fixes:
        env_after = dict(env)
        for change in (c for c in fix.changes if c.key.isupper()):
            if change.to is None:
                env_after.pop(change.key, None)
            else:
                env_after[change.key] = str(change.to).lower() if isinstance(change.to, bool) else str(change.to)
        again = checker.check(FlagSource(fix.flags), env_after)
        assert not [f for f in again.findings if f.rule == rule.id]


def test_every_rule_has_the_metadata_docs_need():
    for rule in RULES:
        assert rule.title and rule.rationale and rule.source and rule.severity in ("error", "warning", "info")


def _imported(function: str) -> str:
    """The id of the rule imported from MaxText's validator `function`."""
    return next(r.id for r in RULES if r.id.startswith("MX") and r.source.endswith(function))


@pytest.mark.parametrize(
    ("function", "good", "bad"),
    [
        ("MoEGeneral.validate_moe_chunks", "num_moe_token_chunks=2 use_ring_of_experts=true ici_expert_parallelism=2", "num_moe_token_chunks=4"),
        ("MaxTextConfig.set_derived_and_validate_values", "ici_expert_parallelism=2 use_ring_of_experts=true", "use_ring_of_experts=true"),
    ],
)
def test_maxtexts_own_validators_are_imported_rules(function, good, bad):
    ids = {r.id for r in RULES if r.id.startswith("MX") and r.source.endswith(function)}
    assert ids & {f.rule for f in Checker().check(FlagSource(bad)).findings}
    assert not ids & {f.rule for f in Checker().check(FlagSource(good)).findings}


def test_the_chain_is_found_not_the_first_rules_obvious_fix():
    # Measured on MaxText 0.2.5: chunks > 1 need the ring, the ring is forbidden at EP rank 1.
    result = Checker().check(FlagSource("num_moe_token_chunks=4"))
    assert {f.rule for f in result.findings} == {_imported("MoEGeneral.validate_moe_chunks")}
    (fix,) = [f for f in result.fixes if len(f.changes) == 1]
    assert [(c.key, c.from_, c.to) for c in fix.changes] == [("num_moe_token_chunks", 4, 1)]
    assert fix.flags == "" and not fix.safe  # fewer chunks: a number in effect changes
    assert all(len(f.changes) == 1 for f in result.fixes)


def test_all_violations_reported_at_once():
    result = Checker("bbd0f6f10").check(
        FlagSource("moe_roe_packed_routing_gather=true moe_chunk_pipeline=false context=offload qkv_proj=device moe_wi_gmm_fused_swiglu=true moe_wo_gmm_fused_dswiglu=true"),
        {"TUNIX_LOGPS_SHARDED_HEAD": "off", "COMPUTE_LOGPS_CHUNK_SIZE": "4096", "TRAINER_FP8": "true"},
    )
    assert {f.rule for f in result.findings} >= {"FL101", "FL105", "FL107", "FL114", "FL115"}
    gather = next(f for f in result.findings if f.rule == "FL101")
    assert gather.location.column == 36  # the token that set moe_chunk_pipeline=false
    assert "moe_chunk_pipeline=false" in gather.message


def test_tied_fixes_are_listed_in_a_stable_order():
    first = Checker("bbd0f6f10").check(FlagSource("moe_roe_packed_routing_gather=true moe_chunk_pipeline=false num_moe_token_chunks=2 use_ring_of_experts=true ici_expert_parallelism=2"))
    second = Checker("bbd0f6f10").check(FlagSource("moe_roe_packed_routing_gather=true moe_chunk_pipeline=false num_moe_token_chunks=2 use_ring_of_experts=true ici_expert_parallelism=2"))
    assert [f.to_json() for f in first.fixes] == [f.to_json() for f in second.fixes]
    assert sorted(tuple(c.key for c in f.changes) for f in first.fixes) == [("moe_chunk_pipeline",), ("moe_roe_packed_routing_gather",)]
    safe = {f.changes[0].key: f.safe for f in first.fixes}
    assert safe == {"moe_roe_packed_routing_gather": True, "moe_chunk_pipeline": False}


def test_fix_edits_only_the_tokens_it_must():
    text = "log_period=100   moe_roe_packed_routing_gather=true\tmoe_chunk_pipeline=false  sa_use_base2_exp=true"
    result = Checker("bbd0f6f10").check(FlagSource(text), max_fixes=1)
    (fix,) = result.fixes
    # The token is dropped (its default is false), with the whitespace before it; every other byte stays.
    assert fix.flags == "log_period=100\tmoe_chunk_pipeline=false  sa_use_base2_exp=true"
    assert fix.safe


def test_a_refused_value_is_not_judged_by_its_default_and_the_fix_starts_without_it():
    # The seed's 64x1x8 branch at MaxText 0.2.5: a later custom_mesh_and_rule MaxText refuses.
    flags = (ROOT / "examples/flags/tuned-256-64x1x8-before.flags").read_text(encoding="utf-8")
    env = dict(line.split("=", 1) for line in (ROOT / "examples/flags/tuned-256-64x1x8.env").read_text().split("\n")
               if "=" in line and not line.startswith("#"))
    result = Checker().check(FlagSource(flags), env)
    assert "FL005" in {f.rule for f in result.findings}
    # Judged by the default custom_mesh_and_rule (''), EP rank would be 1 and MXFABRX would fire
    # on flags that are fine once the refused token goes.
    assert not [f for f in result.findings if f.rule.startswith("MX")]
    (fix,) = result.fixes
    assert all(c.to is None for c in fix.changes)  # only drops: cp-as-ep is in force again
    assert not fix.safe  # a mesh other than the one written last: a choice changes
    assert "custom_mesh_and_rule=cp-as-ep " in fix.flags
    assert not [f for f in Checker().check(FlagSource(fix.flags), env, fix=False).findings if f.severity == "error"]


def test_a_fix_drops_an_earlier_token_that_dropping_the_refused_one_brings_back():
    # The last value is refused; dropping it puts `.inf` in force, which MaxText refuses too.
    result = Checker().check(FlagSource("quantize_mtp=false eval_wi_tile_fwd_mlp_dim=none "
                                        "eval_wi_tile_fwd_mlp_dim=.inf eval_wi_tile_fwd_mlp_dim=none"))
    (fix,) = result.fixes
    assert fix.flags == "quantize_mtp=false" and not fix.safe  # the tile size falls back to its default


def test_a_value_refused_only_for_its_case_is_corrected_not_dropped():
    # Dropping context=Offload would give the default, remat: the opposite of what was meant.
    result = Checker().check(FlagSource("context=Offload log_period=10 custom_mesh_and_rule=cp-as-ep-dense"))
    (fix,) = result.fixes
    assert fix.flags == "context=offload log_period=10" and not fix.safe  # the mesh falls back to the default
    assert [(c.key, c.from_, c.to) for c in fix.changes] == [
        ("context", "Offload", "offload"), ("custom_mesh_and_rule", "cp-as-ep-dense", None)]


def test_a_membership_in_a_keys_value_is_solved_and_the_hardware_is_held():
    # MXAFX3Z reads `'tpu' in hardware`; `in` over a key's value was FL090 "no change satisfies".
    result = Checker().check(FlagSource("context_parallel_strategy=ring context_parallel_load_balance=True"))
    assert "FL090" not in {f.rule for f in result.findings}
    assert [[(c.key, c.to) for c in fix.changes] for fix in result.fixes] == [[("context_parallel_strategy", "all_gather")]]


def test_a_choice_the_command_line_reads_as_none_is_dropped_not_corrected():
    # `none` is one of vision_encoder_block's choices, but the command line reads it as None,
    # which MaxText refuses; "correcting" it to itself made the search for refused tokens loop.
    result = Checker().check(FlagSource("vision_encoder_block=none log_period=10"))
    (fix,) = result.fixes
    assert fix.flags == "log_period=10"
    assert [(c.key, c.to) for c in fix.changes] == [("vision_encoder_block", None)]


def test_a_float_bound_gets_a_value_beside_the_rules_literal():
    # MX47NM4: distill_temperature_end > 0.0. The literal itself fails; one beside it holds.
    result = Checker().check(FlagSource("distill_temperature_end=-1"))
    assert "FL090" not in {f.rule for f in result.findings}
    assert [(c.key, c.to) for fix in result.fixes for c in fix.changes] == [("distill_temperature_end", 1)]


def test_a_fix_moves_devices_between_mesh_axes_but_never_adds_any():
    # EP rank 1 forbids the ring of experts. Raising the expert axis alone would ask for more chips.
    alone = Checker().check(FlagSource("ici_expert_parallelism=1 use_ring_of_experts=true ragged_buffer_factor=2.0"))
    assert alone.fixes and all("ici_expert_parallelism" not in [c.key for c in f.changes] for f in alone.fixes)
    # With a context axis of 8, moving those devices to the expert axis is one of the fixes.
    swap = Checker().check(FlagSource("ici_expert_parallelism=1 ici_context_parallelism=8 use_ring_of_experts=true "
                                      "ragged_buffer_factor=2.0 use_ragged_sort=true"))
    for fix in swap.fixes:
        sizes = {c.key: c.to for c in fix.changes if re.fullmatch(MESH_AXIS, c.key)}
        if sizes:
            assert sizes == {"ici_expert_parallelism": 8, "ici_context_parallelism": 1}


def test_a_sharding_chosen_by_name_is_solved_through_and_its_derived_size_is_shown():
    # context_parallel_size is the size of the mesh axis context_sharding names: a conditional over
    # names, which the solver used to refuse (FL090 "no change satisfies MX44WVH").
    result = Checker().check(FlagSource("context_parallel_strategy=ulysses ici_context_parallelism=3 num_query_heads=8 "
                                        "num_kv_heads=8 attention=flash"))
    assert "FL090" not in {f.rule for f in result.findings}
    heads = next(f for f in result.findings if "num_query_heads (8)" in f.message)
    assert "context_parallel_size (3)" in heads.message
    assert result.fixes
    for fix in result.fixes:
        assert not [f for f in Checker().check(FlagSource(fix.flags), fix=False).findings if f.severity == "error"]


def test_unsat_core_names_rules_that_conflict_with_fixed_facts(tmp_path):
    impossible = tmp_path / "impossible.yml"
    impossible.write_text(
        "rules:\n- id: XT001\n  title: t\n  severity: error\n  require: slice_device_count == 100 or log_period < 0\n"
        "  message: m\n  rationale: r\n  source: test\n",
        encoding="utf-8",
    )
    checker = Checker("maxtext-0.2.5", extra_rules=(str(impossible),))
    result = checker.check(FlagSource("log_period=10"), {"TRAINER_TPU_SLICE": "tpu7x:4x4x8"})
    assert "XT001" in {f.rule for f in result.findings}
    assert result.fixes == [] or all("log_period" in [c.key for c in f.changes] for f in result.fixes)


def test_rule_that_cannot_hold_is_reported(tmp_path):
    impossible = tmp_path / "impossible.yml"
    impossible.write_text(
        "rules:\n- id: XT002\n  title: t\n  severity: error\n  require: slice_device_count == 100\n"
        "  message: m\n  rationale: r\n  source: test\n",
        encoding="utf-8",
    )
    result = Checker("maxtext-0.2.5", extra_rules=(str(impossible),)).check(FlagSource(""), {"TRAINER_TPU_SLICE": "tpu7x:4x4x8"})
    unsat = [f for f in result.findings if f.rule == "FL090"]
    assert unsat and "XT002" in unsat[0].message and "TRAINER_TPU_SLICE=tpu7x:4x4x8" in unsat[0].message


# --- minimality, checked by brute force on small key sets ---------------------------------

SMALL_KEYS = {
    "num_moe_token_chunks": [1, 2, 4],
    "use_ring_of_experts": [True, False],
    "use_ragged_sort": [True, False],
    "ici_expert_parallelism": [1, 2],
    "context": ["remat", "offload"],
    "query_proj": ["remat", "device"],
}


def _render(assignments):
    return " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in assignments.items())


def _brute_force_minimum(checker, source, proposals):
    config, _ = checker.config(source, {})
    rules = applicable(checker.ruleset, config)
    names = sorted({n for r in rules for n in rule_names(r) if n in config.pin.keys} - fixed_names(config))
    domains = {}
    for name in names:
        schema = config.pin.keys[name]
        candidates = [True, False] if schema.kind == "bool" else list(schema.choices or [])
        candidates += [c.to for proposal in proposals for c in proposal.changes if c.key == name]
        domains[name] = []
        for value in candidates:
            if value != config.lookup(name) and value not in domains[name]:
                domains[name].append(value)
    # the rules broken as written first: most changes leave one of them broken (the same answer, sooner)
    ordered = sorted(rules, key=lambda rule: holds(rule, config.lookup))
    for size in range(0, 3):
        for keys in itertools.combinations(names, size):
            for values in itertools.product(*(domains[k] for k in keys)):
                override = dict(zip(keys, values))

                def lookup(name, override=override):
                    return override[name] if name in override else config.lookup(name)

                if all(holds(r, lookup) for r in ordered) and _mesh_devices(lookup, names) == _mesh_devices(config.lookup, names):
                    return size
    return None


def _mesh_devices(lookup, names):
    """The devices the ici and dcn mesh axes span: a fix may move devices between axes, not add any."""
    sizes = {"ici_": 1, "dcn_": 1}
    for name in names:
        if re.fullmatch(MESH_AXIS, name) and lookup(name) != -1:
            sizes[name[:4]] *= lookup(name)
    return sizes


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.fixed_dictionaries({k: st.sampled_from(v) for k, v in SMALL_KEYS.items()}))
def test_fixes_are_minimal_and_clean(assignments):
    checker = Checker()
    source = FlagSource(_render(assignments))
    result = checker.check(source, max_fixes=3)
    if not [f for f in result.findings if f.rule.startswith("FL1")]:
        return
    assert result.fixes, result.findings
    sizes = {len(f.changes) for f in result.fixes}
    assert len(sizes) == 1  # only fixes of the smallest size are listed
    for fix in result.fixes:
        again = checker.check(FlagSource(fix.flags), fix=False)
        assert not [f for f in again.findings if f.rule.startswith(("FL1", "MX"))], (fix.flags, again.findings)
    minimum = _brute_force_minimum(checker, source, result.fixes)
    if minimum is not None:
        assert sizes == {minimum}


@pytest.mark.parametrize("pin", __import__("flaglint.pins.pins", fromlist=["known_pins"]).known_pins())
def test_every_pins_defaults_satisfy_its_rules(pin):
    # The checker judges only rules that read a value someone set; this is what makes that sound.
    checker = Checker(pin)
    config, _ = checker.config(FlagSource(""), {})
    assert [r.id for r in applicable(checker.ruleset, config) if not holds(r, config.lookup)] == []


# --- values pyconfig reads before pydantic types them (measured on MaxText 0.2.5) ----------------

# override_model_config=<value> with a flag that differs from llama2-7b's yml: does MaxText refuse it
# as a model conflict? pyconfig tests the YAML value's truth: a quoted 'false' is a non-empty string.
MODEL_OVERRIDE_CONFLICT = {
    "false": True, "False": True, "no": True, "off": True, "0": True, "0.0": True, "null": True, "~": True,
    "true": False, "yes": False, "1": False, "1.0": False, "'true'": False,
    "'false'": False, "'0'": False, "'no'": False, "'off'": False, '"false"': False,
}


@pytest.mark.parametrize("spelled,conflict", MODEL_OVERRIDE_CONFLICT.items())
def test_model_conflict_follows_the_raw_truth_of_override_model_config(spelled, conflict):
    result = Checker("maxtext-0.2.5", "llama2-7b").check(FlagSource(f"base_emb_dim=1024 override_model_config={spelled}"), fix=False)
    assert ("FL006" in {f.rule for f in result.findings}) == conflict


def test_a_quoted_false_axis_override_leaves_maxtext_no_ep_axis():
    checker = Checker("maxtext-0.2.5")
    flags = "ici_expert_parallelism=2 use_random_routing=true override_logical_axis_rules='false'"
    result = checker.check(FlagSource(flags))
    (ep_rank,) = [f for f in result.findings if f.rule == "FL015"]  # MaxText's MXFABRX, as this token makes it fail
    assert ep_rank.message.startswith("MXFABRX: ") and "pyconfig reads override_logical_axis_rules='false' before typing" in ep_rank.message
    assert [fix.flags for fix in result.fixes] == ["ici_expert_parallelism=2 use_random_routing=true"]
    for clean in (
        "ici_expert_parallelism=2 use_random_routing=true override_logical_axis_rules=false",
        "ici_expert_parallelism=2 use_random_routing=true override_logical_axis_rules=true",
        "ici_expert_parallelism=2 use_random_routing=true override_logical_axis_rules='0' logical_axis_rules=[[exp,expert]]",
        "ici_expert_parallelism=2 use_random_routing=true override_logical_axis_rules='no' custom_mesh_and_rule=ep-as-cp",
        "override_logical_axis_rules='false'",
    ):
        assert not checker.check(FlagSource(clean), fix=False).findings, clean


def test_engram_without_a_token_gets_no_fix():
    checker = Checker("maxtext-0.2.5")
    result = checker.check(FlagSource("model_name=deepseek-custom attention=dot_product use_random_routing=true"))
    assert {"FL119", "MXFABRX"} <= {f.rule for f in result.findings}
    assert "FL090" not in {f.rule for f in result.findings}  # FL119 itself says no fix can supply the token
    assert result.fixes == []  # a token cannot be invented
    assert not checker.check(FlagSource("model_name=deepseek-custom attention=dot_product"), {"HF_TOKEN": "hf_secret"}).findings
    assert not checker.check(FlagSource("model_name=deepseek-custom attention=dot_product hf_access_token=hf_secret")).findings
    # a token from the environment fills an empty flag, as pyconfig does
    found = checker.check(FlagSource("model_name=deepseek-custom attention=dot_product hf_access_token=''"), {"HF_TOKEN": "hf_secret"})
    assert not found.findings


def test_compile_topology_must_name_a_known_topology():
    checker = Checker("maxtext-0.2.5")
    assert checker.pin.keys["compile_topology"].choices and "v5e-256" in checker.pin.keys["compile_topology"].choices
    result = checker.check(FlagSource("compile_topology=v5e-255"))
    assert any(f.rule.startswith("MX") and "Invalid compile topology" in f.message for f in result.findings)
    assert [fix.flags for fix in result.fixes] == [""]  # back to the default: no ahead-of-time compile
    for clean in ("compile_topology=v5e-256", "compile_topology=a3", "compile_topology=''",
                  "compile_topology=v5e-255 internal_compile=true internal_compile_num_devices=4"):
        assert not checker.check(FlagSource(clean), fix=False).findings, clean


def test_rules_over_the_length_of_a_list_are_judged():
    """MaxText refuses the deepstack model with scanned layers (its default): len() of a list key."""
    checker = Checker("maxtext-0.2.5")
    result = checker.check(FlagSource("model_name=qwen3-vl-2b"))
    assert [f.rule for f in result.findings if f.severity == "error"] == ["MXFNDAK"]
    assert [fix.flags for fix in result.fixes] == ["model_name=qwen3-vl-2b scan_layers=false"]
    assert not checker.check(FlagSource("model_name=qwen3-vl-2b scan_layers=false"), fix=False).findings


def test_maxtexts_messages_show_the_values_of_the_keys_they_name():
    result = Checker("maxtext-0.2.5").check(FlagSource("moe_dropless_fallback=step num_experts=4 ragged_buffer_factor=0"), fix=False)
    messages = {f.rule: f.message for f in result.findings}
    assert messages["MXBTNQ9"].startswith("moe_dropless_fallback='step' requires ragged_buffer_factor > 0.0.")
    assert "moe_dropless_fallback must be None (was step)" in messages["MXFABRX"]


def test_a_dcn_axis_on_one_slice_is_fixed_by_the_axis_never_by_claiming_slices():
    """Setting num_slices or compile_topology_num_slices would pass MaxText's slice check on a
    one-slice run and fail when the mesh is made: a fix changes the DCN axis instead."""
    result = Checker("maxtext-0.2.5").check(FlagSource("dcn_data_parallelism=2"))
    assert [f.rule for f in result.findings if f.severity == "error"] == ["MXRQ7R8"]
    changed = {change.key for fix in result.fixes for change in fix.changes}
    assert changed == {"dcn_data_parallelism"}, changed


def test_a_fix_sets_a_refused_word_of_the_key_it_changes_in_place():
    """`attention_type=LOCAL_SLIDING` is refused for its case; a fix that also changes
    attention_type writes the new value into that word, not a second word after it."""
    result = Checker("maxtext-0.2.5").check(FlagSource("attention_type=LOCAL_SLIDING"))
    assert result.fixes
    for fix in result.fixes:
        assert fix.flags.count("attention_type=") == 1, fix.flags


@pytest.mark.parametrize("slices, errors", [(1, ["MXRQ7R8"]), (2, [])])
def test_dcn_parallelism_is_judged_on_the_slices_the_device_count_gives(slices, errors):
    # num_slices=-1: MaxText counts the slices JAX finds; --slices says how many there are.
    from flaglint.resolve.topology import DeviceCount

    checker = Checker("maxtext-0.2.5", devices=DeviceCount(4 * slices, slices, "--topology v5p-8"))
    result = checker.check(FlagSource("dcn_data_parallelism=2 ici_fsdp_parallelism=4"), fix=False)
    assert [f.rule for f in result.findings if f.severity == "error"] == errors

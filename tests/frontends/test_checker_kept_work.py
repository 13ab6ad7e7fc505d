"""A checker keeps what it worked out for one flag string where another reads the same: the config
of a flag string and Tunix variables (shared_config, and check() without a fix), each rule's
verdict by the values it reads, and each fix search with what it read of the config. A recipe's
launches, and an editor's checks after each edit, judge the same strings again, or strings that
differ where no rule looks. What a checker says after any other checks is what a fresh one says."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.frontends import checker as checker_module
from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource

PIN = "bbd0f6f10"
# Keys of rules/cross_key.yml's MoE, offload and kernel rules (FL101, FL102, FL105, FL117), with
# values that break and keep them, values MaxText refuses, keys it does not define, and numbers
# that are equal but not alike (0, 0.0, -0.0; 1 and true).
FLAGS = ["moe_roe_packed_routing_gather=true", "moe_roe_packed_routing_gather=false", "moe_chunk_pipeline=true",
         "moe_chunk_pipeline=false", "num_moe_token_chunks=1", "num_moe_token_chunks=2", "num_moe_token_chunks=0.0",
         "context=offload", "context=remat", "query_proj=device", "query_proj=remat", "use_gdn_kernel=true",
         "use_gdn_kernel=1", "ici_tensor_parallelism=2", "ici_tensor_parallelism=1", "ragged_buffer_factor=-0.0",
         "ragged_buffer_factor=0.0", "steps=10", "steps=11", "bogus_key=1", "moe_chunk_pipelin=true"]
# Tunix variables of FL106, FL107 and FL112
ENV = {"TUNIX_LOGPS_SHARDED_HEAD": ["off", "fused", "bogus"], "COMPUTE_LOGPS_CHUNK_SIZE": ["512", "2048"],
       "TRAIN_MICRO_BATCH_SIZE": ["6", "8"], "TRAINER_MESH_FSDP": ["4", "3"]}
CHECKS = st.tuples(st.lists(st.sampled_from(FLAGS), min_size=1, max_size=5),
                   st.fixed_dictionaries({}, optional={name: st.sampled_from(values) for name, values in ENV.items()}),
                   st.booleans())


def _said(checker: Checker, flags: str, env: dict, fix: bool) -> tuple:
    result = checker.check(FlagSource(flags), env, fix=fix)
    return repr(result.findings), repr(result.fixes), result.notes


@settings(max_examples=30, deadline=None)
@given(st.lists(CHECKS, min_size=2, max_size=4))
def test_a_checker_that_judged_other_flag_strings_says_what_a_fresh_one_says(checks):
    checker = Checker(PIN)
    for tokens, env, fix in checks:
        flags = " ".join(tokens)
        assert _said(checker, flags, env, fix) == _said(Checker(PIN), flags, env, fix), (flags, env, fix)


def test_check_reads_the_config_shared_config_resolved(monkeypatch):
    resolved: list[str] = []
    resolve = checker_module.resolve

    def counted(source, *args):
        resolved.append(source.text)
        return resolve(source, *args)

    monkeypatch.setattr(checker_module, "resolve", counted)
    checker = Checker(PIN)
    source, env = FlagSource("moe_roe_packed_routing_gather=true bogus_key=1"), {"TRAINER_MESH_FSDP": "4"}
    checker.shared_config(source, env)
    first = checker.check(source, env, fix=False)
    assert [f.rule for f in first.findings] == ["FL004", "FL101"]
    assert resolved == [source.text]  # a launch of a recipe is judged by both: resolved once
    first.findings[0].severity = "info"  # as a settings file's severities change a result
    assert checker.check(source, env, fix=False).findings[0].severity == "error"
    assert resolved == [source.text]


def test_a_fix_search_is_made_again_only_where_what_it_read_differs(monkeypatch):
    broken = "moe_roe_packed_routing_gather=true moe_chunk_pipeline=false num_moe_token_chunks={} steps={}"
    strings = [broken.format(2, 10), broken.format(2, 11), broken.format(2, 12), broken.format(1, 10)]
    fresh = [_said(Checker(PIN), flags, {}, True)[1] for flags in strings]
    searched: list[int] = []
    minimal_changes = checker_module.minimal_changes

    def counted(*args):
        searched.append(1)  # reading the config here would count as the search's read
        return minimal_changes(*args)

    monkeypatch.setattr(checker_module, "minimal_changes", counted)
    checker = Checker(PIN)
    fixes = [_said(checker, flags, {}, True)[1] for flags in strings[:3]]
    assert "Change(key='moe_roe_packed_routing_gather', from_=True, to=False)" in fixes[0]
    assert len(searched) == 1  # no rule the search read reads steps: its answer is given again
    assert fixes == fresh[:3]
    # num_moe_token_chunks is read by FL102, which a fix must keep: searched again
    assert _said(checker, strings[3], {}, True)[1] == fresh[3]
    assert len(searched) == 2

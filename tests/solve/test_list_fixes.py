"""Rules that read a list element by element (MaxText 0.2.5's loop over compress_ratios and its
context-parallelism check with compressed attention): judged as MaxText's condition reads, and
fixed by the solver, which takes the list's current value or its default, one case each."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource

CHECKER = Checker("maxtext-0.2.5")
RATIO = "MXA8YX8"  # for val in compress_ratios: val != 0 and val < 4 raises
CONTEXT = "MX5A2MA"  # compressed attention, a ratio above 0 and context parallelism above 1 raise


@given(ratios=st.lists(st.integers(-1, 9), max_size=4), attention=st.sampled_from(["global", "compressed"]),
       context=st.sampled_from([1, 2]))
def test_the_list_rules_break_where_maxtexts_conditions_hold_and_each_fix_rechecks_clean(ratios, attention, context):
    flags = f"compress_ratios=[{','.join(map(str, ratios))}] attention_type={attention} ici_context_parallelism={context}"
    result = CHECKER.check(FlagSource(flags))
    found = {f.rule for f in result.findings}
    assert (RATIO in found) == any(val != 0 and val < 4 for val in ratios)
    assert (CONTEXT in found) == (attention == "compressed" and any(r > 0 for r in ratios) and context > 1)
    if found & {RATIO, CONTEXT}:
        assert result.fixes, flags
    for fix in result.fixes:
        assert not {f.rule for f in CHECKER.check(FlagSource(fix.flags), fix=False).findings} & {RATIO, CONTEXT}, (flags, fix.flags)


def test_a_list_a_rule_reads_element_by_element_is_fixed_by_its_default():
    result = CHECKER.check(FlagSource("compress_ratios=[0,2]"))
    assert [[(c.key, c.to) for c in fix.changes] for fix in result.fixes] == [[("compress_ratios", [])]]

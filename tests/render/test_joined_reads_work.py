"""The work of a launcher that builds a value only where one of N inputs is set and then reads it
(script_shapes.guarded_json_launcher: google/tunix's rollout start): the guard decides each input
once, the value is expanded once per alternative and tested by what makes it empty, so the
evaluator's decisions and expansions grow with N, not as 2**N (counts, never time)."""

from __future__ import annotations

from script_shapes import guarded_json_launcher

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate
from flaglint.render.bash.expansion import Expansion, joined_choice
from flaglint.render.bash.machine import Interp
from flaglint.render.bash.types import Choice, Spans, Sym, Value


def _work(tmp_path, monkeypatch, guarded: int) -> dict:
    """The inputs decided and the word parts expanded while the launcher of `guarded` inputs is evaluated."""
    script = tmp_path / f"k8s_launcher_{guarded}.sh"
    script.write_text(guarded_json_launcher(guarded))
    counts = {"decided": 0, "expanded": 0}
    decide, part = Interp.decide, Expansion.part

    def counted_decide(self, st, name, text):
        counts["decided"] += 1
        return decide(self, st, name, text)

    def counted_part(self, p, st):
        counts["expanded"] += 1
        return part(self, p, st)

    monkeypatch.setattr(Interp, "decide", counted_decide)
    monkeypatch.setattr(Expansion, "part", counted_part)
    exploration = evaluate(script)
    monkeypatch.undo()
    # one launch, on one path: the guard's inputs are parts of its values, not paths of their own
    assert [len(o.paths) for o in exploration.outcomes] == [1]
    assert len(exploration.outcomes[0].rendering.launched) == 1
    return counts


def test_a_value_built_behind_a_guard_on_many_inputs_costs_their_number(tmp_path, monkeypatch):
    few = _work(tmp_path, monkeypatch, 8)
    many = _work(tmp_path, monkeypatch, 32)
    # four times the inputs, about four times the work (2**24 times, were each combination a path)
    assert many["decided"] <= 4.5 * few["decided"]
    assert many["expanded"] <= 4.5 * few["expanded"]


def test_the_launcher_of_many_guarded_inputs_is_judged(tmp_path):
    script = tmp_path / "k8s_launcher.sh"
    script.write_text(guarded_json_launcher(24))
    lines = script.read_text().splitlines()
    findings = check_script(script, Checker("bbd0f6f10")).result.findings
    assert "FL011" not in {f.rule for f in findings}
    undefined = [f for f in findings if f.rule == "FL004"]
    assert [lines[f.location.line - 1][f.location.column - 1:].split("=")[0] for f in undefined] == ["stepz"]


def test_a_joined_string_is_taken_apart_only_where_its_choice_nests():
    """`GANG_ID=${GANG_ID:-$JOB_PREFIX}` after `case "$1"` set JOB_PREFIX three ways: a string holding
    one Choice of plain texts is read as a read of $1 (google/tunix's fp8_gsm8k_35b_v5p.sh, through
    its launchers: 768 command lines checked, 6,052 when such strings were expanded per alternative);
    a Choice that nests (a guard over several inputs, `vllm_json`) is expanded once per alternative."""
    def text(t):
        return Value(t, Spans.unwritten(len(t)))

    flat = Choice("$1", tuple((frozenset({v}), text(f"pre-{v}")) for v in ("bf16", "r8", "r8t8")))
    assert joined_choice(Sym((flat,))) == (None, None)
    nested = Choice("V1", ((frozenset({None, ""}), Choice("V2", ((frozenset({None, ""}), text("")), (frozenset({"x"}), text("{}"))))),
                           (frozenset({"x"}), text("{}"))))
    choice, standing = joined_choice(Sym((text("--json="), nested)))
    assert choice is nested
    assert standing(text("{}")).pieces[-1].text == "{}"

"""`lint` on recipes that grow MAXTEXT_EXTRA_FLAGS by many conditional appends: each finding once,
a key many switches write checked token by token (never FL011 for its number of combinations),
a conflict among many switches found by the solver with the token written last."""

from __future__ import annotations

import pytest

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate
from flaglint.render.bash.types import Choice, Sym

FORK_PIN = "e526ea02"  # its validate_moe_chunks refuses the chunk pipeline with one chunk (FL102)
PIN = "bbd0f6f10"


def _append(test: str, tokens: str) -> str:
    return f'if [[ {test} ]]; then export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} {tokens}"; fi'


def test_a_finding_the_flags_and_the_maxtext_command_line_share_is_reported_once(tmp_path):
    """The flags appended on switches are both the trainer's flags and MaxText's argv here: both
    checks break the same rule at the same token, on the same inputs."""
    script = tmp_path / "recipe.sh"
    script.write_text("\n".join([
        "#!/bin/bash", 'export MAXTEXT_EXTRA_FLAGS="steps=10"',
        _append('"${TUNED:-false}" == "true"', "moe_roe_packed_routing_gather=true"),
        _append('"${BIG:-false}" == "true"', "moe_chunk_pipeline=false"),
        "python3 -m maxtext.train maxtext/configs/base.yml ${MAXTEXT_EXTRA_FLAGS}", ""]))
    findings = check_script(script, Checker(PIN)).result.findings
    assert [(f.rule, f.location.line, f.witness["env"]) for f in findings] == [
        ("FL101", 3, {"BIG": None, "TUNED": "true"}),
        ("FL101", 4, {"BIG": "true", "TUNED": "true"}),
    ]


def test_a_key_forty_switches_append_is_set_again_after_each_token_but_the_last(tmp_path):
    """40 switches, each appending log_period: one group of 3**40 combinations, checked on the
    launches that show each token (written last, written again after)."""
    script = tmp_path / "recipe.sh"
    lines = ["#!/bin/bash", 'export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS:-} steps=10"']
    lines += [_append(f'"${{SW{i}:-false}}" == "true"', f"log_period={i + 1}") for i in range(40)]
    script.write_text("\n".join([*lines, "python3 -m tunix.launcher", ""]))
    findings = check_script(script, Checker(PIN)).result.findings
    assert {f.rule for f in findings} == {"FL003"}
    assert [f.location.line for f in findings] == list(range(3, 42))
    for i, finding in enumerate(findings):
        assert finding.witness["env"] == {f"SW{i}": "true", f"SW{i + 1}": "true"}
        assert f"(to '{i + 2}')" in finding.message


def test_prepends_are_side_by_side_not_nested(tmp_path):
    script = tmp_path / "recipe.sh"
    lines = ["#!/bin/bash", 'export MAXTEXT_EXTRA_FLAGS="steps=10"']
    lines += [f'if [[ "${{SW{i}:-false}}" == "true" ]]; then export MAXTEXT_EXTRA_FLAGS="log_period={i + 1} ${{MAXTEXT_EXTRA_FLAGS}}"; fi'
              for i in range(300)]
    script.write_text("\n".join([*lines, "python3 -m tunix.launcher", ""]))
    (outcome,) = evaluate(script).outcomes
    flags = outcome.rendering.variables["MAXTEXT_EXTRA_FLAGS"]
    assert type(flags) is Sym and len(flags.pieces) == 301
    assert all(type(p) is Choice and p.name == f"SW{299 - i}" for i, p in enumerate(flags.pieces[:300]))


def test_sixty_four_appends_beside_a_pair_that_breaks_a_validator(tmp_path):
    script = tmp_path / "recipe.sh"
    keys = ["log_period", "eval_interval", "checkpoint_period", "eval_steps"]
    lines = ["#!/bin/bash", 'export MAXTEXT_EXTRA_FLAGS="${MAXTEXT_EXTRA_FLAGS:-} steps=10"']
    lines += [_append(f'"${{SW{i}:-false}}" == "true"', f"{keys[i % 4]}=${{V{i}:-{i + 1}}}") for i in range(64)]
    lines += [_append('"${TUNED:-false}" == "true"', "moe_roe_packed_routing_gather=true"),
              _append('"${BIG:-false}" == "true"', "moe_chunk_pipeline=false")]
    script.write_text("\n".join([*lines, "python3 -m tunix.launcher", ""]))
    errors = [f for f in check_script(script, Checker(PIN)).result.findings if f.severity == "error"]
    assert [(f.rule, f.location.line, f.witness["env"]) for f in errors] == [
        ("FL101", 67, {"BIG": None, "TUNED": "true"}),
        ("FL101", 68, {"BIG": "true", "TUNED": "true"}),
    ]


@pytest.mark.parametrize("count", [8, pytest.param(20, marks=pytest.mark.slow)])
def test_a_conflict_with_a_key_many_switches_write_is_found_with_the_token_written_last(tmp_path, count):
    """PIPE turns the chunk pipeline on; COUNT switches each append num_moe_token_chunks: the
    validator refuses the pipeline where the chunks token written last says 1."""
    one = count * 3 // 5  # the switch whose token says 1 (the 12th of 20)
    script = tmp_path / "recipe.sh"
    lines = ["#!/bin/bash", 'export MAXTEXT_EXTRA_FLAGS="use_ring_of_experts=true num_moe_token_chunks=2"']
    lines += [_append(f'"${{C{i}:-off}}" == "on"', f"num_moe_token_chunks={1 if i == one else (2, 4, 8)[i % 3]}") for i in range(count)]
    lines.append(_append('"${PIPE:-off}" == "on"', "moe_chunk_pipeline=true"))
    script.write_text("\n".join([*lines, "python3 -m tunix.launcher", ""]))
    checker = Checker(FORK_PIN)
    findings = check_script(script, checker).result.findings
    assert "FL011" not in {f.rule for f in findings}
    (finding,) = [f for f in findings if f.rule == "FL102"]
    # the chunks token of that switch written last: it on, every later switch off; the earlier ones never matter
    assert finding.witness["env"] == {"PIPE": "on", f"C{one}": "on", **{f"C{i}": None for i in range(one + 1, count)}}
    # each token but the last is set again by the next switch's
    repeated = [f for f in findings if f.rule == "FL003"]
    assert [(f.location.line, f.witness["env"]) for f in repeated[1:]] == [(3 + i, {f"C{i}": "on", f"C{i + 1}": "on"}) for i in range(count - 1)]
    env = finding.witness["env"]
    fixed = {name: value for name, value in env.items() if value is not None}
    assert "FL102" in {f.rule for f in check_script(script, checker, fixed=fixed).result.findings}

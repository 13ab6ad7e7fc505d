"""A script linted again with the same checker (an editor's buffer after an edit) finds what a
first lint of its text finds: the solver's answers on a group of inputs are given again only where
everything they read is as it was."""

from __future__ import annotations

from pathlib import Path

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.scripts import check_script
from tests.render.script_shapes import repeated_appends

# Two switches write the key the MoE rule reads with the one the line before them writes (FL101 at
# bbd0f6f10: moe_roe_packed_routing_gather=true needs moe_chunk_pipeline=true, false by default).
# With a path cap of 1 their four combinations are the solver's.
SCRIPT = """#!/bin/bash
export MAXTEXT_EXTRA_FLAGS="moe_roe_packed_routing_gather={gather}"
if [[ "${{BIG:-false}}" == "true" ]]; then export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} moe_chunk_pipeline=false"; fi
if [[ "${{PIPELINED:-false}}" == "true" ]]; then export MAXTEXT_EXTRA_FLAGS="${{MAXTEXT_EXTRA_FLAGS}} moe_chunk_pipeline=true"; fi
python3 -m tunix.launcher
"""


def _said(path: Path, checker: Checker, text: str) -> list[tuple]:
    found = check_script(path, checker, path_cap=1, text=text).result.findings
    return [(f.rule, f.severity, f.location, f.message, f.witness) for f in found]


def test_a_script_linted_again_after_an_edit_finds_what_a_first_lint_finds(tmp_path: Path):
    path = tmp_path / "run.sh"
    checker = Checker("bbd0f6f10")
    broken = _said(path, checker, SCRIPT.format(gather="true"))
    assert {(rule, location.line) for rule, _, location, *_ in broken if rule == "FL101"} == {("FL101", 2), ("FL101", 3)}
    assert _said(path, checker, SCRIPT.format(gather="true")) == broken  # asked again: the answer kept
    # the key the switches' tokens join is the rule's: its answers are asked again
    edited = _said(path, checker, SCRIPT.format(gather="false"))
    assert "FL101" not in {rule for rule, *_ in edited}
    assert edited == _said(path, Checker("bbd0f6f10"), SCRIPT.format(gather="false"))


def _counting_witnesses(monkeypatch) -> list:
    """The path sets each finding's witness is searched for (PathConditions.witness, still searched)."""
    from flaglint.render.bash.path_conditions import PathConditions

    asked: list = []
    search = PathConditions.witness

    def witness(self, paths):
        asked.append(len(paths))
        return search(self, paths)

    monkeypatch.setattr(PathConditions, "witness", witness)
    return asked


def test_an_edit_that_changes_no_condition_of_the_paths_gives_each_witness_without_searching_again(tmp_path: Path, monkeypatch):
    path = tmp_path / "run.sh"
    checker = Checker("bbd0f6f10")
    asked = _counting_witnesses(monkeypatch)
    first = _said(path, checker, SCRIPT.format(gather="true"))
    assert asked and all(witness["env"] for *_, witness in first)  # the switches that break the rule are named
    searched = len(asked)
    # a line more above the switches: each finding is a line further down, its paths' conditions as they were
    edited = SCRIPT.format(gather="true").replace("#!/bin/bash\n", "#!/bin/bash\n# the MoE switches\n")
    again = _said(path, checker, edited)
    assert len(asked) == searched
    assert again == _said(path, Checker("bbd0f6f10"), edited)


def test_an_edit_that_changes_a_condition_searches_the_witnesses_again(tmp_path: Path, monkeypatch):
    path = tmp_path / "run.sh"
    checker = Checker("bbd0f6f10")
    asked = _counting_witnesses(monkeypatch)
    _said(path, checker, SCRIPT.format(gather="true"))
    searched = len(asked)
    # the switch is on for another value now: its paths' conditions are not the ones asked before
    edited = SCRIPT.format(gather="true").replace('"${BIG:-false}" == "true"', '"${BIG:-false}" == "on"')
    again = _said(path, checker, edited)
    assert len(asked) > searched
    assert again == _said(path, Checker("bbd0f6f10"), edited)
    assert any(witness["env"].get("BIG") == "on" for *_, witness in again)



def test_the_command_line_that_splits_the_trainers_flags_asks_the_solver_nothing_more(tmp_path: Path):
    # 32 switches append the same keys again, one pair breaks a validator; the last line splits the
    # flags the trainer reads into a MaxText command line: its groups are the trainer's queries,
    # answered once for both
    text = repeated_appends(32, "flat")
    command = "python3 -m maxtext.train src/maxtext/configs/base.yml $MAXTEXT_EXTRA_FLAGS\n"
    assert text.endswith(command)
    path = tmp_path / "run.sh"
    split, alone = Checker("bbd0f6f10"), Checker("bbd0f6f10")
    found = check_script(path, split, text=text).result.findings
    trainer = check_script(path, alone, text=text.removesuffix(command)).result.findings
    assert len(split.answers) == len(alone.answers) > 0
    packing = text.splitlines().index(next(line for line in text.splitlines() if "packing=true" in line)) + 1
    assert {(f.rule, f.location.line) for f in found if f.severity == "error"} == {(rule, packing) for rule in ("MXG84NB", "MXXYHDE")}
    assert {(f.rule, f.location.line) for f in trainer if f.severity == "error"} == {(rule, packing) for rule in ("MXG84NB", "MXXYHDE")}

"""A launcher whose subcommands reach the same launch sites (google/tunix's k8s_launcher.sh: `all`,
`trainer`, `rollout`, `restart`, … start the same jobs): the command lines of each site are judged
once for each text they take, however many paths reach them, and what MaxText refuses is still
found where the script writes it, with a witness (counts, never time)."""

from __future__ import annotations

from pathlib import Path

import pytest
from script_shapes import launch_sites

from flaglint.core.location import Location
from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.launch_parts import SharedParts
from flaglint.frontends.lint.script_commands import (
    Judged,
    check_commands,
    concrete_commands,
)
from flaglint.frontends.lint.scripts import check_script
from flaglint.frontends.lint.tunix_commands import check_tunix_commands
from flaglint.render import evaluate
from flaglint.render.bash.types import Launch, Spans, Value
from flaglint.tunix.pins import load_tunix_pin

LAUNCHER = Path(__file__).resolve().parent.parent / "fixtures" / "recipes" / "launchers" / "sites" / "k8s_launcher.sh"


@pytest.fixture(scope="module")
def checker():
    return Checker("bbd0f6f10")


def test_the_launchers_refused_default_is_found_where_it_is_written(checker):
    findings = check_script(LAUNCHER, checker).result.findings
    assert "FL011" not in {f.rule for f in findings}
    (error,) = [f for f in findings if f.severity == "error"]
    assert (error.rule, error.keys, Path(error.location.file).name, error.location.line) == (
        "FL005", ("checkpoint_period",), "trainer_flags.sh", 16)
    assert error.witness["env"]["CHECKPOINT_PERIOD"] is None  # the default every_hour is what MaxText refuses


def test_each_text_of_a_launch_site_is_judged_once_whatever_paths_reach_it(checker):
    """The launcher's jobs all start at `"$@"` in its `run` function: ten outcomes reach it, with
    a few command lines, each many times."""
    exploration = evaluate(LAUNCHER)
    judged = Judged(lambda launch: (launch, False))
    argvs, texts = 0, set()
    for launch, _ in concrete_commands(exploration, [rule.name_set for rule in checker.ruleset.rules]):
        judged(launch)
        argvs += 1
        texts.add((launch.line, tuple(w.text for w in launch.words), tuple((n, v.text) for n, v in launch.env.items())))
    assert len(exploration.outcomes) > 1 and argvs > 2 * len(texts)
    assert judged.count == len(texts)


def test_more_subcommands_reaching_the_sites_judge_them_no_more_often(checker, tmp_path):
    """Each subcommand runs a step of its own (one launch judged more); the trainer's and the
    rollout's command lines are judged as often for 8 subcommands as for 2, though checked on every path."""
    counts = {}
    for n in (2, 8):
        script = tmp_path / f"sites_{n}.sh"
        script.write_text(launch_sites(n))
        exploration = evaluate(script)
        shared = SharedParts()
        commands = check_commands(script, exploration, checker, shared=shared)
        tunix = check_tunix_commands(script, exploration, load_tunix_pin(None), maxtext=checker, shared=shared)
        assert [(f.rule, f.keys) for f in commands.findings] == [("FL005", ("async_checkpointing",))]
        counts[n] = (commands.checked, commands.judged - n, tunix.judged - n)
    assert counts[8][1:] == counts[2][1:]
    assert counts[8][0] > counts[2][0]


def _launch(origins: list) -> Launch:
    return Launch("launch.sh", 3, (Value("python3", Spans.unwritten(7)), Value("steps=1", origins)), {})


@pytest.mark.parametrize("placed", [False, True])
def test_a_text_written_elsewhere_is_judged_apart_only_where_its_judgement_is_placed(placed):
    """Two launches of one text whose words the script wrote at different places: one judgement
    serves both unless it placed a finding or note at those places."""
    here = Spans.unwritten(7)
    there = [Location("launch.sh", 9, column) for column in range(1, 8)]
    judged = Judged(lambda launch: (launch.words[1].origins, placed))
    first = judged(_launch(here))
    second = judged(_launch(there))
    assert judged(_launch(Spans.unwritten(7))) is first  # the same places: judged once
    assert judged.count == (2 if placed else 1)
    assert (second is there) == placed

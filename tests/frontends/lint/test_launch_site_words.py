"""The words of a launcher's launch sites are made once (counts and modules loaded, never time):
every path and outcome that gives a site the same words gives it the same tuple, so what judges
them knows them at once; a group of parts over the path cap whose launch runs no MaxText command
line asks no solver; and a lint of a script that launches nothing loads neither a YAML parser nor
Tunix's checks."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from commandline import REPO

from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.script_commands import concrete_commands
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate

LAUNCHERS = Path(__file__).resolve().parent.parent.parent / "fixtures" / "recipes" / "launchers"
GENERATOR = LAUNCHERS / "generator" / "k8s_launcher.sh"


@pytest.fixture(scope="module")
def checker():
    return Checker("bbd0f6f10")


def _modules_after(tmp_path, probe: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules under `prefixes` that `probe` loaded, in a fresh interpreter with this checkout."""
    listed = f"print('modules', sorted(m for m in sys.modules if m.startswith({prefixes!r})))\n"
    done = subprocess.run([sys.executable, "-c", "import sys\n" + probe + listed], capture_output=True, text=True, cwd=tmp_path,
                          env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    (modules,) = [line for line in done.stdout.splitlines() if line.startswith("modules ")] or [f"modules {done.stderr!r}"]
    return ast.literal_eval(modules.removeprefix("modules "))


def test_the_generators_launches_are_all_judged(checker):
    findings = check_script(GENERATOR, checker).result.findings
    assert [f.rule for f in findings] == []


@pytest.mark.parametrize("launcher", ["generator", "sites"])
def test_the_paths_that_give_a_site_the_same_words_give_it_one_tuple(checker, launcher):
    """The subcommands reach the same sites on many paths, each path on as many combinations of
    its parts' inputs: as many tuples of words as there are distinct words (text, opacity and
    where the script wrote each character)."""
    exploration = evaluate(LAUNCHERS / launcher / "k8s_launcher.sh")
    kept, made, contents = [], set(), set()  # the tuples kept alive: their ids stay theirs
    for launch, _ in concrete_commands(exploration, [rule.name_set for rule in checker.ruleset.rules]):
        kept.append(launch.words)
        made.add(id(launch.words))
        contents.add((launch.line, tuple((w.text, w.opaque, tuple(w.origins)) for w in launch.words)))
    assert len(kept) > len(contents)
    assert len(made) == len(contents)


def test_a_group_over_the_cap_of_a_launch_without_a_maxtext_config_asks_no_solver(tmp_path):
    """The generator's cache environment gathers eight inputs' settings (256 combinations, more
    than the path cap's 64) into a launch of the jobset generator, which runs no MaxText command
    line: the solver, which would judge its config, is not loaded."""
    probe = (f"from pathlib import Path\n"
             f"from flaglint.frontends.checker import Checker\n"
             f"from flaglint.frontends.lint.script_commands import check_commands\n"
             f"from flaglint.render import evaluate\n"
             f"script = Path({str(GENERATOR)!r})\n"
             f"assert check_commands(script, evaluate(script), Checker('bbd0f6f10')).findings == []\n")
    assert _modules_after(tmp_path, probe, ("z3", "flaglint.frontends.lint.launch_query")) == []


def test_a_lint_of_a_script_that_launches_nothing_loads_no_yaml_parser_nor_tunix_checks(tmp_path):
    script = tmp_path / "prepare.sh"
    script.write_text("#!/bin/bash\nmkdir -p /tmp/out\necho ready\n")
    probe = (f"from flaglint.cli import run\n"
             f"sys.argv = ['flaglint', 'lint', '--pin', 'bbd0f6f10', {str(script)!r}]\n"
             f"try:\n"
             f"    run()\n"
             f"except SystemExit:\n"
             f"    pass\n")
    loaded = ("yaml", "flaglint.tunix.checks", "flaglint.frontends.tunix_commands")
    _modules_after(tmp_path, probe, loaded)  # the first run fills flaglint's data cache
    assert _modules_after(tmp_path, probe, loaded) == []

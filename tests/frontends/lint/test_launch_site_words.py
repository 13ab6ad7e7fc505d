"""The words of a launcher's launch sites are made once (counts and modules loaded, never time):
every path and outcome that gives a site the same words gives it the same tuple, so what judges
them knows them at once; a group of parts over the path cap whose launch runs no MaxText command
line asks no solver; and a lint of a script that launches nothing loads neither a YAML parser nor
Tunix's checks."""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
from pathlib import Path

import pytest
from commandline import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from flaglint.core.location import Location
from flaglint.frontends.checker import Checker
from flaglint.frontends.lint.launch_parts import SharedParts, concrete_argvs
from flaglint.frontends.lint.script_commands import concrete_commands
from flaglint.frontends.lint.scripts import check_script
from flaglint.render import evaluate
from flaglint.render.bash.expansion import input_value
from flaglint.render.bash.explorer import ExploredPath
from flaglint.render.bash.types import (
    Choice,
    FromInput,
    Split,
    Sym,
    Value,
    ifs_fields,
    resolve,
)

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


# A launch's words made concrete on every path, with the script's check's shared tables or a
# fresh one each time: each path's words are those its inputs' values give, whatever was made before.
NAMES = ("A", "B")
DOMAIN = [None, "", "1", "x y"]


def _written(text: str, line: int) -> Value:
    return Value(text, [Location("launch.sh", line, column) for column in range(1, len(text) + 1)])


def _word_values():
    leaf = st.one_of(st.builds(_written, st.sampled_from(["", "k=1", " steps=2 ", "b"]), st.integers(1, 3)),
                     st.sampled_from(NAMES).map(FromInput))
    choice = st.builds(Choice, st.sampled_from(NAMES), st.lists(
        st.tuples(st.frozensets(st.sampled_from(DOMAIN), min_size=1), st.one_of(leaf, st.none())), min_size=1, max_size=3).map(tuple))
    joined = st.lists(st.one_of(leaf, choice), min_size=1, max_size=4).map(lambda pieces: Sym(tuple(pieces)))
    return st.one_of(st.builds(_written, st.sampled_from(["python3", "-m", "maxtext.train"]), st.just(1)),
                     choice, joined, joined.map(Split))


def _resolved(words, env: dict) -> list:
    def pick(choice):
        return next((alt for held, alt in choice.alts if env.get(choice.name) in held), choice.alts[0][1])

    def read(name):
        return input_value(env.get(name))

    out = []
    for word in words:
        if type(word) is Split:
            out.extend(ifs_fields(resolve(word.value, pick, read)))
        else:
            found = resolve(word, pick, read)
            out.append(found if found is not None else Value("", []))
    return [(w.text, w.opaque, tuple(w.origins)) for w in out]


@settings(max_examples=200, deadline=None)
@given(words=st.lists(_word_values(), min_size=1, max_size=4), order=st.permutations(list(itertools.product(DOMAIN, repeat=2))))
def test_each_paths_words_are_those_its_values_give_whatever_was_made_before(words, order):
    shared = SharedParts()
    made: dict = {}
    for combo in order:
        env = dict(zip(NAMES, combo))
        path = ExploredPath(env, [], {name: list(DOMAIN) for name in NAMES})
        for fresh, argv in zip(concrete_argvs(words, path, {}, [], shared=SharedParts()), concrete_argvs(words, path, {}, [], shared=shared)):
            content = _resolved(words, argv.path.env)
            assert _resolved(argv.words, {}) == content
            assert [(w.text, w.opaque, tuple(w.origins)) for w in fresh.words] == content
            assert made.setdefault(str(content), argv.words) is argv.words  # the same words: the same tuple

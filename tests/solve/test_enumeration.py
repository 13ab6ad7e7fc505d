"""The search without the solver (solve/enumeration.py) gives the very fixes Z3's search gives, and a
check whose fix is small never loads z3."""

from __future__ import annotations

import subprocess
import sys

import pytest
from commandline import REPO
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from flaglint.frontends.checker import Checker
from flaglint.read.flags import FlagSource, read_env_assignments
from flaglint.solve.enumeration import small_fixes
from flaglint.solve.rules import applicable, violated
from flaglint.solve.smt import FixProblem
from flaglint.solve.solutions import Unsatisfiable

FLAGS = REPO / "examples" / "flags"
CHECKERS = {pin: Checker(pin) for pin in ("maxtext-0.2.5", "bbd0f6f10")}


def _both(pin: str, flags: str, env: dict[str, str] | None = None):
    """The fixes the enumeration gives (None: not small) and Z3's (None: a conflict no fix meets);
    None where no rule is broken."""
    checker = CHECKERS[pin]
    config, _ = checker.config(FlagSource(flags), env or {})
    rules = applicable(checker.ruleset, config)
    broken = violated(rules, config)
    if not broken:
        return None
    try:
        solved = FixProblem(config, rules, broken).solve(3)
    except Unsatisfiable:
        solved = None
    return small_fixes(config, rules, broken, 3), solved


def _settable(pin: str) -> list[tuple[str, list]]:
    """The keys the pin's rules read that a flag string sets to a boolean, a choice or a number, with
    the values worth trying: each choice, both booleans, and what the rules compare the key with
    (a number, and one either side of it)."""
    checker = CHECKERS[pin]
    keys = checker.pin.keys
    found: dict[str, set] = {}
    for rule in checker.ruleset.rules:
        for name in rule.names:
            schema = keys.get(name)
            if schema is not None and (schema.kind in ("bool", "int") or schema.choices):
                values = found.setdefault(name, set())
                if schema.kind == "int":
                    values.update(v + step for v in rule.literals if type(v) is int for step in (-1, 0, 1))
                elif schema.kind != "bool":
                    values.update(v for v in rule.literals if type(v) is str)
    table = []
    for name in sorted(found):
        schema = keys[name]
        values = [True, False] if schema.kind == "bool" else list(schema.choices or [])
        values += sorted((v for v in found[name] if not any(type(v) is type(seen) and v == seen for seen in values)), key=str)
        if values:
            table.append((name, values))
    return table


SETTABLE = {pin: _settable(pin) for pin in CHECKERS}


@st.composite
def _flag_sets(draw):
    pin = draw(st.sampled_from(sorted(CHECKERS)))
    chosen = draw(st.lists(st.sampled_from(SETTABLE[pin]), min_size=1, max_size=4, unique_by=lambda kv: kv[0]))
    words = [f"{name}={str(draw(st.sampled_from(values))).lower() if isinstance(values[0], bool) else draw(st.sampled_from(values))}"
             for name, values in chosen]
    return pin, " ".join(words)


@settings(max_examples=100)
@given(_flag_sets())
def test_a_small_search_finds_what_z3_finds(case):
    pin, flags = case
    both = _both(pin, flags)
    assume(both is not None)
    enumerated, solved = both
    if enumerated is not None:
        assert enumerated == solved, flags


@pytest.mark.parametrize(("pin", "flags", "env_file"), [
    ("bbd0f6f10", (FLAGS / "tuned-256-64x1x8-before.flags").read_text(), FLAGS / "tuned-256-64x1x8.env"),  # the README's check
    ("maxtext-0.2.5", "use_dpo=true packing=true", None),  # two fixes of one key each
])
def test_the_usual_fixes_are_small_and_the_same(pin, flags, env_file):
    env = read_env_assignments((), str(env_file)) if env_file else {}
    enumerated, solved = _both(pin, flags, env)
    assert enumerated is not None and enumerated == solved


def test_a_mesh_search_is_z3s():
    # the mesh keeps its device count: a constraint over the axes the enumeration leaves to Z3
    enumerated, solved = _both("maxtext-0.2.5", "ici_fsdp_parallelism=4 ici_tensor_parallelism=3 ici_expert_parallelism=2 "
                                                "compile_topology=v5p-64 compile_topology_num_slices=1")
    assert enumerated is None


def test_the_readme_check_fixes_without_loading_z3(tmp_path):
    probe = (
        "import sys\n"
        "from flaglint.cli import main\n"
        "try:\n"
        f"    main(['check', '--pin', 'bbd0f6f10', '--env-file', {str(FLAGS / 'tuned-256-64x1x8.env')!r}, "
        f"{str(FLAGS / 'tuned-256-64x1x8-before.flags')!r}])\n"
        "except SystemExit as stop:\n"
        "    print('exit', stop.code)\n"
        "print('z3 loaded:', 'z3' in sys.modules)\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "fix (safe): moe_roe_packed_routing_gather: true -> false" in done.stdout and "exit 1" in done.stdout, done.stdout + done.stderr
    assert done.stdout.strip().endswith("z3 loaded: False"), done.stdout + done.stderr

"""Start-up: a check loads only what it needs (no YAML parser for flaglint's own cached data, no
other command's module, no pydantic for a project config it has read before), and the collector
pause of start-up never outlives the command."""

from __future__ import annotations

import gc
import subprocess
import sys

from commandline import REPO, run_flaglint


def test_a_cold_check_imports_neither_a_yaml_parser_nor_other_commands(tmp_path):
    probe = (
        "import sys\n"
        "from flaglint.cli import main\n"
        "try:\n"
        "    main(['check', 'steps=3 log_period=100 enable_checkpointing=false'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m == 'yaml' or m.startswith(('flaglint.cli.lint', 'flaglint.cli.gate', 'flaglint.lint'))))\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    first = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    again = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    assert again.stdout.strip().splitlines()[-1] == "[]", again.stdout  # the second run reads the cache


def _probe(tmp_path, modules: str) -> list[str]:
    """Runs a check in a fresh interpreter in tmp_path; the names of `modules` it imported."""
    probe = (
        "import sys\n"
        "from flaglint.cli import main\n"
        "try:\n"
        "    main(['check', 'steps=3'])\n"
        "except SystemExit as stop:\n"
        "    print('exit', stop.code)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {modules!r}))\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    return done.stdout.strip().splitlines() + done.stderr.strip().splitlines()


def test_a_project_config_read_before_costs_no_pydantic_and_an_edit_is_read_again(tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text('[project]\nname = "recipes"\n\n[tool.flaglint]\nfail-on = "warning"\n')
    first = _probe(tmp_path, ("pydantic", "tomllib"))
    assert first[-1] != "[]"  # the first run types the table
    assert _probe(tmp_path, ("pydantic", "tomllib"))[-1] == "[]"
    config.write_text('[project]\nname = "recipes"\n\n[tool.flaglint]\nfail-on = "sometimes"\n')
    edited = _probe(tmp_path, ("pydantic",))
    assert any("fail-on" in line and "sometimes" in line for line in edited), edited
    assert "exit 2" in edited
    assert "exit 2" in _probe(tmp_path, ("pydantic",))  # an error is reported on every run, never cached


def test_the_collector_is_as_it_was_after_a_command():
    assert gc.isenabled()
    for args in (("check", "steps=3"), ("rules",), ("check", "--pin", "no-such-pin", "steps=3")):
        run_flaglint(*args)
        assert gc.isenabled() and gc.get_freeze_count() == 0, args
    gc.disable()
    try:
        run_flaglint("check", "steps=3")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_program_leaves_what_it_loaded_to_the_exit_not_to_the_collector(tmp_path):
    # The collector's full pass at interpreter exit would scan every rule and term start-up made.
    probe = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 10000))\n"
        "sys.argv = ['flaglint', 'check', 'steps=3']\n"
        "from flaglint.cli import run\n"
        "run()\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("frozen at exit: True"), done.stdout

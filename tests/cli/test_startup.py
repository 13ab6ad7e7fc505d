"""Start-up: a check loads only what it needs (no YAML parser for flaglint's own cached data, no
other command's module, no pydantic for a project config it has read before), and the collector
pause of start-up never outlives the command."""

from __future__ import annotations

import ast
import gc
import subprocess
import sys

from commandline import EXAMPLES, REPO, run_flaglint

from flaglint.core import startup


def _fresh_interpreter(tmp_path, probe: str) -> subprocess.CompletedProcess:
    """`probe` run by a fresh interpreter in tmp_path, with this checkout's flaglint and its own cache there."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)


def _probe(tmp_path, prefixes: tuple[str, ...], check: str = "steps=3") -> tuple[list[str], str]:
    """`flaglint check CHECK` in a fresh interpreter in tmp_path (its own cache there): the modules
    it imported that are or are under `prefixes`, and what it wrote."""
    probe = (
        "import sys\n"
        "from flaglint.cli import main\n"
        "try:\n"
        f"    main(['check', {check!r}])\n"
        "except SystemExit as stop:\n"
        "    print('exit', stop.code)\n"
        f"print('modules', sorted(m for m in sys.modules if m in {prefixes!r} or m.startswith(tuple(p + '.' for p in {prefixes!r}))))\n"
    )
    done = _fresh_interpreter(tmp_path, probe)
    (modules,) = [line for line in done.stdout.splitlines() if line.startswith("modules ")]
    return ast.literal_eval(modules.removeprefix("modules ")), done.stdout + done.stderr


def test_a_cold_check_imports_neither_a_yaml_parser_nor_other_commands(tmp_path):
    # nor the solver or the fix writer (no rule is broken), a requirements parser (no requirements
    # file), the rule docs (no --statistics), another report format, Tunix's pins and checks (no
    # Tunix command line), the launch recognisers, or the index of MaxText's configs (no config file)
    others = ("yaml", "flaglint.cli.lint", "flaglint.cli.gate", "flaglint.frontends.lint.scripts", "z3", "packaging",
              "flaglint.report.rule_docs", "flaglint.report.sarif_format", "flaglint.report.json_format",
              "flaglint.frontends.tunix_commands", "flaglint.fix.config_files", "flaglint.maxtext.launch", "flaglint.tunix.launch",
              "flaglint.fix.flags", "flaglint.solve.solutions", "flaglint.cli.fixing", "flaglint.tunix.pins",
              "flaglint.schema.config_index")
    _probe(tmp_path, others, "steps=3 log_period=100 enable_checkpointing=false")
    modules, output = _probe(tmp_path, others, "steps=3 log_period=100 enable_checkpointing=false")
    assert modules == [], output  # the second run reads the cache


def test_a_lint_imports_no_yaml_parser_once_the_cache_holds_what_it_read(tmp_path):
    # a Tunix pin's rules, each release's renumbered ids and the config chain of a MaxText launch
    # (base.yml, from the pin's index) are read from the cache on every run after the first
    script = tmp_path / "run.sh"
    script.write_text("python3 -m maxtext.train src/maxtext/configs/base.yml steps=abc\n")
    probe = (
        "import sys\n"
        "from flaglint.cli import main\n"
        "try:\n"
        f"    main(['lint', {str(script)!r}])\n"
        "except SystemExit as stop:\n"
        "    print('exit', stop.code)\n"
        "print('yaml loaded:', 'yaml' in sys.modules)\n"
    )
    _fresh_interpreter(tmp_path, probe)  # the first run fills the data cache
    done = _fresh_interpreter(tmp_path, probe)
    assert "exit 1" in done.stdout and done.stdout.strip().endswith("yaml loaded: False"), done.stdout + done.stderr


def test_a_cold_check_and_its_fix_build_no_dataclass_and_import_no_typing(tmp_path):
    # the program as `flaglint check` runs it: dataclasses compiles every class's methods from source
    # as its module is imported, and imports inspect (ast, dis, tokenize); typing costs as much again:
    # none of them is needed to check flags, find a fix (the README's check: FL101 and its safe fix)
    # or read an env file
    heavy = ("dataclasses", "inspect", "typing", "ast", "tokenize")
    flags = EXAMPLES / "flags"
    readme = ["check", "--pin", "bbd0f6f10", "--env-file", str(flags / "tuned-256-64x1x8.env"), str(flags / "tuned-256-64x1x8-before.flags")]
    probe = (
        "import sys\n"
        "from flaglint.cli import run\n"
        "for argv in (['check', 'steps=3'], %r):\n"
        "    sys.argv = ['flaglint', *argv]\n"
        "    try:\n"
        "        run()\n"
        "    except SystemExit as stop:\n"
        "        print('exit', stop.code)\n"
        "print('modules', sorted(m for m in sys.modules if m.split('.')[0] in %r))\n"
    ) % (readme, heavy)
    _fresh_interpreter(tmp_path, probe)  # the first run fills the data cache
    done = _fresh_interpreter(tmp_path, probe)
    assert "exit 0" in done.stdout and "exit 1" in done.stdout and "moe_roe_packed_routing_gather: true -> false" in done.stdout, done.stdout + done.stderr
    assert done.stdout.strip().endswith("modules []"), done.stdout + done.stderr


def _read_again_from_the_cache(tmp_path, probe: str, *entries: str):
    """The probe's first run, which writes the cache `entries`, after checking that a second run,
    which reads them, prints the same."""
    first, again = (_fresh_interpreter(tmp_path, probe) for _ in range(2))
    for entry in entries:
        assert list((tmp_path / "cache" / "flaglint").glob(entry)), first.stderr
    assert first.returncode == 0, first.stderr
    assert again.stdout == first.stdout
    return first


def test_the_parsed_conditions_read_from_the_data_cache_are_those_of_the_files(tmp_path):
    # MaxText's checks no rule states (with their conditions) and the Tunix bindings' expressions are
    # kept parsed: the second run reads them from the cache, and must judge as the first
    probe = (
        "from flaglint.pins.pins import not_judged\n"
        "from flaglint.tunix.variables import bindings, load_tunix\n"
        "print([(c.id, c.keys, c.when, c.when_text) for c in not_judged('0.2.5')])\n"
        "print(bindings(load_tunix(), {'NUM_MOE_TOKEN_CHUNKS': 4, 'REMAT_CONTEXT': 'offload'}))\n"
    )
    first = _read_again_from_the_cache(tmp_path, probe, "not-judged-*.json", "tunix-bindings-*.json")
    assert "num_moe_token_chunks" in first.stdout and "Node(" in first.stdout, first.stderr


def test_a_project_config_read_before_costs_no_pydantic_and_an_edit_is_read_again(tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text('[project]\nname = "recipes"\n\n[tool.flaglint]\nfail-on = "warning"\n')
    first, _ = _probe(tmp_path, ("pydantic", "tomllib"))
    assert "pydantic" in first and "tomllib" in first  # the first run types the table
    again, output = _probe(tmp_path, ("pydantic", "tomllib"))
    assert again == [] and "exit 0" in output, output
    config.write_text('[project]\nname = "recipes"\n\n[tool.flaglint]\nfail-on = "sometimes"\n')
    for _ in range(2):  # an error is reported on every run, never cached
        _, output = _probe(tmp_path, ("pydantic",))
        assert "fail-on" in output and "sometimes" in output and "exit 2" in output, output


def test_the_program_collects_nothing_while_it_starts(tmp_path):
    # `python -m flaglint` and the `flaglint` command pause the collector before the program's
    # modules (click's among them) are imported, until the pin and its rules are loaded.
    probe = (
        "import gc, sys\n"
        "from flaglint.core import startup\n"
        "during, ended = [], []\n"
        # start-up ends where end_of_startup() is called (the commands import it after this)
        "end_of_startup = startup.end_of_startup\n"
        "startup.end_of_startup = lambda: (ended.append(True), end_of_startup())\n"
        "sys.argv = ['flaglint', 'check', 'steps=3']\n"
        "from flaglint.__main__ import main\n"
        # from the program's first step: the probe's own imports may meet the collector's threshold
        "gc.callbacks.append(lambda phase, info: phase == 'start' and not ended and during.append(len(sys.modules)))\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    print('collections during start-up:', len(during))\n"
    )
    done = _fresh_interpreter(tmp_path, probe)
    assert done.stdout.strip().endswith("collections during start-up: 0"), done.stdout + done.stderr


def test_the_program_collects_its_work_less_often_than_python_would(tmp_path):
    # a recipe's paths live until its findings are reported: at Python's 700 the collector re-scans them
    probe = (
        "import gc, sys\n"
        "from flaglint.core import startup\n"
        "seen = set()\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and startup._startup['frozen'] and seen.add(gc.get_threshold()[0]))\n"
        f"sys.argv = ['flaglint', 'lint', {str(EXAMPLES / 'recipes' / 'mlperf_397b_256_v7x_before.sh')!r}]\n"
        "from flaglint.__main__ import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    print('thresholds while working:', sorted(seen))\n"
    )
    done = _fresh_interpreter(tmp_path, probe)
    assert done.stdout.strip().endswith(f"thresholds while working: [{startup.WORK_THRESHOLD}]"), done.stdout + done.stderr


def test_the_collector_is_as_it_was_after_a_command():
    assert gc.isenabled()
    thresholds = gc.get_threshold()
    for args in (("check", "steps=3"), ("rules",), ("check", "--pin", "no-such-pin", "steps=3"), ("lint", str(EXAMPLES / "recipes" / "mlperf_397b_256_v7x_before.sh"))):
        run_flaglint(*args)
        assert gc.isenabled() and gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds, args
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
    done = _fresh_interpreter(tmp_path, probe)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("frozen at exit: True"), done.stdout


def test_a_pin_read_from_the_data_cache_is_the_pin_its_files_give(tmp_path):
    # The first run reads the schema file and writes its cache entry; the second reads the entry, each
    # key and model decoded as it is used: every one of them is read here, and must be the same.
    probe = (
        "from flaglint.pins.pins import load_pin\n"
        "pin = load_pin('bbd0f6f10')\n"
        "print(sorted(pin.keys.items()), pin.defaults, sorted((m, pin.models[m]) for m in pin.models),\n"
        "      {name: (sorted(c.keys.items()), c.lacks) for name, c in pin.config_classes.items()}, pin.version, pin.chain)\n"
    )
    first = _read_again_from_the_cache(tmp_path, probe, "schema-*.txt")
    assert len(first.stdout) > 100_000, first.stderr

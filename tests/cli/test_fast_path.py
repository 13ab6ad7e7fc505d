"""`flaglint check …` and `--version` run before click is loaded (cli/fast.py): the same output and
exit code as the click group gives for the same command line, and click is left unloaded."""

from __future__ import annotations

import os
import subprocess
import sys

from click.testing import CliRunner
from commandline import REPO, run_flaglint
from hypothesis import assume, given
from hypothesis import strategies as st

from flaglint.cli.fast import run_without_click

WORDS = ["steps=10", "context=Offload", "use_dpo=true", "packing=true", "remat_polcy=full", "steps", "-", "nonexist.flags",
         "examples/flags/tuned-128.flags", "ici_fsdp_parallelism=3", "log_period=1.5"]
VALUED = {"--pin": ["maxtext-0.2.5", "bbd0f6f10", "nope"], "--env": ["TRAINER_MESH_EXPERT=2", "NOT_A_VARIABLE=1", "novalue"],
          "--format": ["text", "json", "sarif", "github", "junit", "yaml"], "--output-format": ["json"],
          "--fail-on": ["warning", "info", "never"], "--select": ["FL1", "FL004,FL101"], "--ignore": ["FL003", "FL101"],
          "--extend-select": ["FL0"], "--topology": ["v5p-8", "v9-1"], "--model": ["llama2-7b", "no-such-model"],
          "--stdin-filename": ["run.flags"], "--env-file": ["examples/flags/tuned-128.env", "missing.env"],
          "-f": ["examples/flags/tuned-128.flags"], "--tunix-pin": ["tunix-0.1.7"], "--isolated": [None], "--fix": [None],
          "--diff": [None], "--unsafe-fixes": [None], "--show-fixes": [None], "-q": [None], "--quiet": [None], "-e": [None],
          "--exit-zero": [None], "--statistics": [None], "--files": [None], "--max-fixes": ["1"], "--bogus": [None],
          "--help": [None], "--pin=": ["maxtext-0.2.4"], "--fix=": ["1"], "-fexamples/flags/tuned-128.flags": [None]}


@st.composite
def _command_lines(draw):
    words = draw(st.lists(st.sampled_from(WORDS), max_size=3))
    options = draw(st.lists(st.sampled_from(sorted(VALUED)), max_size=4))
    parts = [[word] for word in words]
    for option in options:
        value = draw(st.sampled_from(VALUED[option]))
        parts.append([option] if value is None else [option + value] if option.endswith("=") else [option, value])
    parts = draw(st.permutations(parts))
    return ["check", *[token for part in parts for token in part]]


def _fast(args: list[str]) -> tuple[int, str, str] | None:
    """What the fast path prints and exits with, in click's test isolation; None where it hands the
    command line to click."""
    before = os.getcwd()
    os.chdir(REPO)
    try:
        with CliRunner().isolation(input=b"", env={"FLAGLINT_DEBUG": None}) as (stdout, stderr, _):
            try:
                if not run_without_click(args):
                    return None
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 0
        return code, stdout.getvalue().decode("utf-8", "replace"), stderr.getvalue().decode("utf-8", "replace")
    finally:
        os.chdir(before)


@given(_command_lines())
def test_the_fast_path_prints_what_click_prints(args):
    # --fix writes the files it is given: the comparison runs twice on the same ones
    assume(not ({"--fix", "--diff"} & set(args) and {"-f", "--files", "examples/flags/tuned-128.flags"} & set(args)))
    fast = _fast(args)
    assume(fast is not None)
    done = run_flaglint(*args)
    assert fast == (done.returncode, done.stdout, done.stderr), args


def test_the_fast_path_takes_a_plain_check_and_leaves_the_rest_to_click():
    assert _fast(["check", "--pin", "maxtext-0.2.5", "--env", "TRAINER_MESH_EXPERT=2", "-q", "steps=10"]) is not None
    assert _fast(["check", "--pin=maxtext-0.2.5", "steps=10"]) is not None
    for handed in (["check", "--help"], ["check", "--max-fixes", "2", "steps=10"], ["check", "--fix=1", "steps=10"],
                   ["check", "-qe", "steps=10"], ["check", "--pin"], ["check", "--format", "yaml", "steps=10"],
                   ["check", "--", "python", "-m", "tunix.cli.grpo_main"], ["lint", "x.sh"], ["--version", "check"], []):
        assert _fast(handed) is None, handed


def test_a_plain_check_and_version_never_load_click(tmp_path):
    probe = (
        "import sys\n"
        "sys.argv = ['flaglint', *sys.argv[1:]]\n"
        "from flaglint.__main__ import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as stop:\n"
        "    print('exit', stop.code, 'click loaded:', 'click' in sys.modules)\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    for args, code in ((["check", "steps=10"], 0), (["check", "use_dpo=true", "packing=true"], 1), (["--version"], 0)):
        done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=tmp_path, env=env)
        assert done.stdout.strip().endswith(f"exit {code} click loaded: False"), done.stdout + done.stderr


def test_an_ascii_console_gets_the_bytes_click_writes(tmp_path):
    # PYTHONIOENCODING=ascii: click writes UTF-8 to such a stream, and so does the fast path
    # (--max-fixes is read by click: the same check, the other path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "ascii", "XDG_CACHE_HOME": str(tmp_path)}
    flags = "context=Offload use_dpo=true packing=true log_period=1.5 bogüs=1"
    fast, slow = (subprocess.run([sys.executable, "-m", "flaglint", "check", *extra, flags], capture_output=True, env=env, cwd=REPO)
                  for extra in ([], ["--max-fixes", "3"]))
    assert fast.returncode == slow.returncode == 1 and fast.stdout == slow.stdout and fast.stderr == slow.stderr
    assert "bogüs".encode() in fast.stdout

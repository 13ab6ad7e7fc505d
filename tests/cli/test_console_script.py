"""`flaglint` as a separate process, end to end: the entry point, exit codes, stdin, the environment
and the working directory as the operating system hands them over. The other CLI tests run the same
command in-process (conftest.run_flaglint); these check that the two agree."""

import json
import shutil
import subprocess

import pytest
from commandline import EXAMPLES, REPO, run_flaglint, run_flaglint_process

pytestmark = pytest.mark.process

CASES = [
    # args, stdin, env, exit code
    (("check", "--format", "json", "log_period=100"), None, None, 0),
    (("check", "log_period=1.5 bogus"), None, None, 1),
    (("check", "-"), b"log_period=\xff\xfe", None, 2),
    (("check", "MAXTEXT_EXTRA_FLAGS"), None, {"MAXTEXT_EXTRA_FLAGS": "log_period=1.5"}, 1),
    (("check", "UNSET_FLAGS_VARIABLE"), None, None, 2),
    (("check", "--batch", "-"), b"log_period=100\nbogus\n", None, 1),
    (("check", "--format", "bogus", "log_period=1"), None, None, 2),
    (("lint", "--format", "json", str(EXAMPLES / "recipes" / "mlperf_397b_256_v7x_before.sh")), None, None, 1),
    (("explain", "FL999"), None, None, 2),
    (("check", "--format", "json", "-"), b"log_period=1.5 run_name=" + b"r" * 100_000, None, 1),  # more than a pipe holds
]


@pytest.mark.parametrize(("args", "stdin", "env", "code"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_a_process_and_the_in_process_run_agree(args, stdin, env, code):
    real = run_flaglint_process(*args, stdin=stdin, env=env)
    assert real.returncode == code, real.stderr
    assert "Traceback" not in real.stderr
    here = run_flaglint(*args, stdin=stdin, env=env)
    assert (here.returncode, here.stdout, here.stderr) == (real.returncode, real.stdout, real.stderr.replace("python -m flaglint", "flaglint"))


def test_project_configuration_is_found_from_the_working_directory(tmp_path):
    (tmp_path / "flaglint.toml").write_text('pin = "bbd0f6f10"\n')
    proc = run_flaglint_process("check", "--format", "json", "log_period=1", cwd=tmp_path)
    assert proc.returncode == 0 and json.loads(proc.stdout)["pin"] == "bbd0f6f10"


@pytest.mark.skipif(shutil.which("flaglint") is None, reason="the console script is not installed (pip install .)")
def test_the_installed_console_script():
    proc = subprocess.run(["flaglint", "check", "--pin", "bbd0f6f10", "--env-file", str(EXAMPLES / "flags" / "tuned-256-64x1x8.env"),
                           "-f", str(EXAMPLES / "flags" / "tuned-256-64x1x8-before.flags")],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 1 and "FL101" in proc.stdout, proc.stderr

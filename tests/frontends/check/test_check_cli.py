"""`flaglint check` as users run it: exit codes, the JSON contract, and bad input without tracebacks."""

import json

import pytest
from commandline import EXAMPLES, run_flaglint


def _json(proc):
    return json.loads(proc.stdout)


def test_clean_flags_exit_0_and_json_contract():
    proc = run_flaglint("check", "--format", "json", "log_period=100", "gcs_metrics=yes")
    assert proc.returncode == 0, proc.stderr
    payload = _json(proc)
    notes = payload.pop("notes")
    assert payload == {"version": 2, "pin": "maxtext-0.2.5", "findings": [], "fixes": []}
    # without a topology, the rules on the device count are named as not judged, never passed
    assert len(notes) == 1 and "no device count" in notes[0] and "MXB527C" in notes[0]


def test_stdin_env_name_and_file(tmp_path):
    assert run_flaglint("check", "-", stdin=b"log_period=100\n").returncode == 0
    proc = run_flaglint("check", "MAXTEXT_EXTRA_FLAGS", env={"MAXTEXT_EXTRA_FLAGS": "log_period=1.5"})
    assert proc.returncode == 1 and "FL005" in proc.stdout
    flags = tmp_path / "f.flags"
    flags.write_text("\nlog_period=1.5\n", encoding="utf-8")
    proc = run_flaglint("check", "--format", "json", "-f", str(flags))
    assert _json(proc)["findings"][0]["location"] == {"file": str(flags), "line": 2, "column": 1, "end_column": 15}


def test_batch_one_json_line_per_input():
    lines = b"log_period=100\nnum_moe_token_chunks=4\n\nbogus\n"
    proc = run_flaglint("check", "--batch", "-", stdin=lines)
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["line"] for r in results] == [1, 2, 3, 4]
    assert [[f["rule"] for f in r["findings"]] for r in results] == [[], ["MXCQ1N5"], ["FL012"], ["FL001"]]
    assert proc.returncode == 1


@pytest.mark.parametrize(
    ("args", "stdin", "env", "expected_code"),
    [
        (("check", ""), None, None, 0),
        (("check", "novalue"), None, None, 1),
        (("check", "=value"), None, None, 1),
        (("check", "-"), b"log_period=\xff\xfe", None, 2),
        (("check", "-"), b"k=" + b"x" * 1_000_000, None, 1),
        (("check", "run_name=\"unbalanced log_period=1"), None, None, 1),
        (("check", "UNSET_FLAGS_VARIABLE"), None, None, 2),
        (("check", "--pin", "nonexistent", "log_period=1"), None, None, 2),
        (("check", "--requirements", "/nonexistent/req.txt", "log_period=1"), None, None, 2),
        (("check", "--env", "NOEQUALS", "log_period=1"), None, None, 2),
        (("check",), None, None, 2),
    ],
    ids=lambda value: value[:40] if isinstance(value, (str, bytes)) else None,
)
def test_bad_input_is_one_clear_line_never_a_traceback(args, stdin, env, expected_code):
    proc = run_flaglint(*args, stdin=stdin, env=env)
    assert proc.returncode == expected_code, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    if expected_code == 2:
        assert len(proc.stderr.strip().splitlines()) == 1


def test_requirements_file_without_maxtext_line(tmp_path):
    req = tmp_path / "req.txt"
    req.write_text("numpy==2.0\n", encoding="utf-8")
    proc = run_flaglint("check", "--requirements", str(req), "log_period=1")
    assert proc.returncode == 2 and "no MaxText line" in proc.stderr


def test_seed_examples_give_the_reviews_verdicts():
    def verdict(name, env):
        proc = run_flaglint("check", "--format", "json", "--pin", "bbd0f6f10", "--env-file", str(EXAMPLES / "flags" / env), "-f", str(EXAMPLES / "flags" / name))
        return proc.returncode, {f["rule"] for f in _json(proc)["findings"] if f["severity"] == "error"}

    assert verdict("tuned-128.flags", "tuned-128.env") == (0, set())
    assert verdict("tuned-256-64x1x8-before.flags", "tuned-256-64x1x8.env") == (1, {"FL101"})
    assert verdict("tuned-256-32x2x8-before.flags", "tuned-256-32x2x8.env") == (1, {"FL101"})
    assert verdict("tuned-256-64x1x8-after.flags", "tuned-256-64x1x8.env") == (0, set())
    assert verdict("tuned-256-32x2x8-after.flags", "tuned-256-32x2x8.env") == (0, set())

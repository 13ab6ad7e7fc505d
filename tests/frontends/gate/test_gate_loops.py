"""`gate` on bash -c commands with loops: a read loop is followed to the launch after it, and a
launch after a loop the evaluator cannot get past fails closed (an error unless --allow-unverified)."""

from __future__ import annotations

import pytest
from test_gate import PIN, _block_manifest, _findings, gate

from flaglint.frontends.checker import Checker
from flaglint.frontends.gate.manifests import check_manifest

BAD_LAUNCH = 'MAXTEXT_EXTRA_FLAGS="moe_roe_packed_routing_gather=true moe_chunk_pipeline=false" exec python3 -m tunix.main'


def test_the_launch_after_a_read_loop_is_checked():
    text = _block_manifest(["while read -r name value; do", '  export "${name}=${value}"', "done < /etc/worker.env", BAD_LAUNCH])
    (error,) = _findings(check_manifest(text, checker=Checker(PIN), fix=False))
    assert error.rule == "FL101"


@pytest.mark.slow  # seconds: the loop is followed for the evaluator's 200,000 steps, three times (tests/fixtures/FL011 runs it in the fast suite)
def test_a_launch_after_a_loop_that_does_not_end_fails_closed():
    text = _block_manifest(["i=0", "while true; do i=$((i + 1)); done", BAD_LAUNCH])
    (error,) = _findings(check_manifest(text, checker=Checker(PIN), fix=False))
    assert error.rule == "FL011" and "loop around line 2" in error.message
    result = gate("-", stdin=text)
    assert result.exit_code == 1, result.output
    allowed = gate("--allow-unverified", "-", stdin=text)
    assert allowed.exit_code == 0 and "FL011" in allowed.output, allowed.output


def test_a_wait_loop_after_a_background_launch_is_followed_to_the_end():
    # XPK's container wrapper: the trainer in a background subshell, then a loop that polls it with
    # `kill -0`, a program never run here. Its iterations change nothing, so the script goes on.
    text = _block_manifest([
        "echo Start: $(date);",
        "_term() (kill -SIGTERM $! 2>/dev/null;);",
        "trap _term SIGTERM;",
        f"({BAD_LAUNCH}) & PID=$!;",
        "while kill -0 $PID 2>/dev/null;",
        "    do sleep 5;",
        "done;",
        "wait $PID;",
        "EXIT_CODE=$?;",
        "exit $EXIT_CODE",
    ])
    (error,) = _findings(check_manifest(text, checker=Checker(PIN), fix=False))
    assert error.rule == "FL101"
    waiting = _block_manifest(["until [ -f /tmp/ready ]; do sleep 1; done", BAD_LAUNCH])
    assert [f.rule for f in _findings(check_manifest(waiting, checker=Checker(PIN), fix=False))] == ["FL101"]

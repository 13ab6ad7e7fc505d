"""`flaglint server` on a stream an editor wrote wrong (flaglint/server/framing.py): a body that is
not JSON, a message that is not JSON-RPC, a Content-Length that does not match the body, headers
without one. Each is answered or skipped, and the next request is answered; a length past what the
server reads ends the connection. Written as bytes on the server's stdin, as no LSP client sends them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from commandline import REPO

pytestmark = pytest.mark.process
WAIT = 60  # seconds for an answer: a server that does not give one is deaf


def _frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def _request(number: int, method: str, params=None) -> bytes:
    return _frame(json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}).encode())


def _replies(stdout: bytes) -> list[dict]:
    replies = []
    while stdout:
        head, _, rest = stdout.partition(b"\r\n\r\n")
        length = int(head.split(b"\r\n")[0].split(b":")[1])
        replies.append(json.loads(rest[:length]))
        stdout = rest[length:]
    return replies


def _session(*sent: bytes) -> tuple[int, list[dict]]:
    """The server's exit status and replies, for an initialize, what is SENT, then a shutdown and
    an exit (requests 1 and 99); stdin then closes."""
    stream = b"".join([_request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}}),
                       _frame(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}'), *sent,
                       _request(99, "shutdown"), _frame(b'{"jsonrpc": "2.0", "method": "exit"}')])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "flaglint", "server", "--stdio"], input=stream, capture_output=True,
                          env=env, timeout=WAIT)
    return done.returncode, _replies(done.stdout)


def _errors(replies: list[dict]) -> list[tuple]:
    return [(reply["id"], reply["error"]["code"]) for reply in replies if "error" in reply]


def test_a_well_framed_session_ends_with_shutdown_and_exit():
    code, replies = _session()
    assert code == 0 and [reply["id"] for reply in replies] == [1, 99]


BAD_MESSAGES = [
    (b"{not json", (None, -32700)), (b'{"a": "\xff"}', (None, -32700)), (b"[" * 100_000, (None, -32700)),
    (b'{"foo": 1}', (None, -32600)), (b"[1, 2]", (None, -32600)), (b'{"jsonrpc": "2.0", "id": 7, "method": 5}', (7, -32600)),
    (b'{"jsonrpc": "2.0", "id": 6, "result": null}', None),  # a response to nothing the server asked: no reply
    (b'{"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": {"x": 1}}', (8, -32602)),
    (b'{"jsonrpc": "2.0", "id": 9, "method": "no/such", "params": {}}', (9, -32601)),
]


def test_each_message_that_cannot_be_handled_is_answered_and_the_next_is_read():
    # one session (a server process is most of the cost): each wrong message in turn, then the shutdown
    code, replies = _session(*(_frame(body) for body, _ in BAD_MESSAGES))
    expected = [error for _, error in BAD_MESSAGES if error]
    assert sorted(_errors(replies), key=str) == sorted(expected, key=str), replies
    assert replies[-1]["id"] == 99 and code == 0


@pytest.mark.parametrize("sent", [
    _frame(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}', length=10),  # a length short of the body
    b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}",  # no length at all
    b"x" * 200_000 + b"\r\n",  # a stray line longer than any header
])
def test_a_length_that_does_not_match_is_stepped_over(sent):
    code, replies = _session(sent)
    assert replies[-1]["id"] == 99 and code == 0, replies


def test_a_length_longer_than_the_body_costs_the_message_it_swallows_only():
    swallowed = _request(50, "no/such")
    code, replies = _session(_frame(b"{}", length=2 + len(swallowed)), swallowed, _request(51, "no/such"))
    assert [reply["id"] for reply in replies] == [1, None, 51, 99]  # the body with the request swallowed is no JSON


def test_a_length_past_what_the_server_reads_ends_the_connection():
    code, replies = _session(b"Content-Length: 99999999999\r\n\r\n{}")
    assert [reply["id"] for reply in replies] == [1] and code == 0

"""Random conversations with `flaglint server`, each made from a seed (random.Random): documents of
every kind opened, edited with random text (lone surrogates, NUL in a URI, buffers past the limits,
numbers of any size), hovered and completed at random positions (some that no text has), closed.
bench/fuzz_campaign.py runs many; tests/server/test_conversations.py a few (slow suite).

A conversation ends well when every open document's latest text is diagnosed within WAIT seconds,
no check says it could not check its file, no request is answered with an internal error, and each
flag document holding an undefined key has a diagnostic for it (else it failed open)."""

from __future__ import annotations

import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from hostile_inputs import VALUES, flag_string, huge_number

REPO = Path(__file__).resolve().parent.parent
WAIT = 120  # seconds for the last diagnostics: a hang detector, not a limit on the server's work
UNCHECKED = "flaglint could not check this file"


@dataclass
class Outcome:
    internal: list[str] = field(default_factory=list)  # what went wrong inside the server
    hung: list[str] = field(default_factory=list)  # documents never diagnosed at their latest text
    fail_open: list[str] = field(default_factory=list)  # flag documents with an undefined key and no FL004
    documents: int = 0


class _Server:
    def __init__(self, folder: Path):
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen([sys.executable, "-m", "flaglint", "server", "--stdio"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=folder, env=env)
        self.messages: queue.Queue = queue.Queue()
        self.number = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line == b"\r\n":
                    break
            self.messages.put(json.loads(stream.read(length)))

    def send(self, method: str, params, request: bool = False) -> int | None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.number += 1
            message["id"] = self.number
        body = json.dumps(message).encode("utf-8", "surrogatepass")  # a lone surrogate as \\udXXX, as an editor may send it
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return message.get("id")

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def _text(rng: random.Random, kind: str) -> str:
    if kind == "flags":
        return " ".join([flag_string(rng), "bogus_key=1"] if rng.random() < 0.5 else [flag_string(rng)])
    if kind == "config":
        return "".join(f"{rng.choice(['steps', 'learning_rate', 'run_name', 'base_config'])}: "
                       f"{rng.choice([*VALUES[:20], huge_number(rng)])}\n" for _ in range(rng.randint(0, 4)))
    if kind == "script":
        return f'#!/bin/bash\nexport MAXTEXT_EXTRA_FLAGS="{flag_string(rng)}"\npython3 -m maxtext.trainers.pre_train.train\n'
    if kind == "surrogate":
        return f"steps=1 run_name=\udc80{rng.randint(0, 9)}"
    return "# padding\n" * rng.choice([10, 60_000, 600_000])  # up to 6 MiB: past the script and config limits


_NAMES = {"flags": "run{}.flags", "config": "c{}.yml", "script": "run{}.sh", "surrogate": "s{}.flags", "big": "big{}.sh"}


def conversation(rng: random.Random, folder: Path) -> Outcome:
    """One conversation of 5 to 20 steps with a fresh server in FOLDER (a project pinned to 0.2.5)."""
    (folder / "pyproject.toml").write_text('[tool.flaglint]\npin = "maxtext-0.2.5"\n', encoding="utf-8")
    server, outcome = _Server(folder), Outcome()
    open_texts: dict[str, tuple[int, str, str]] = {}  # uri -> (version, kind, text)
    requests: set[int] = set()
    try:
        server.send("initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}}, request=True)
        server.send("initialized", {})
        for _ in range(rng.randint(5, 20)):
            roll = rng.random()
            if roll < 0.4 or not open_texts:
                kind = rng.choice(list(_NAMES))
                uri = "file:///%00.sh" if rng.random() < 0.05 else (folder / _NAMES[kind].format(rng.randint(0, 3))).as_uri()
                if uri in open_texts:
                    continue
                text = _text(rng, kind)
                open_texts[uri] = (1, kind, text)
                server.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "x", "version": 1, "text": text}})
            elif roll < 0.7:
                uri = rng.choice(sorted(open_texts))
                version, kind, _ = open_texts[uri]
                text = _text(rng, kind)
                open_texts[uri] = (version + 1, kind, text)
                server.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": version + 1},
                                                       "contentChanges": [{"text": text}]})
            elif roll < 0.9:
                uri = rng.choice([*sorted(open_texts), "file:///nowhere.flags"])
                position = {"line": rng.choice([0, 1, 5, -1, 2**31]), "character": rng.choice([0, 3, 40, -1])}
                method = rng.choice(["textDocument/hover", "textDocument/completion"])
                requests.add(server.send(method, {"textDocument": {"uri": uri}, "position": position}, request=True))
            else:
                uri = rng.choice(sorted(open_texts))
                del open_texts[uri]
                server.send("textDocument/didClose", {"textDocument": {"uri": uri}})
        outcome.documents = len(open_texts)
        _await_diagnostics(server, open_texts, requests, outcome)
    finally:
        server.close()
    return outcome


def _await_diagnostics(server: _Server, open_texts: dict, requests: set, outcome: Outcome) -> None:
    latest: dict[str, dict] = {}
    end = time.monotonic() + WAIT
    while time.monotonic() < end and (requests or any(latest.get(uri, {}).get("version") != v for uri, (v, _, _) in open_texts.items())):
        try:
            message = server.messages.get(timeout=max(0.1, end - time.monotonic()))
        except queue.Empty:
            break
        if message is None:
            outcome.internal.append("the server ended")
            return
        if message.get("method") == "textDocument/publishDiagnostics":
            latest[message["params"]["uri"]] = message["params"]
        elif message.get("id") in requests:
            requests.discard(message["id"])
            if message.get("error", {}).get("code") == -32603:
                outcome.internal.append(f"request {message['id']}: {message['error']['message'][:200]}")
    outcome.hung += [uri for uri, (version, _, _) in open_texts.items() if latest.get(uri, {}).get("version") != version]
    outcome.hung += [f"request {number}" for number in requests]
    for uri, (_, kind, text) in open_texts.items():
        diagnostics = latest.get(uri, {}).get("diagnostics", [])
        outcome.internal += [f"{uri}: {d['message'][:200]}" for d in diagnostics if d["message"].startswith(UNCHECKED)]
        if kind == "flags" and "bogus_key=1" in text and uri in latest and not any(d.get("code") in ("FL004", "FL010") for d in diagnostics):
            outcome.fail_open.append(uri)

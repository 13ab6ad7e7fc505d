"""One document cannot stop the language server from checking the others: a buffer that is no
file's text (a lone surrogate, a NUL in its URI), a buffer over the command line's limit and a check
that raises are each diagnosed on that document alone; a request that names no open document or
a position no text has is answered with the protocol's error.

The server here runs with one fault put in on purpose (HARNESS): checking a file named
`explodes.flags` raises, as a defect in a check would. Everything else is the real server.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_server import codes, diagnostics_until, open_document

pytestmark = pytest.mark.asyncio(loop_scope="module")

HARNESS = """
from flaglint.server.documents import Workbench
real = Workbench.check
def check(self, path, text, buffers):
    if path.endswith("explodes.flags"):
        raise RuntimeError("a defect in a check")
    return real(self, path, text, buffers)
Workbench.check = check
import sys
sys.argv = ["flaglint", "server", "--stdio"]
from flaglint.cli import run
run()
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("isolation")
    (root / "pyproject.toml").write_text('[tool.flaglint]\npin = "maxtext-0.2.5"\n', encoding="utf-8")
    return root


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-c", HARNESS]))
async def client(lsp_client: LanguageClient, project: Path):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=from_fs_path(str(project))))
    yield
    await lsp_client.shutdown_session()


async def _other_document_is_checked(client: LanguageClient, project: Path, name: str) -> None:
    uri = open_document(client, project / name, "plaintext", "bogus_key=1 steps=2")
    assert codes(await diagnostics_until(client, uri, lambda d: d)) == ["FL004"]


def _messages(diagnostics) -> list[str]:
    return [diagnostic.message for diagnostic in diagnostics]


async def test_a_buffer_with_a_lone_surrogate_is_diagnosed_alone(client: LanguageClient, project: Path):
    bad = open_document(client, project / "surrogate.flags", "plaintext", "steps=1 run_name=\ud800x")
    await _other_document_is_checked(client, project, "after-surrogate.flags")
    (message,) = _messages(await diagnostics_until(client, bad, lambda d: d))
    assert "not UTF-8 (a lone surrogate at line 1, column 18)" in message


async def test_a_document_whose_uri_holds_a_nul_is_diagnosed_alone(client: LanguageClient, project: Path):
    uri = "file:///%00.sh"
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri, "shellscript", 1, "python3 -m maxtext.trainers.pre_train.train steps=1\n")))
    await _other_document_is_checked(client, project, "after-nul.flags")
    (message,) = _messages(await diagnostics_until(client, uri, lambda d: d))
    assert "a file name holds no NUL character" in message


async def test_a_check_that_raises_says_so_on_its_document(client: LanguageClient, project: Path):
    uri = open_document(client, project / "explodes.flags", "plaintext", "steps=1")
    await _other_document_is_checked(client, project, "after-a-defect.flags")
    (diagnostic,) = await diagnostics_until(client, uri, lambda d: d)
    assert diagnostic.message == "flaglint could not check this file: RuntimeError: a defect in a check"
    assert diagnostic.severity == types.DiagnosticSeverity.Error and diagnostic.code == "FL010"


async def test_a_buffer_over_the_limit_of_its_kind_is_refused_as_the_command_line_refuses_it(client: LanguageClient, project: Path):
    uri = open_document(client, project / "big.sh", "shellscript", "# padding\n" * 524_288)  # 5 MiB
    (message,) = _messages(await diagnostics_until(client, uri, lambda d: d))
    assert message.endswith("5,242,880 bytes, over the 512 KiB flaglint reads of a recipe script")


async def test_a_path_with_a_space_is_checked(client: LanguageClient, project: Path):
    await _other_document_is_checked(client, project, "with space.flags")


@pytest.mark.parametrize("line, character", [(-1, 0), (0, -5), (2**31, 0)])
async def test_a_position_no_text_has_is_an_invalid_params_error(client: LanguageClient, project: Path, line, character):
    uri = open_document(client, project / "hovered.flags", "plaintext", "steps=1")
    position = types.Position(0, 0)
    object.__setattr__(position, "line", line)  # past lsprotocol's own check, as a client with a bug sends it
    object.__setattr__(position, "character", character)
    with pytest.raises(JsonRpcInvalidParams, match="for textDocument/hover"):
        await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position))
    assert (await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 1)))) is not None


@pytest.mark.parametrize("uri", ["file:///%00.flags", "untitled:Untitled-1", "file:///nowhere/not-open.flags"])
async def test_a_request_on_a_document_that_is_not_open_is_an_invalid_params_error(client: LanguageClient, uri):
    with pytest.raises(JsonRpcInvalidParams, match="is not an open document"):
        await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 0)))
    with pytest.raises(JsonRpcInvalidParams, match="is not an open document"):
        await client.text_document_completion_async(types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(0, 0)))

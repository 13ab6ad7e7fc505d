"""`flaglint server` driven as an editor drives it: a real server process over stdio (pytest-lsp).

One server serves every test of the module, as one editor session would: the first check loads
the pin, the later ones find it loaded. The project holds copies of the example recipes and a
pyproject.toml that pins the fork commit of google/tunix#2884, where the 256-chip branch breaks
FL101 (moe_chunk_pipeline=false with moe_roe_packed_routing_gather=true).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from commandline import REPO
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = pytest.mark.asyncio(loop_scope="module")

PIN = "bbd0f6f10"
CONFLICT = "moe_chunk_pipeline=false"
WAIT = 120  # seconds a test waits for the server before it fails, never what a check finds


def written_document(client: LanguageClient, path: Path, text: str, language: str) -> str:
    """The file written with `text` and opened in the editor: its URI."""
    path.write_text(text, encoding="utf-8")
    return open_document(client, path, language)


async def code_actions(client: LanguageClient, uri: str, diagnostic, diagnostics: list | None = None, only: list | None = None) -> list:
    """The code actions the server offers at a diagnostic's range (`diagnostics`: those the editor
    names there, by default the diagnostic itself; `only`: the kinds asked for)."""
    return await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), diagnostic.range,
        types.CodeActionContext(diagnostics=[diagnostic] if diagnostics is None else diagnostics, only=only)))


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("project")
    shutil.copytree(REPO / "examples", root / "examples")
    (root / "pyproject.toml").write_text(f'[tool.flaglint]\npin = "{PIN}"\n', encoding="utf-8")
    return root


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "flaglint", "server", "--stdio"]))
async def client(lsp_client: LanguageClient, project: Path):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=from_fs_path(str(project))))
    yield
    await lsp_client.shutdown_session()


async def diagnostics_until(client: LanguageClient, uri: str, holds) -> list[types.Diagnostic]:
    """The diagnostics of URI once the server has published ones for which HOLDS is true."""

    async def published():
        while not (uri in client.diagnostics and holds(client.diagnostics[uri])):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return list(client.diagnostics[uri])

    return await asyncio.wait_for(published(), WAIT)


def codes(diagnostics) -> list[str]:
    return [diagnostic.code for diagnostic in diagnostics]


def text_at(text: str, span: types.Range) -> str:
    """The text of a one-line range (the examples are ASCII: columns are characters)."""
    assert span.start.line == span.end.line
    return text.split("\n")[span.start.line][span.start.character:span.end.character]


def apply_edits(text: str, edits) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = offsets[edit.range.start.line] + edit.range.start.character
        end = offsets[edit.range.end.line] + edit.range.end.character
        text = text[:start] + edit.new_text + text[end:]
    return text


def open_document(client: LanguageClient, path: Path, language: str, text: str | None = None, version: int = 1) -> str:
    uri = from_fs_path(str(path))
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri, language, version, path.read_text(encoding="utf-8") if text is None else text)))
    return uri


async def checked_document(client: LanguageClient, path: Path, language: str) -> str:
    """Open the file and wait for its first diagnostics: the server has read it."""
    uri = open_document(client, path, language)
    await diagnostics_until(client, uri, lambda d: True)
    return uri


def close_documents(client: LanguageClient, *uris: str) -> None:
    for uri in uris:
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))


async def hover_at(client: LanguageClient, uri: str, line: int, character: int) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, character)))


def change_document(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version=version, uri=uri), [types.TextDocumentContentChangeWholeDocument(text)]))


async def test_the_256_chip_conflict_is_a_diagnostic_at_its_token(client: LanguageClient, project: Path):
    script = project / "examples/recipes/mlperf_397b_256_v7x_before.sh"
    uri = open_document(client, script, "shellscript")
    found = await diagnostics_until(client, uri, lambda d: "FL101" in codes(d))
    conflict = next(d for d in found if d.code == "FL101")
    assert text_at(script.read_text(encoding="utf-8"), conflict.range) == CONFLICT
    assert conflict.severity == types.DiagnosticSeverity.Error
    assert "when: TRAINER_TPU_SLICE=tpu7x:4x8x8" in conflict.message  # the witness
    # the findings in the files it sources are published for those files
    block = from_fs_path(str(project / "examples/recipes/tuned_block.sh"))
    assert "FL003" in codes(await diagnostics_until(client, block, lambda d: bool(d)))
    close_documents(client, uri)
    assert await diagnostics_until(client, uri, lambda d: not d) == []


async def test_the_quick_fix_makes_the_edit_fix_makes_and_the_diagnostic_goes(client: LanguageClient, project: Path):
    script = project / "examples/recipes/mlperf_397b_256_v7x_before.sh"
    text = script.read_text(encoding="utf-8")
    uri = open_document(client, script, "shellscript")
    conflict = next(d for d in await diagnostics_until(client, uri, lambda d: "FL101" in codes(d)) if d.code == "FL101")
    actions = await code_actions(client, uri, conflict)
    fixing = [action for action in actions if any(d.code == "FL101" for d in action.diagnostics or [])]
    assert len(fixing) == 1
    action = fixing[0]
    # the pipeline turned back on is an unsafe fix: offered, marked, never preferred
    assert "unsafe" in action.title and not action.is_preferred
    fixed = apply_edits(text, action.edit.changes[uri])

    recipes = project / "fixed_by_the_command_line"
    shutil.copytree(script.parent, recipes)
    copy = recipes / script.name
    subprocess.run([sys.executable, "-m", "flaglint", "lint", "--fix", "--unsafe-fixes", "-q", "--exit-zero", str(copy)],
                   cwd=project, check=True, capture_output=True)
    assert fixed == copy.read_text(encoding="utf-8")

    change_document(client, uri, fixed, 2)
    remaining = await diagnostics_until(client, uri, lambda d: "FL101" not in codes(d))
    assert "FL101" not in codes(remaining)
    assert script.read_text(encoding="utf-8") == text  # the server never writes
    close_documents(client, uri)


async def test_an_unsaved_edit_changes_the_diagnostics(client: LanguageClient, project: Path):
    flags = project / "examples/flags/tuned-256-64x1x8-before.flags"
    text = flags.read_text(encoding="utf-8")
    uri = open_document(client, flags, "plaintext")
    await diagnostics_until(client, uri, lambda d: "FL101" in codes(d))
    change_document(client, uri, text.replace("moe_roe_packed_routing_gather=true", "moe_roe_packed_routing_gather=false"), 2)
    assert "FL101" not in codes(await diagnostics_until(client, uri, lambda d: "FL101" not in codes(d)))
    assert flags.read_text(encoding="utf-8") == text
    change_document(client, uri, text, 3)  # and back, still unsaved
    await diagnostics_until(client, uri, lambda d: "FL101" in codes(d))
    close_documents(client, uri)


async def test_a_sourced_file_is_read_from_its_unsaved_buffer(client: LanguageClient, project: Path):
    block = project / "examples/recipes/tuned_block.sh"
    script = project / "examples/recipes/mlperf_397b_256_v7x_before.sh"
    uri = open_document(client, script, "shellscript")
    await diagnostics_until(client, uri, lambda d: "FL101" in codes(d))
    edited = block.read_text(encoding="utf-8").replace("moe_roe_packed_routing_gather=true", "moe_roe_packed_routing_gather=false")
    block_uri = open_document(client, block, "shellscript", edited)
    assert "FL101" not in codes(await diagnostics_until(client, uri, lambda d: "FL101" not in codes(d)))
    close_documents(client, block_uri, uri)


async def test_hover_on_a_key_and_on_a_finding(client: LanguageClient, project: Path):
    script = project / "examples/recipes/mlperf_397b_256_v7x_before.sh"
    uri = open_document(client, script, "shellscript")
    conflict = next(d for d in await diagnostics_until(client, uri, lambda d: "FL101" in codes(d)) if d.code == "FL101")
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), conflict.range.start))
    shown = hover.contents.value
    assert f"**moe_chunk_pipeline**: MaxText key at {PIN}" in shown
    assert "- type: `bool`" in shown and "- default: `false`" in shown
    assert "FL101" in shown.split("rules that read it:")[1].split("\n")[0]
    assert "FL101: packed routing gather needs the chunk pipeline" in shown  # `flaglint explain FL101`
    close_documents(client, uri)


async def test_completion_of_keys_and_values_in_a_config(client: LanguageClient, project: Path):
    config = project / "my_run.yml"
    text = "base_config: base.yml\nmoe_roe_packed\nmoe_chunk_pipeline: \n"
    config.write_text(text, encoding="utf-8")
    uri = await checked_document(client, config, "yaml")
    keys = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(1, len("moe_roe_packed"))))
    labels = [item.label for item in keys]
    assert "moe_roe_packed_routing_gather" in labels and all(label.startswith("moe_roe_packed") for label in labels)
    values = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(2, len("moe_chunk_pipeline: "))))
    assert [item.label for item in values] == ["true", "false"]
    close_documents(client, uri)


async def test_completion_in_a_flag_file_and_nothing_for_an_untitled_buffer(client: LanguageClient, project: Path):
    flags = project / "run.flags"
    flags.write_text("steps=10 moe_chunk_pipeline=\n", encoding="utf-8")
    uri = await checked_document(client, flags, "plaintext")
    values = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(0, len("steps=10 moe_chunk_pipeline="))))
    assert [item.label for item in values] == ["true", "false"]
    keys = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(0, len("step"))))
    assert [(item.label, item.insert_text) for item in keys if item.label == "steps"] == [("steps", "steps=")]
    untitled = "untitled:Untitled-1"
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(untitled, "shellscript", 1, "steps=1\n")))
    assert await hover_at(client, untitled, 0, 1) is None
    close_documents(client, uri, untitled)


async def test_hover_on_tunix_keys_in_a_tunix_config_and_on_a_tunix_command_line(client: LanguageClient, project: Path):
    config = project / "grpo.yaml"
    text = "model_config:\n  model_source: kaggle\n  mesh:\n    shape: (2,2)\nbatch_size: 8\n"
    config.write_text(text, encoding="utf-8")
    uri = await checked_document(client, config, "yaml")
    hover = await hover_at(client, uri, 1, 4)
    shown = hover.contents.value
    assert shown.startswith("**model_config.model_source**: Tunix key at tunix-0.1.7 (base_config.yaml, line ")
    assert "- type: `str`" in shown and '- default: `"huggingface"`' in shown
    assert "- defined at: tunix-0.1.0, tunix-0.1.1" in shown and shown.count("tunix-0.1.") >= 9
    assert "TX13FFD" in shown.split("checks that read it:")[1]  # model_source's choices at 0.1.7
    nested = await hover_at(client, uri, 3, 6)
    assert nested.contents.value.startswith("**model_config.mesh.shape**: Tunix key at tunix-0.1.7")
    top = await hover_at(client, uri, 4, 2)
    assert top.contents.value.startswith("**batch_size**: Tunix key") and "- default: `16`" in top.contents.value
    script = project / "run_tunix.sh"
    lines = ["#!/bin/bash", "python -m tunix.cli.grpo_main base_config.yaml \\", "  grpo_config.num_generations=4 max_target_length=64"]
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    script_uri = await checked_document(client, script, "shellscript")
    on_line = await hover_at(client, script_uri, 2, 5)
    assert on_line.contents.value.startswith("**grpo_config.num_generations**: Tunix key at tunix-0.1.7")
    # max_target_length is a MaxText key too: on a Tunix command line it is Tunix's
    both = await hover_at(client, script_uri, 2, lines[2].index("max_target") + 1)
    assert both.contents.value.startswith("**max_target_length**: Tunix key") and "MaxText key" not in both.contents.value
    close_documents(client, uri, script_uri)


async def test_completion_of_tunix_keys_nested_in_a_config_and_dotted_on_a_command_line(client: LanguageClient, project: Path):
    config = project / "peft.yaml"
    text = "model_config:\n  use_f\n  mesh:\n    axis\nmodel_config_x: 1\noffload_to_cpu: \nbatch\n"
    config.write_text(text, encoding="utf-8")
    uri = await checked_document(client, config, "yaml")

    async def labels(document: str, line: int, column: int) -> list[tuple[str, str | None]]:
        items = await client.text_document_completion_async(types.CompletionParams(
            types.TextDocumentIdentifier(document), types.Position(line, column)))
        return [(item.label, item.insert_text) for item in items]

    assert await labels(uri, 1, len("  use_f")) == [("use_flash_attention", "use_flash_attention: ")]
    assert await labels(uri, 3, len("    axis")) == [("axis_names", "axis_names: ")]
    assert await labels(uri, 5, len("offload_to_cpu: ")) == [("true", None), ("false", None)]
    assert await labels(uri, 6, len("batch")) == [("batch_size", "batch_size: ")]  # the top level again
    script = project / "run_peft.sh"
    script.write_text("#!/bin/bash\npython -m tunix.cli.peft_main base_config.yaml \\\n  model_config.mesh.sh\n", encoding="utf-8")
    script_uri = await checked_document(client, script, "shellscript")
    assert await labels(script_uri, 2, len("  model_config.mesh.sh")) == [("model_config.mesh.shape", "model_config.mesh.shape=")]
    close_documents(client, uri, script_uri)


async def test_a_quick_fix_of_a_tunix_command_line_is_the_edit_lint_fix_makes(client: LanguageClient, project: Path):
    script = project / "run_sft.sh"
    text = "#!/bin/bash\nexport HF_TOKEN=x\npython -m tunix.cli.peft_main base_config.yaml \\\n  batch_sise=8 \\\n  num_batches=2.0\n"
    script.write_text(text, encoding="utf-8")
    uri = open_document(client, script, "shellscript")
    typo = next(d for d in await diagnostics_until(client, uri, lambda d: "FL204" in codes(d)) if d.code == "FL204")
    actions = await code_actions(client, uri, typo)
    fixing = [action for action in actions if any(d.code == "FL204" for d in action.diagnostics or [])]
    assert len(fixing) == 1 and "unsafe" not in fixing[0].title and fixing[0].is_preferred
    # the typo's fix only: the value another diagnostic names is left as it is
    fixed = apply_edits(text, fixing[0].edit.changes[uri])
    assert fixed == text.replace("  batch_sise=8 \\\n", "  \\\n")
    everything = await code_actions(client, uri, typo, diagnostics=[], only=[types.CodeActionKind.SourceFixAll])
    (fix_all,) = everything
    assert fix_all.kind == types.CodeActionKind.SourceFixAll
    fixed = apply_edits(text, fix_all.edit.changes[uri])
    assert fixed == text.replace("  batch_sise=8 \\\n", "  \\\n").replace("num_batches=2.0", "num_batches=2")
    change_document(client, uri, fixed, 2)
    assert await diagnostics_until(client, uri, lambda d: "FL204" not in codes(d)) == []
    close_documents(client, uri)


async def test_a_tunix_mesh_and_optimizer_name_each_have_an_unsafe_quick_fix(client: LanguageClient, project: Path):
    script = project / "run_guess.sh"
    text = ("#!/bin/bash\nexport HF_TOKEN=x\npython -m tunix.cli.peft_main base_config.yaml tokenizer_config.tokenizer_path=/t \\\n"
            "  'model_config.mesh.shape=(4,1,1)' \\\n  optimizer_config.opt_type=adamz optimizer_config.learning_rate=1e-5\n")
    script.write_text(text, encoding="utf-8")
    uri = open_document(client, script, "shellscript")
    found = await diagnostics_until(client, uri, lambda d: {"FL212", "FL218"} <= set(codes(d)))
    for code, old, new in (("FL212", "(4,1,1)", "(4,1)"), ("FL218", "=adamz", "=adam")):
        diagnostic = next(d for d in found if d.code == code)
        actions = await code_actions(client, uri, diagnostic, only=[types.CodeActionKind.QuickFix])
        (fixing,) = [action for action in actions if diagnostic in (action.diagnostics or [])]
        # a guess: labelled unsafe, not preferred, and only this diagnostic's word changes
        assert "unsafe" in fixing.title and not fixing.is_preferred
        assert apply_edits(text, fixing.edit.changes[uri]) == text.replace(old, new)
    close_documents(client, uri)


async def test_a_tunix_finding_in_the_override_file_has_its_quick_fix_there(client: LanguageClient, project: Path):
    over = project / "over_guess.yaml"
    over_text = "optimizer_config:\n  opt_type: adamz  # optax's?\n  learning_rate: 1e-5\n"
    over.write_text(over_text, encoding="utf-8")
    script = project / "run_over.sh"
    script.write_text("#!/bin/bash\nexport HF_TOKEN=x\npython -m tunix.cli.peft_main base_config.yaml "
                      "override_config_file=over_guess.yaml tokenizer_config.tokenizer_path=/t\n", encoding="utf-8")
    uri = open_document(client, script, "shellscript")
    over_uri = from_fs_path(str(over))
    await diagnostics_until(client, over_uri, lambda d: "FL218" in codes(d))
    open_document(client, over, "yaml")  # the editor shows the file the diagnostic is in
    found = await diagnostics_until(client, over_uri, lambda d: "FL218" in codes(d))
    diagnostic = next(d for d in found if d.code == "FL218")
    (fixing,) = [action for action in await code_actions(client, over_uri, diagnostic, only=[types.CodeActionKind.QuickFix])
                 if diagnostic in (action.diagnostics or [])]
    assert "unsafe" in fixing.title and list(fixing.edit.changes) == [over_uri]
    assert apply_edits(over_text, fixing.edit.changes[over_uri]) == over_text.replace("adamz", "adam")
    close_documents(client, uri, over_uri)


async def test_each_diagnostic_has_its_own_quick_fixes_and_an_unsafe_one_is_labelled(client: LanguageClient, project: Path):
    text = "use_dpo=true packing=true context=Offload remat_polcy=full"
    uri = written_document(client, project / "mixed.flags", text, "plaintext")
    found = await diagnostics_until(client, uri, lambda d: {"FL004", "FL005"} <= set(codes(d)))

    async def fixes_of(code: str) -> list[tuple[str, str]]:
        diagnostic = next(d for d in found if d.code == code)
        actions = await code_actions(client, uri, diagnostic, only=[types.CodeActionKind.QuickFix])
        return [(action.title, apply_edits(text, action.edit.changes[uri])) for action in actions
                if diagnostic in (action.diagnostics or [])]

    assert await fixes_of("FL005") == [("fix (safe): context: Offload -> offload", text.replace("Offload", "offload"))]
    typo = await fixes_of("FL004")
    assert typo == [("fix (safe): drop remat_polcy=full", text.removesuffix(" remat_polcy=full")),
                    ("fix (unsafe): drop remat_polcy=full, add remat_policy=full", text.replace("remat_polcy", "remat_policy"))]
    conflict = next(d.code for d in found if d.code.startswith("MX"))
    turned_off = {fixed for _, fixed in await fixes_of(conflict)}
    only_unsafe = written_document(client, project / "refused.flags", "log_period=1.5", "plaintext")
    (typed,) = await diagnostics_until(client, only_unsafe, lambda d: "FL005" in codes(d))
    (action,) = await code_actions(client, only_unsafe, typed)
    # its only fix drops the value (the default comes back): offered, labelled, not preferred; no safe fix to make whole
    assert action.title == "fix (unsafe): drop log_period=1.5" and not action.is_preferred
    close_documents(client, only_unsafe)
    assert turned_off == {text.replace("packing=true", "packing=false"), text.removeprefix("use_dpo=true ")}  # false by default
    close_documents(client, uri)


async def test_a_conflict_in_a_config_buffer_has_a_quick_fix_for_each_way_out(client: LanguageClient, project: Path):
    text = "base_config: base.yml\nuse_dpo: true\npacking: true\n"
    uri = written_document(client, project / "dpo.yml", text, "yaml")
    found = await diagnostics_until(client, uri, lambda d: any(code.startswith("MX") for code in codes(d)))
    conflict = next(d for d in found if d.code.startswith("MX"))
    actions = await code_actions(client, uri, conflict)
    fixed = {apply_edits(text, action.edit.changes[uri]) for action in actions if conflict in (action.diagnostics or [])}
    assert fixed == {text.replace("packing: true", "packing: false"), text.replace("use_dpo: true", "use_dpo: false")}
    close_documents(client, uri)


async def test_a_misspelled_key_in_a_config_buffer_has_the_quick_fix_check_gives(client: LanguageClient, project: Path):
    # as `flaglint check run.yml` fixes it: the key renamed to the one "did you mean" names, in place
    text = "base_config: base.yml\nremat_polcy: full\nsteps: 10\n"
    uri = written_document(client, project / "typo.yml", text, "yaml")
    found = await diagnostics_until(client, uri, lambda d: "FL004" in codes(d))
    typo = next(d for d in found if d.code == "FL004")
    actions = await code_actions(client, uri, typo)
    fixed = [apply_edits(text, action.edit.changes[uri]) for action in actions if typo in (action.diagnostics or [])]
    assert text.replace("remat_polcy", "remat_policy") in fixed, [action.title for action in actions]
    close_documents(client, uri)

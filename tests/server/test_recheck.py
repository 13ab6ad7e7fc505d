"""A document checked again after an edit, as the server checks it on each keystroke, says what a
first check of the edited text says: the solver's answers kept from the checks before are given
again only where everything they read is as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from commandline import REPO

from flaglint.frontends import checker as checker_module
from flaglint.frontends.checker import Checker
from flaglint.pins import store
from flaglint.server.documents import DocumentCheck, Workbench

WRAPPER = "mlperf_gbs1024_submission.sh"
# The default every launch of the wrapper reads, as server_bench.py edits it.
CHUNK = 'COMPUTE_LOGPS_CHUNK_SIZE="${{COMPUTE_LOGPS_CHUNK_SIZE:-{}}}"'
# The 256-chip recipe turns the pipelined chunk loop off after the tuned keys turned the packed
# gather on: FL101, found by the solver on a group of eight inputs.
BEFORE = "mlperf_397b_256_v7x_before.sh"
PIPELINE_OFF = "moe_chunk_pipeline=false"


def _said(check: DocumentCheck) -> tuple:
    return [(f.rule, f.severity, f.location, f.message, f.witness) for f in check.findings], check.notes


def _checked_once(tmp_path: Path, pin: str) -> tuple[Workbench, Path, str, DocumentCheck]:
    """A server's workbench, the copy of examples/recipes' wrapper it checked once at `pin`, its
    text, and that check."""
    (tmp_path / "pyproject.toml").write_text(f'[tool.flaglint]\npin = "{pin}"\n', encoding="utf-8")
    folder = tmp_path / "recipes"
    shutil.copytree(REPO / "examples" / "recipes", folder)
    wrapper = folder / WRAPPER
    text = wrapper.read_text(encoding="utf-8")
    bench = Workbench()
    return bench, wrapper, text, bench.check(str(wrapper), text, {})


@pytest.mark.slow
def test_a_recheck_after_an_edit_says_what_a_first_check_of_the_edited_text_says(tmp_path: Path):
    bench, wrapper, text, first = _checked_once(tmp_path, "bbd0f6f10")
    before = wrapper.parent / BEFORE
    assert "FL101" in {f.rule for f in first.findings}
    # a value every launch reads and no rule of the solver's group does: its answers hold
    edited = text.replace(CHUNK.format(4096), CHUNK.format(4224))
    assert edited != text
    assert _said(bench.check(str(wrapper), edited, {})) == _said(Workbench().check(str(wrapper), edited, {}))
    # a key the broken rule reads: the rule holds now, whatever was answered before
    buffers = {str(before): before.read_text(encoding="utf-8").replace(PIPELINE_OFF, "moe_chunk_pipeline=true")}
    again = bench.check(str(wrapper), edited, buffers)
    assert "FL101" not in {f.rule for f in again.findings}
    assert _said(again) == _said(Workbench().check(str(wrapper), edited, buffers))


@pytest.mark.slow
def test_a_recheck_reads_the_tuned_block_once_for_each_way_it_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    bench, wrapper, text, _ = _checked_once(tmp_path, "bbd0f6f10")
    judged: list[str] = []
    shared_config = Checker.shared_config

    def counted(self, source, env):
        judged.append(source.text)
        return shared_config(self, source, env)

    monkeypatch.setattr(Checker, "shared_config", counted)
    checked = bench.check(str(wrapper), text.replace(CHUNK.format(4096), CHUNK.format(4224)), {})
    assert "FL101" in {f.rule for f in checked.findings}
    # The tuned block is read behind seven inputs (1,620 combinations of their classes) and
    # written in 33 ways (text and place): its group's launches are a few for each way.
    assert len(judged) <= 64


@pytest.mark.slow
def test_a_recheck_resolves_each_launch_once_and_lists_no_pin_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    bench, wrapper, text, _ = _checked_once(tmp_path, "maxtext-0.2.5")  # the tuned block's keys are undefined there
    resolved: list[tuple] = []
    listed: list[int] = []
    resolve, entries = checker_module.resolve, store.entries

    def counted_resolve(source, pin, env, *args):
        resolved.append((source.text, tuple(sorted(env.items()))))
        return resolve(source, pin, env, *args)

    def counted_entries(*args, **kwargs):
        listed.append(1)
        return entries(*args, **kwargs)

    monkeypatch.setattr(checker_module, "resolve", counted_resolve)
    monkeypatch.setattr(store, "entries", counted_entries)
    edited = text.replace(CHUNK.format(4096), CHUNK.format(4224))
    checked = bench.check(str(wrapper), edited, {})
    assert sum(f.rule == "FL004" for f in checked.findings) >= 9  # the nine keys of google/tunix#2884 its pin lacks
    # every launch reads the edited default: each is resolved again, once, for its trainer and its fixes alike
    assert resolved and len(resolved) == len(set(resolved))
    assert listed == []  # the pins of the undefined keys: from what the first check listed

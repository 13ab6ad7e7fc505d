"""`flaglint server`: the language server, over stdio (pygls, with lsprotocol's types).

Each open document is checked by the same front ends as the command line (documents.py), from the
editor's buffers. One worker thread checks, so the pin, the rules and the solver stay loaded; the
edits that arrive while it works coalesce into one more check of the newest text, and a result for
text that has since changed is never published.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec, TextDocument

from flaglint.core.findings import Finding, InputError
from flaglint.core.location import Location
from flaglint.core.reading import QUOTED_FILE, Unreadable, read_text
from flaglint.core.version import __version__
from flaglint.frontends.checker import Checker
from flaglint.report import describe_fix
from flaglint.report.text_format import witness_line
from flaglint.rules.ruleset import built_in
from flaglint.server.documents import DocumentCheck, FileFix, Workbench, document_kind
from flaglint.server.framing import Framing
from flaglint.server.knowledge import (
    key_hover,
    keys_starting,
    on_tunix_command_line,
    rule_hover,
    tunix_dotted_keys_starting,
    tunix_key_hover,
    tunix_keys_under,
    tunix_value_choices,
    value_choices,
    word_at,
    yaml_section,
)
from flaglint.server.positions import (
    byte_position,
    character_index,
    column_position,
    lines_of,
)
from flaglint.tunix.pins import TunixPin, load_tunix_pin

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
             "info": types.DiagnosticSeverity.Information}
_YAML_KEY = re.compile(r"^([A-Za-z_]\w*)$")
_YAML_VALUE = re.compile(r"^([A-Za-z_]\w*):\s*['\"]?([^'\"\s]*)$")
_FLAG_KEY = re.compile(r"(?:^|[\s\"'])([A-Za-z_]\w*)$")
_FLAG_VALUE = re.compile(r"(?:^|[\s\"'])([A-Za-z_]\w*)=([^\s\"']*)$")
_NESTED_YAML_KEY = re.compile(r"^ *([A-Za-z_]\w*)$")
_NESTED_YAML_VALUE = re.compile(r"^ *([A-Za-z_]\w*):\s*['\"]?([^'\"\s]*)$")
_DOTTED_KEY = re.compile(r"(?:^|[\s\"'])([A-Za-z_][\w.]*)$")
_KEY_THEN_VALUE = re.compile(r"[ \t]*:[ \t]*")
_DOTTED_VALUE = re.compile(r"(?:^|[\s\"'])([A-Za-z_][\w.]*)=([^\s\"']*)$")


@dataclass
class _Placed:
    """A finding of a check, as the diagnostic published for the file it is in."""

    finding: Finding
    diagnostic: types.Diagnostic


@dataclass
class _Result:
    version: int | None
    checked: DocumentCheck
    placed: dict[str, list[_Placed]]  # uri -> the findings in that file


class FlaglintServer(LanguageServer):
    def __init__(self, settings_file: str | None = None):
        super().__init__("flaglint", __version__)
        self.bench = Workbench(settings_file)
        self.results: dict[str, _Result] = {}  # by the uri of the document checked
        self.pending: dict[str, None] = {}  # uris to check, in order
        self.worker: asyncio.Future | None = None
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="flaglint-check")

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio, reading messages as framing.py does: a message framed or written wrong
        is answered or skipped, never the end of what the server hears."""
        writer = StdoutWriter(stdout or sys.stdout.buffer)
        self.protocol.set_writer(writer)
        try:
            asyncio.run(Framing(self.protocol, stdin or sys.stdin.buffer, writer.write).serve())
        except (BrokenPipeError, KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    @property
    def codec(self) -> PositionCodec:
        return PositionCodec(self.workspace.position_encoding)

    def is_open(self, uri: str) -> bool:
        """Whether the editor has URI open (pygls keys its documents by the URI with its %-escapes
        decoded: a path with a space in it is `%20` in the editor's URI)."""
        return unquote(uri) in self.workspace.text_documents

    def units(self, text: str) -> int:
        return self.codec.client_num_units(text)

    # checking

    def warm_up(self, folders: list[str]) -> None:
        """Load the checkers of the workspace's folders in the worker before the first document
        comes (settings that cannot be read are said by that document's check)."""

        def load() -> None:
            for folder in folders:
                try:
                    self.bench.checker(self.bench.settings(Path(folder)))
                except InputError:
                    continue

        self.executor.submit(load)

    def schedule(self, uri: str) -> None:
        self.pending[uri] = None
        for origin, result in self.results.items():  # documents that read this one check again
            if origin != uri and uri in result.placed:
                self.pending[origin] = None
        if self.worker is None or self.worker.done():
            self.worker = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self.pending:
            uri = next(iter(self.pending))
            del self.pending[uri]
            if not self.is_open(uri) or not _is_file(uri):
                continue  # an unsaved, untitled buffer has no folder to take settings from
            document = self.workspace.get_text_document(uri)
            version, text = document.version, document.source
            buffers = {to_fs_path(other.uri): other.source
                       for other in self.workspace.text_documents.values() if other.uri != uri and _is_file(other.uri)}
            try:
                checked = await loop.run_in_executor(self.executor, self.bench.check, to_fs_path(uri), text, buffers)
                placed = self._place(uri, checked)
            except Exception as err:  # noqa: BLE001 - this document says so, and the others are checked on
                self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"flaglint: {uri}: {type(err).__name__}: {err}"))
                checked = DocumentCheck(document_kind(uri, text), "")
                placed = {uri: [_unchecked(err)]}
            if uri in self.pending or not self.is_open(uri):
                continue  # a newer edit arrived while this text was checked: that check wins
            self._publish(uri, _Result(version, checked, placed))

    def _publish(self, uri: str, result: _Result | None) -> None:
        before = self.results.pop(uri, None)
        if result is not None:
            self.results[uri] = result
        touched = set(before.placed if before else ()) | set(result.placed if result else ()) | ({uri} if result else set())
        for target in touched:
            diagnostics = [placed.diagnostic for origin in self.results.values() for placed in origin.placed.get(target, [])]
            version = self.workspace.get_text_document(target).version if self.is_open(target) else None
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(target, diagnostics, version))

    def close(self, uri: str) -> None:
        self.pending.pop(uri, None)
        self._publish(uri, None)

    # findings as diagnostics

    def text_of(self, path: str) -> str | None:
        if "\0" in path:
            return None  # no file has that name
        uri = from_fs_path(path)
        if self.is_open(uri):
            return self.workspace.get_text_document(uri).source
        try:
            return read_text(path, QUOTED_FILE)
        except Unreadable:
            return None

    def _place(self, uri: str, checked: DocumentCheck) -> dict[str, list[_Placed]]:
        placed: dict[str, list[_Placed]] = {}
        own = to_fs_path(uri)
        texts: dict[str, str | None] = {}  # each file's text, read once for all the places in it

        def text_of(path: str) -> str | None:
            if path not in texts:
                texts[path] = self.text_of(path)
            return texts[path]

        for finding in checked.findings:
            location = finding.location
            target = location.file if location and location.file and os.path.isabs(location.file) else own
            text = text_of(target)
            if text is None:  # a file of MaxText's own, or one gone: shown on the document checked
                target, text = own, text_of(own) or ""
                where = None
            else:
                where = location
            diagnostic = types.Diagnostic(
                range=self._range(text, where), message=_message(finding, where is None), severity=_SEVERITY[finding.severity],
                code=finding.rule, source="flaglint", related_information=self._related(finding, text_of) or None)
            placed.setdefault(from_fs_path(target), []).append(_Placed(finding, diagnostic))
        return placed

    def _range(self, text: str, location) -> types.Range:
        lines = lines_of(text)
        if location is None:
            return types.Range(types.Position(0, 0), types.Position(0, 0))
        start = column_position(lines, location.line, location.column, self.units)
        end_column = location.end_column if location.end_column is not None else location.column + 1
        end = column_position(lines, location.end_line or location.line, end_column, self.units)
        return types.Range(types.Position(*start), types.Position(*end))

    def _related(self, finding: Finding, text_of: Callable[[str], str | None]) -> list[types.DiagnosticRelatedInformation]:
        related = []
        places = [(location, "also here") for location in finding.related]
        if finding.witness:
            places += [(Location(branch["file"], branch["line"], 1, end_column=1), "branch taken") for branch in finding.witness.get("branches", [])]
        for location, what in places:
            if not location.file or not os.path.isabs(location.file) or (text := text_of(location.file)) is None:
                continue
            related.append(types.DiagnosticRelatedInformation(
                types.Location(from_fs_path(location.file), self._range(text, location)), what))
        return related

    # quick fixes

    def fix_actions(self, uri: str, wanted: types.Range, only: list[str] | None = None) -> list[types.CodeAction]:
        """Quick fixes, one for each diagnostic in WANTED and each fix that reaches it: the fix's
        edits at the diagnostic's places only (so fixing one key leaves the others as they are),
        its applicability in the title; and a source action that makes the first safe fix of the
        document whole. `only`: the kinds the editor asks for."""
        self.open_document(uri)
        actions: list[types.CodeAction] = []
        fresh = {origin: result for origin, result in self.results.items()
                 if not self.is_open(origin) or self.workspace.get_text_document(origin).version == result.version}
        # a result checked before the latest edit has stale spans, and a check is under way
        if _wants(only, types.CodeActionKind.QuickFix):
            for result in fresh.values():
                for placed in result.placed.get(uri, []):
                    if _overlaps(placed.diagnostic.range, wanted):
                        actions += self._diagnostic_actions(placed, result.checked.fixes)
        safe = next((fix for fix in fresh[uri].checked.fixes if fix.safe), None) if uri in fresh else None
        if safe is not None and _wants(only, types.CodeActionKind.SourceFixAll) and (edit := self._workspace_edit(safe)) is not None:
            actions.append(types.CodeAction(title=f"flaglint: apply the safe fixes ({describe_fix(safe.fix)})",
                                            kind=types.CodeActionKind.SourceFixAll, edit=edit))
        return actions

    def _diagnostic_actions(self, placed: _Placed, fixes: list[FileFix]) -> list[types.CodeAction]:
        actions, offered = [], set()
        for fix in fixes:
            own = [edit for edit in fix.edits if any(self._meets(edit, where) for where in (placed.finding.location, *placed.finding.related))]
            if not own and not set(placed.finding.keys) & {change.key for change in fix.fix.changes}:
                continue
            part = FileFix(fix.fix, own or fix.edits)
            key = tuple((edit.location.file, edit.start, edit.end, edit.new) for edit in part.edits)
            if key in offered or (edit := self._workspace_edit(part)) is None:
                continue
            offered.add(key)
            # the changes of its keys, and a key it adds (a misspelled key renamed)
            changes = [change for change in fix.fix.changes
                       if change.key in placed.finding.keys or change.from_ is None and change.to is not None] if own else []
            # the fix's applicability; an edit less safe than its fix says so too
            title = describe_fix(fix.fix.replace(changes=changes or fix.fix.changes)) + (" (unsafe edit)" if fix.fix.safe and not fix.safe else "")
            actions.append(types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[placed.diagnostic],
                                            edit=edit, is_preferred=part.safe and not actions))
        return actions

    def _meets(self, edit, where: Location | None) -> bool:
        """Whether the edit is at the place of a finding: its span overlaps the finding's on a line,
        or it is the value after the finding's key (`key: value` in a YAML config)."""
        at = edit.location
        if where is None or at is None or not where.file or not at.file or os.path.abspath(where.file) != os.path.abspath(at.file):
            return False
        if (at.end_line or at.line) < where.line or at.line > (where.end_line or where.line):
            return False
        if at.line != (where.end_line or where.line) or where.end_column is None:
            return True  # lines of their own
        end = at.end_column if at.end_column is not None else at.column  # end columns are just after the span
        if at.column < where.end_column and end > where.column or at.column == end and where.column <= at.column <= where.end_column:
            return True
        line = lines_of(self.text_of(at.file) or "")[at.line - 1:at.line]
        return bool(line) and _KEY_THEN_VALUE.fullmatch(line[0][where.end_column - 1:at.column - 1]) is not None

    def _workspace_edit(self, fix: FileFix) -> types.WorkspaceEdit | None:
        changes: dict[str, list[types.TextEdit]] = {}
        for edit in fix.edits:
            text = self.text_of(edit.location.file)
            if text is None or text.encode("utf-8")[edit.start:edit.end] != edit.old.encode("utf-8"):
                return None  # the file no longer holds what the fix was made from
            start, end = byte_position(text, edit.start, self.units), byte_position(text, edit.end, self.units)
            changes.setdefault(from_fs_path(edit.location.file), []).append(
                types.TextEdit(types.Range(types.Position(*start), types.Position(*end)), edit.new))
        return types.WorkspaceEdit(changes=changes)

    # hover and completion

    def checker_for(self, uri: str) -> Checker | None:
        """The checker of the document's settings; None where they cannot be read (its check says why)."""
        if not _is_file(uri):
            return None
        try:
            return self.bench.checker(self.bench.settings(Path(to_fs_path(uri)).parent))
        except InputError:
            return None

    def tunix_pin_for(self, uri: str) -> TunixPin | None:
        """The Tunix pin of the document's settings; None where they cannot be read."""
        try:
            return load_tunix_pin(self.bench.settings(Path(to_fs_path(uri)).parent)["tunix-pin"])
        except InputError:
            return None

    def tunix_key(self, uri: str, lines: list[str], number: int, word: str) -> str | None:
        """The Tunix key a word of line NUMBER names, dotted, where the document is a Tunix config
        (the word is a key of the section the line is in) or the line is part of a `tunix.cli`
        command line; None elsewhere."""
        kind = document_kind(to_fs_path(uri), "\n".join(lines))
        if kind == "tunix-config":
            return ".".join(part for part in (yaml_section(lines, number), word) if part)
        if kind == "script" and on_tunix_command_line(lines, number):
            return word
        return None

    def open_document(self, uri: str) -> TextDocument:
        """The open document URI; the request's error where it names no open document."""
        if not self.is_open(uri):
            raise JsonRpcInvalidParams(f"{uri!r} is not an open document")
        return self.workspace.get_text_document(uri)

    def hover(self, uri: str, position: types.Position) -> types.Hover | None:
        document = self.open_document(uri)
        lines = lines_of(document.source)
        if position.line >= len(lines):
            return None
        line = lines[position.line]
        checker = self.checker_for(uri)
        if checker is None:
            return None
        parts = []
        for origin in self.results.values():
            for placed in origin.placed.get(uri, []):
                if _within(position, placed.diagnostic.range) and (text := rule_hover(placed.finding.rule, checker)):
                    parts.append(text)
        word = word_at(line, character_index(line, position.character, self.units))
        tunix_key = self.tunix_key(uri, lines, position.line, word) if word else None
        if tunix_key is not None:
            pin = self.tunix_pin_for(uri)
            about = tunix_key_hover(tunix_key, pin) if pin is not None else None
        else:
            about = key_hover(word, checker) if word else None
        if about:
            parts.insert(0, about)
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(dict.fromkeys(parts)))) if parts else None

    def complete(self, uri: str, position: types.Position) -> list[types.CompletionItem]:
        document = self.open_document(uri)
        lines = lines_of(document.source)
        if position.line >= len(lines):
            return []
        line = lines[position.line]
        before = line[: character_index(line, position.character, self.units)]
        checker = self.checker_for(uri)
        if checker is None:
            return []
        kind = document_kind(to_fs_path(uri), document.source)
        if kind == "tunix-config" or kind == "script" and on_tunix_command_line(lines, position.line):
            pin = self.tunix_pin_for(uri)
            return _tunix_completions(before, lines, position.line, pin, yaml=kind == "tunix-config") if pin is not None else []
        if kind == "config":
            if match := _YAML_VALUE.match(before):
                return _values(match.group(1), checker)
            if match := _YAML_KEY.match(before):
                return _keys(match.group(1), checker, ": ")
            return []
        if kind in ("flags", "script"):
            if kind == "script" and not _in_flag_string(before, lines[position.line - 1] if position.line else ""):
                return []
            if match := _FLAG_VALUE.search(before):
                return _values(match.group(1), checker)
            if match := _FLAG_KEY.search(before):
                return _keys(match.group(1), checker, "=")
        return []


def _unchecked(err: Exception) -> _Placed:
    """The diagnostic of a document whose check failed: at its start, the reason in one line."""
    reason = " ".join(f"{type(err).__name__}: {err}".split())[:300]
    finding = built_in("FL010", (), None, variant="unchecked", reason=reason)
    return _Placed(finding, types.Diagnostic(range=types.Range(types.Position(0, 0), types.Position(0, 0)), message=finding.message,
                                             severity=types.DiagnosticSeverity.Error, code=finding.rule, source="flaglint"))


def _message(finding: Finding, elsewhere: bool) -> str:
    parts = [finding.message]
    if elsewhere and finding.location is not None:
        location = finding.location
        parts.insert(0, f"{location.file or '<flags>'}:{location.line}:{location.column}:")
    if finding.witness and (finding.witness.get("env") or finding.witness.get("branches")):
        parts.append(f"\n{witness_line(finding.witness)}")
    if finding.reached_from:
        parts.append(f"\nreached from {', '.join(finding.reached_from)}")
    return " ".join(parts)


def _in_flag_string(before: str, previous: str) -> bool:
    """Whether a script's cursor is in a flag string: inside quotes, or on a continued line."""
    return before.count('"') % 2 == 1 or before.count("'") % 2 == 1 or previous.rstrip().endswith("\\")


def _tunix_completions(before: str, lines: list[str], number: int, pin: TunixPin, yaml: bool) -> list[types.CompletionItem]:
    """In a Tunix config, the keys of the section the line is in and a bool's values; on a
    `tunix.cli` command line, the dotted keys (`model_config.mesh.shape=`) and a bool's values."""
    section = yaml_section(lines, number) if yaml else ""
    if match := (_NESTED_YAML_VALUE.match(before) if yaml else _DOTTED_VALUE.search(before)):
        name = ".".join(part for part in (section, match.group(1)) if part)
        return [types.CompletionItem(label=value, kind=types.CompletionItemKind.Value) for value in tunix_value_choices(name, pin)]
    if match := (_NESTED_YAML_KEY.match(before) if yaml else _DOTTED_KEY.search(before)):
        found = tunix_keys_under(section, match.group(1), pin) if yaml else tunix_dotted_keys_starting(match.group(1), pin)
        return [types.CompletionItem(label=name, kind=types.CompletionItemKind.Property, detail=kind,
                                     insert_text=name + (": " if yaml else "=")) for name, kind in found]
    return []


def _keys(prefix: str, checker, then: str) -> list[types.CompletionItem]:
    return [types.CompletionItem(label=name, kind=types.CompletionItemKind.Property, detail=shown, insert_text=name + then)
            for name, shown in keys_starting(prefix, checker)]


def _values(key: str, checker) -> list[types.CompletionItem]:
    return [types.CompletionItem(label=value, kind=types.CompletionItemKind.EnumMember, detail=key)
            for value in value_choices(key, checker)]


def _is_file(uri: str) -> bool:
    return uri.startswith("file:")


def _wants(only: list[str] | None, kind: str) -> bool:
    """Whether the editor asks for code actions of KIND (`only` names kinds or their parents)."""
    return not only or any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _overlaps(first: types.Range, second: types.Range) -> bool:
    def at(position: types.Position) -> tuple[int, int]:
        return position.line, position.character

    return at(first.start) <= at(second.end) and at(second.start) <= at(first.end)


def _within(position: types.Position, span: types.Range) -> bool:
    return _overlaps(span, types.Range(position, position))


def build(settings_file: str | None = None) -> FlaglintServer:
    server = FlaglintServer(settings_file)

    @server.feature(types.INITIALIZED)
    def initialized(ls: FlaglintServer, params: types.InitializedParams) -> None:
        roots = [folder.uri for folder in ls.workspace.folders.values()] or [ls.workspace.root_uri or ""]
        ls.warm_up([to_fs_path(root) for root in roots if _is_file(root)])

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FlaglintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FlaglintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: FlaglintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FlaglintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]))
    def code_action(ls: FlaglintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.fix_actions(params.text_document.uri, params.range, params.context.only)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: FlaglintServer, params: types.HoverParams) -> types.Hover | None:
        return ls.hover(params.text_document.uri, params.position)

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["=", ":"]))
    def completion(ls: FlaglintServer, params: types.CompletionParams) -> list[types.CompletionItem]:
        return ls.complete(params.text_document.uri, params.position)

    return server

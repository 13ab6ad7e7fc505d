"""Text for people: each finding with its source line and a caret under the span, then the fixes."""

from __future__ import annotations

from flaglint.core.edits import Edit
from flaglint.core.findings import Fix
from flaglint.core.location import Location
from flaglint.core.reading import QUOTED_FILE, Unreadable, read_file
from flaglint.report import Checked, describe_fix


def _excerpt(text: str, loc: Location | None, colour: bool) -> list[str]:
    lines = text.splitlines()
    if loc is None or not 1 <= loc.line <= len(lines):
        return []
    line = lines[loc.line - 1]
    if not line.strip():
        return []  # nothing to point at (an empty flag string)
    start = loc.column - 1
    end = loc.end_column if loc.end_column is not None and loc.end_line in (None, loc.line) else loc.column + 1  # a point: one caret
    width = max(1, min(end, len(line) + 1) - loc.column)
    # Long flag strings: a window around the span, not the whole line; "..." marks what is cut, and
    # the caret line then names the column, which the window's own positions no longer give.
    left = max(0, start - 40)
    right = min(len(line), start + width + 40)
    prefix = "..." if left else ""
    suffix = "..." if right < len(line) else ""
    shown = prefix + line[left:right] + suffix
    caret = " " * (len(prefix) + start - left) + "^" * max(1, min(width, right - start))  # past the end: what is missing
    painted = _paint(caret, "caret", colour) if caret.strip() else caret
    return [f"    {shown}", f"    {painted}" + (f" column {loc.column}" if left else "")]


_SHOWN_FLAGS = 160  # a longer fixed string is not printed whole: the changes above say what it does


def _fix_lines(number: int, fix: Fix, command: str | None, text: str) -> list[str]:
    head = f"  {number}. {describe_fix(fix)}"
    unsafe = "" if fix.safe else " --unsafe-fixes"
    hint = f"{command} --fix{unsafe} edits the script (--diff{unsafe} shows the edit)" if command else None
    if fix.placed:
        return [head, *(f"    {_edit_line(edit.shown())}" for edit in fix.edits), *([f"    {hint}"] if hint else [])]
    if hint:
        return [head, f"    {hint}"]
    flags = fix.flags.strip()
    if flags == text.strip():
        return [head]  # only Tunix variables change: the flags stay as they are
    if len(flags) > _SHOWN_FLAGS:
        return [head, "    --fix applies it, --diff shows the edit"]
    return [head, f"    fixed flags: {flags or '(none)'}"]


def _edit_line(edit: Edit) -> str:
    if edit.location is None and not edit.variable:
        return f"by hand: {edit.new}"
    if edit.location is None:
        return f"set {edit.variable}={edit.new} (it is not set in the file)" if edit.new else f"unset {edit.variable}"
    where = f"{edit.location.file}:{edit.location.line}:{edit.location.column}"
    if edit.variable:
        return f"{where}: {edit.variable}: {edit.old!r} -> {edit.new!r}" if edit.new else f"{where}: unset {edit.variable} (remove its entry)"
    if not edit.old:
        return f"{where}: insert {edit.new!r}"
    if not edit.new:
        return f"{where}: delete {edit.old!r}"
    return f"{where}: {edit.old!r} -> {edit.new!r}"


_COLOURS = {"error": "31;1", "warning": "33;1", "info": "36", "rule": "1", "caret": "31", "dim": "2"}


def _paint(text: str, kind: str, colour: bool) -> str:
    return f"\x1b[{_COLOURS[kind]}m{text}\x1b[0m" if colour else text


def render(checked: list[Checked], *, colour: bool = False, quiet: bool = False) -> str:
    """`quiet`: the findings only, without fixes, notes or the summary line."""
    out: list[str] = []
    counts = {"error": 0, "warning": 0, "info": 0}
    texts = _Texts()
    for item in checked:
        label = item.name
        for finding in item.result.findings:  # in_order: by file, line and column
            counts[finding.severity] += 1
            where = f"{finding.location.file or label}:{finding.location.line}:{finding.location.column}" if finding.location else label
            out.append(f"{where}: {_paint(finding.severity, finding.severity, colour)} {_paint(finding.rule, 'rule', colour)} {finding.message}")
            own = not finding.location or not finding.location.file or finding.location.file == item.label
            shown = item.text if own else texts.get(finding.location.file)
            out.extend(_excerpt(shown, finding.location, colour))
            for related in finding.related:
                out.append(f"    also at {related.file or label}:{related.line}:{related.column}")
            if finding.reached_from:
                out.append(f"    reached from {', '.join(finding.reached_from)}")
            if finding.witness and (finding.witness.get("env") or finding.witness.get("branches")):
                out.append("    " + witness_line(finding.witness))
        if quiet:
            continue
        for number, fix in enumerate(item.result.fixes, 1):
            out.extend(_fix_lines(number, fix, item.fix_hint, item.text))
        out.extend(_paint(f"  note: {note}", "dim", colour) for note in item.result.notes)
    if not quiet:
        total = sum(counts.values())
        out.append("no findings" if total == 0 else f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    return "\n".join(out)


class _Texts:
    """The text of files other than the input (a file a script sources), read once each, for excerpts."""

    def __init__(self):
        self.read: dict[str, str] = {}

    def get(self, file: str) -> str:
        if file not in self.read:
            try:
                self.read[file] = read_file(file, QUOTED_FILE).decode("utf-8", "replace")
            except Unreadable:
                self.read[file] = ""
        return self.read[file]


def witness_line(witness: dict) -> str:
    """`when: A=1 B=(unset); branches taken at lines 9, 14 of run.sh and 3 of common.sh`."""
    env = " ".join(f"{k}={'(unset)' if v is None else v}" for k, v in witness.get("env", {}).items())
    lines_of: dict[str, list[str]] = {}
    for branch in witness.get("branches", []):
        lines_of.setdefault(branch["file"], []).append(str(branch["line"]))
    branches = " and ".join(f"{', '.join(lines)} of {file}" for file, lines in lines_of.items())
    one = sum(map(len, lines_of.values())) == 1
    taken = f"; {'branch' if one else 'branches'} taken at {'line' if one else 'lines'} {branches}" if branches else ""
    return f"when: {env or '(any environment)'}" + taken

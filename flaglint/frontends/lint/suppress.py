"""Inline suppressions in recipe scripts: `# flaglint: disable=RULE[,RULE] reason="…"`.

A suppression covers the next command or block (an if, case, loop or function as a whole). One
without a reason is itself a finding, and so is one that no longer matches anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from flaglint.core.findings import Finding
from flaglint.core.location import Location
from flaglint.core.reading import SCRIPT, Unreadable, read_text
from flaglint.rules.ruleset import Renumbering, built_in

_DIRECTIVE = re.compile(r"#\s*flaglint:\s*disable=([A-Za-z0-9_,]+)(?:\s+reason=\"([^\"]*)\")?")


@dataclass
class Suppression:
    rules: tuple[str, ...]
    reason: str | None
    line: int  # the comment's line
    column: int
    first: int  # lines the suppression covers
    last: int
    used: set[str] = field(default_factory=set)


def read_suppressions(path: Path, text: str) -> list[Suppression]:
    import tree_sitter_bash  # noqa: PLC0415 tree-sitter: only for a script to read
    from tree_sitter import Language, Parser  # noqa: PLC0415 tree-sitter: only for a script to read

    tree = Parser(Language(tree_sitter_bash.language())).parse(text.encode("utf-8"))
    found: list[Suppression] = []

    def visit(node) -> None:
        siblings = list(node.children)
        for index, child in enumerate(siblings):
            if child.type == "comment":
                match = _DIRECTIVE.search(child.text.decode("utf-8", "replace"))
                if match:
                    target = next((s for s in siblings[index + 1 :] if s.type != "comment"), None)
                    first = target.start_point[0] + 1 if target else child.start_point[0] + 1
                    last = target.end_point[0] + 1 if target else first
                    found.append(Suppression(tuple(r.strip().upper() for r in match.group(1).split(",") if r.strip()),
                                             match.group(2), child.start_point[0] + 1, child.start_point[1] + 1, first, last))
            else:
                visit(child)

    visit(tree.root_node)
    return found


def apply_suppressions(path: Path, findings: list[Finding], suppressions: list[Suppression],
                       renumberings: tuple[Renumbering, ...] = ()) -> list[Finding]:
    """Drop the findings a suppression covers, where the finding is: in the script, or in a file it
    sources (whose own comments are read for that). The script's own suppressions are checked too
    (FL020, FL021, FL022); a shared file's are judged where that file is linted itself, since another
    script may be the one they are for. RENUMBERINGS: the old numbers of the pins' imported checks
    -> their ids, which a suppression's old number stands for."""
    kept = []
    renumbered = {old: new for table in renumberings for old, new in table.ids.items()}
    for s in suppressions:
        where = Location(str(path), s.line, s.column, end_column=s.column + 1)
        for table in renumberings:
            kept += [built_in("FL022", (), where, old=r, new=table.ids[r], pin=table.pin, checks=table.checks)
                     for r in s.rules if r in table.ids]
        s.rules = tuple(renumbered.get(r, r) for r in s.rules)
    by_file: dict[Path, list[Suppression]] = {path.resolve(): suppressions}
    for finding in findings:
        loc = finding.location
        match = None
        if loc is not None:
            file = Path(loc.file).resolve() if loc.file else path.resolve()
            if file not in by_file:
                by_file[file] = _read_other(file)
                for other in by_file[file]:
                    other.rules = tuple(renumbered.get(r, r) for r in other.rules)
            match = next((s for s in by_file[file] if finding.rule in s.rules and s.first <= loc.line <= s.last), None)
        if match:
            match.used.add(finding.rule)
        else:
            kept.append(finding)
    for s in suppressions:
        where = Location(str(path), s.line, s.column, end_column=s.column + 1)
        if not s.reason:
            kept.append(built_in("FL020", s.rules, where, rules=", ".join(s.rules)))
        unused = [r for r in s.rules if r not in s.used]
        if unused:
            kept.append(built_in("FL021", tuple(unused), where, rules=", ".join(unused)))
    return kept


def _read_other(file: Path) -> list[Suppression]:
    try:
        text = read_text(file, SCRIPT)
    except Unreadable:
        return []  # the evaluator has already said what it could not read
    return read_suppressions(file, text)

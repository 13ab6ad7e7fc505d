"""The reports: one formatter module per output format, all reading the same `Checked` list."""

from __future__ import annotations

import json
from collections import Counter
from importlib import import_module

from flaglint.core.edits import Edit
from flaglint.core.findings import Change, Fix, Result
from flaglint.core.records import Record
from flaglint.maxtext.values import shown_setting

FORMATS = ("text", "json", "sarif", "github", "junit")
STATISTICS_FORMATS = ("text", "json")


class Checked(Record):
    """One checked input: its label (a file path, or None for a command-line string), its text, and the result.
    `fix_hint`: the command whose --fix makes the fixes in the file, said instead of the whole fixed
    flag string (scripts). `argv`: the text is MaxText's argv words (`check CONFIG.yml k=v …`), not
    a flag string: named `<argv>` where it has no label.
    `in_file`: the text is the file `label` names (so --fix writes there; else it prints the input fixed).
    `fix` and `edits`: the fix --fix would apply and its edits (of the file, or of the text's UTF-8
    bytes); `config_edits`: the fix's byte edits of the YAML config files an argv starts from
    (`check CONFIG.yml …`), which --fix writes to those files; `applied`: the fixes --fix made, for
    the report."""

    __slots__ = field_names = ("label", "text", "result", "fix_hint", "in_file", "fix", "edits", "config_edits", "applied", "argv")

    def __init__(self, label: str | None, text: str, result: Result, fix_hint: str | None = None, in_file: bool = False,
                 fix: Fix | None = None, edits: list[Edit] | None = None, config_edits: list[Edit] | None = None,
                 applied: list[Fix] | None = None, argv: bool = False):
        self.label = label
        self.text = text
        self.result = result
        self.fix_hint = fix_hint
        self.in_file = in_file
        self.fix = fix
        self.edits = [] if edits is None else edits
        self.config_edits = [] if config_edits is None else config_edits
        self.applied = [] if applied is None else applied
        self.argv = argv

    @property
    def name(self) -> str:
        """The input as a report names it: its label, else `<argv>` or `<flags>`."""
        return self.label or ("<argv>" if self.argv else "<flags>")


def in_order(checked: list[Checked]) -> list[Checked]:
    """The inputs by label, and each one's findings by file, line and column (a finding without a
    place first, at its input), as ruff and shellcheck order theirs; ties keep their order."""

    def place(item: Checked, finding) -> tuple[str, int, int]:
        where = finding.location
        if where is None:
            return item.label or "", 0, 0
        return where.file or item.label or "", where.line, where.column

    for item in checked:
        item.result.findings.sort(key=lambda finding: place(item, finding))
    return sorted(checked, key=lambda item: item.label or "")


def merged(checked: list[Checked]) -> Result:
    if len(checked) == 1:
        return checked[0].result
    result = Result(pin=checked[0].result.pin if checked else "")
    for item in checked:
        result.findings.extend(item.result.findings)
        result.fixes.extend(item.result.fixes)
        result.notes.extend(item.result.notes)
    return result


def render(format_name: str, checked: list[Checked], *, colour: bool = False, quiet: bool = False,
           docs_url: str | None = None, fail_on: str = "error") -> str:
    """The report in one format; `colour` and `quiet` shape the text format (the others are for
    machines); `docs_url` (the setting) is where SARIF's rule links point; `fail_on` (the
    setting) is the least severity JUnit counts as a failure, as the exit code does."""
    module = import_module(f"{__name__}.{format_name}_format")
    if format_name == "text":
        return module.render(checked, colour=colour, quiet=quiet)
    if format_name == "junit":
        return module.render(checked, fail_on)
    return module.render(checked, docs_url) if format_name == "sarif" else module.render(checked)


def statistics(checked: list[Checked], format_name: str = "text") -> str:
    """`--statistics`: findings per rule, most first, how many of them the offered safe fixes cover, and
    the rule's title; a table (text) or JSON."""
    counts: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    for item in checked:
        safe = [fix for fix in item.result.fixes if fix.safe]  # what --fix makes without --unsafe-fixes
        changed = {c.key for fix in safe for c in fix.changes}
        for finding in item.result.findings:
            counts[finding.rule] += 1
            fixable[finding.rule] += bool(safe) and (not finding.keys or bool(changed & set(finding.keys)))
    from flaglint.report.rule_docs import rules_by_id  # noqa: PLC0415 rule docs: only for --statistics' titles

    rules = rules_by_id(next((item.result.pin for item in checked if item.result.pin), "")) if counts else {}
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if format_name == "json":
        return json.dumps({"version": 1, "statistics": [
            {"rule": rule, "count": count, "fixable": fixable[rule], "title": rules[rule].title if rule in rules else None}
            for rule, count in ordered], "total": sum(counts.values()), "fixable": sum(fixable.values())}, indent=2)
    lines = [f"{count:6}  {rule:8} {fixable[rule]:4} fixable  {rules[rule].title if rule in rules else ''}".rstrip()
             for rule, count in ordered]
    return "\n".join(lines + [f"{sum(counts.values()):6}  total    {sum(fixable.values()):4} fixable"])


def describe_fix(fix: Fix) -> str:
    """`fix (safe): a: true -> false, drop b=1, add c=2`, the changes as a user would write them."""
    return f"fix ({fix.applicability.value}): " + ", ".join(_describe_change(c) for c in fix.changes)


def _describe_change(change: Change) -> str:
    if change.to is None:
        return f"drop {change.key}" + ("" if change.from_ is None else f"={shown_setting(change.from_)}")
    if change.from_ is None:
        return f"add {change.key}={shown_setting(change.to)}"
    return f"{change.key}: {shown_setting(change.from_)} -> {shown_setting(change.to)}"

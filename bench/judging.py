"""A launch's class, from flaglint's verdict on its argv and the real program's (MaxText's pyconfig,
Tunix's HyperParameters and builders), and the grep-level cross-check for launches flaglint did not
report. Pure: the sweep (judged_sweep.py) gathers the verdicts, the tests give synthetic ones.

The classes:
- found: both refuse, and a key flaglint names is in the program's message;
- other key: both refuse, on keys that do not meet (the launch stops, but flaglint's fix is not MaxText's);
- accepted: both accept;
- missed: the program refuses, flaglint is quiet;
- false error: flaglint errs, the program accepts;
- not verified: flaglint says it cannot judge the launch (FL011), or cannot judge a check (FL016)
  where the program refuses and flaglint is otherwise quiet; the construct is its message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FOUND, OTHER_KEY, ACCEPTED, MISSED, FALSE_ERROR, NOT_VERIFIED = (
    "found", "other key", "accepted", "missed", "false error", "not verified")
CLASSES = (FOUND, OTHER_KEY, ACCEPTED, MISSED, FALSE_ERROR, NOT_VERIFIED)
# A MaxText or Tunix launch as a person finds it in a script: `python … -m maxtext.…`/`MaxText.…`,
# a path to a MaxText entry point, `tunix.cli.…`, or a bare `train.py`.
LAUNCH_LINE = re.compile(r"python[0-9.]*\b.*(-m\s+(src\.)?(maxtext|MaxText)\.|(maxtext|MaxText)/\S+\.py|-m\s+tunix\.cli\.|\btrain\.py\b)")


@dataclass(frozen=True)
class Judged:
    """One launch's class, and what each side said."""

    cls: str  # one of CLASSES
    ours: str  # flaglint: "accepts", or its errors "FL004 steps; FL101 …"
    theirs: str  # the program: "accepts", or its error
    construct: str | None = None  # what made it not verified


def _refusal(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["rule"] not in ("FL011", "FL016")]


def _describe(findings: list[dict]) -> str:
    return "; ".join(f"{f['rule']} {','.join(f['keys'])}".strip() for f in findings) or "accepts"


def _meets(findings: list[dict], message: str) -> bool:
    """Whether the program's MESSAGE names a key of a finding (as a whole word), is the finding's own
    sentence (a check whose message names no key), or, for a finding on no key (a word that is
    not key=value), quotes the word the finding quotes (`'' has an empty key`)."""
    if any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])", message) for f in findings for key in f["keys"]):
        return True
    # a check whose message names no key: flaglint states it in MaxText's own words
    said = re.sub(r"^\w+: ", "", message).split(". ")[0].rstrip(".")
    if len(said) >= 20 and any(said in f["message"] for f in findings):
        return True
    return any(quoted in message for f in findings if not f["keys"] for quoted in re.findall(r"'[^']*'", f["message"]))


def classify(flaglint: list[dict], refused: str | None) -> Judged:
    """FLAGLINT: its errors on the launch (each {rule, keys, message}; FL011/FL016 among them);
    REFUSED: the program's error (its type and message), None when it accepts the launch."""
    errors, unverified = _refusal(flaglint), [f for f in flaglint if f["rule"] == "FL011"]
    not_judged = [f for f in flaglint if f["rule"] == "FL016"]
    theirs = refused or "accepts"
    if unverified:
        return Judged(NOT_VERIFIED, _describe(flaglint), theirs, unverified[0]["message"])
    if refused is None:
        return Judged(FALSE_ERROR if errors else ACCEPTED, _describe(errors), theirs)
    if not errors:
        if not_judged:
            return Judged(NOT_VERIFIED, _describe(not_judged), theirs, not_judged[0]["message"])
        return Judged(MISSED, "accepts", theirs)
    return Judged(FOUND if _meets(errors, refused) else OTHER_KEY, _describe(errors), theirs)


def as_linted(launch: dict, findings: list[dict], unverified: list[dict], hang: str | None = None) -> list[dict]:
    """flaglint's verdict on a LAUNCH (launches.py: its own errors on the argv) as the user of
    `lint` sees it: the errors of a rule lint printed for the script (FINDINGS, its JSON), and
    FL011 where lint printed it at the launch's line or could not make a path of it concrete
    (UNVERIFIED: {file, line, reason}); every launch of a script lint did not finish is FL011 (HANG)."""
    if hang is not None:
        return [{"rule": "FL011", "keys": [], "message": hang}]
    printed = {f["rule"] for f in findings if f["severity"] == "error" or f["rule"] == "FL016"}
    where = (launch["file"], launch["line"])
    at_line = [f["message"] for f in findings
               if f["rule"] == "FL011" and f["location"] and (f["location"]["file"], f["location"]["line"]) == where]
    at_line += [u["reason"] for u in unverified if (u["file"], u["line"]) == where]
    return [{"rule": "FL011", "keys": [], "message": m} for m in at_line] + [f for f in launch["flaglint"] if f["rule"] in printed]


def unseen(text: str, reported: set[int]) -> list[tuple[int, str]]:
    """The lines of a script's TEXT that look like a MaxText or Tunix launch (LAUNCH_LINE, outside a
    comment) where flaglint reported none (REPORTED: the line numbers it reported a launch or an
    unverified one at), each with its text, for a person to read. A command written over several
    lines (a `\\` at the end, or a double-quoted string left open: an XPK `--command "…"`) counts
    at any of its lines up to the launch's."""
    found, start, quoted = [], None, False
    for number, line in enumerate(text.splitlines(), 1):
        start = start or number
        stripped = line.strip()
        if not stripped.startswith("#") and LAUNCH_LINE.search(line) and not set(range(start, number + 1)) & reported:
            found.append((number, stripped[:160]))
        quoted ^= len(re.findall(r'(?<!\\)"', line)) % 2 == 1
        if not (quoted or stripped.endswith("\\")):
            start = None
    return found

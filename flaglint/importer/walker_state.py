"""What the validator walker carries along a path, and what it collects at each raise.

A `State` is one path through a validator: the fields assigned so far, the local variables, and
the conditions taken to get there. A `Frame` is one function being walked: its returns and the
states that leave its loops by `break`. A `Site` is one raise, assert or division by a key, with
the condition of every path that reaches it; validators.py turns each site into a rule.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

MAX_VARIANT_CHARS = 80


@dataclass
class State:
    fields: dict
    locals: dict
    path: list
    dead: str | None = None  # "raise" | "return" | "break"

    def fork(self, extra: ast.expr | None = None) -> State:
        path = list(self.path) + ([extra] if extra is not None else [])
        return State(dict(self.fields), dict(self.locals), path)


@dataclass
class Frame:
    owner: str  # "Class.function" for citations
    file: str
    returns: list = field(default_factory=list)  # [(State, Sym)]
    breaks: list = field(default_factory=list)  # stack of lists of States


@dataclass
class Site:
    file: str
    line: int
    owner: str
    kind: str  # raise | assert | crash
    exception: str
    message: str
    conditions: list = field(default_factory=list)  # ast.expr | Unexpressible, one per way of reaching it
    variants: list = field(default_factory=list)  # the message as each way of reaching it renders it
    message_source: str = ""  # the message as the source writes it, placeholders named
    reason: str | None = None  # fixed reason this site is not checkable
    path: str = ""  # the file as the package lays it out, where that is not maxtext/<file> (MaxText/pyconfig.py)

    def text(self) -> str:
        """One message: a loop's iterations render differently, so list their differing middles."""
        if len(self.variants) < 2:
            return self.message
        prefix = _common_words(self.variants)
        suffix = _common_words([v[len(prefix):][::-1] for v in self.variants], reverse=True)
        middles = [v[len(prefix): len(v) - len(suffix)] for v in self.variants]
        if max(len(m) for m in middles) > MAX_VARIANT_CHARS:
            return self.message_source  # they differ in more than one short span
        if not suffix and all(v.endswith(".") for v in self.variants):  # one sentence, one full stop
            return prefix + "; ".join(m.rstrip(".") for m in middles if m) + "."
        return prefix + "; ".join(m for m in middles if m) + suffix

    @property
    def source(self) -> str:
        return f"{self.path or 'maxtext/' + self.file}:{self.line} {self.owner}"


def _common_words(texts: list[str], reverse: bool = False) -> str:
    """The longest common start of TEXTS that ends at a word boundary (of the reversed texts'
    end when REVERSE; returned the right way round)."""
    first = texts[0]
    n = 0
    while n < len(first) and all(len(t) > n and t[n] == first[n] for t in texts):
        n += 1
    while n and n < len(first) and first[n - 1] != " ":
        n -= 1
    common = first[:n] if (n == len(first) or first[n - 1] == " ") else ""
    return common[::-1] if reverse else common

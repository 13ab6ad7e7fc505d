"""The values the bash evaluator hands out, and its error."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Origin:
    """Where a character of a rendered value was written in a script."""

    file: str
    line: int  # 1-based
    column: int  # 1-based, in characters of that line
    offset: int  # byte offset in the file


@dataclass
class Value:
    text: str
    origins: list  # list[Origin | None], one per character; None: not a literal of a script
    opaque: bool = False  # some part comes from something the evaluator cannot know


@dataclass(frozen=True)
class Note:
    file: str
    line: int
    message: str


class ScriptError(Exception):
    """A script that cannot be evaluated: unreadable, not UTF-8, or with a syntax error."""

    def __init__(self, file: str, line: int, message: str):
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message


@dataclass
class Rendering:
    exported: dict  # dict[str, Value]: the final exported variables
    variables: dict  # dict[str, Value]: every final shell variable
    notes: list = field(default_factory=list)  # list[Note]
    script: str = ""  # the file whose final state this is
    handoffs: list = field(default_factory=list)  # list[Rendering]: scripts run with `bash other.sh`

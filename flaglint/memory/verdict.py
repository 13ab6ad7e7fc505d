"""The compiler's answer, read: the train step fits (its peak against one chip's HBM), does not fit
(what it needs against what the chip has), or did not compile for another reason (the message).

libtpu states an out-of-memory program in one of two forms: `CompileTimeHbmOom: … required for HLO
temporaries (15.92G) exceeds available HBM (15.75G)` (0.0.4x and later) or, in older releases,
`Used 33.27G of 30.75G hbm`. Their figures are GiB (libtpu's `G`), as the chip's capacity is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

FITS, OUT_OF_MEMORY, FAILED = "fits", "out of memory", "failed"
GIB = 1 << 30
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": GIB, "T": 1 << 40}
_AMOUNT = r"([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:i?B)?"
_HBM_OOM = re.compile(rf"required for [^()]*\({_AMOUNT}\)\s*exceeds available HBM \({_AMOUNT}\)", re.I)
_USED_OF = re.compile(rf"Used {_AMOUNT} of {_AMOUNT} hbm", re.I)
# What the compiler's message is, shown before it; the exception's class is dropped
_LABELS = (("RESOURCE_EXHAUSTED", "the compiler ran out of a resource"), ("INVALID_ARGUMENT", "the compiler refused the program"),
           ("UNIMPLEMENTED", "the compiler cannot build this program"), ("INTERNAL", "the compiler failed"))
_SHOWN_CHARACTERS = 600  # of another failure's message: its start names the failure


@dataclass(frozen=True)
class Verdict:
    """One compile's answer, for one chip of the topology."""

    outcome: str  # FITS, OUT_OF_MEMORY or FAILED
    required: int | None = None  # bytes: the peak (fits) or what the compiler asked for (out of memory)
    capacity: int | None = None  # bytes of HBM one chip has, as the compiler states it
    message: str = ""  # FAILED: the failure, labelled
    memory: dict[str, int] = field(default_factory=dict)  # CompiledMemoryStats' fields, when it compiled
    versions: dict[str, str] = field(default_factory=dict)  # maxtext, jax, jaxlib, libtpu of the compile

    @property
    def headroom(self) -> int | None:
        return None if self.required is None or self.capacity is None else self.capacity - self.required

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "required_bytes": self.required, "capacity_bytes": self.capacity,
                "headroom_bytes": self.headroom if self.outcome == FITS else None, "message": self.message,
                "memory": dict(self.memory), "versions": dict(self.versions)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        return cls(data["outcome"], data["required_bytes"], data["capacity_bytes"], data["message"], dict(data["memory"]),
                   dict(data["versions"]))


def gib(count: int) -> str:
    return f"{count / GIB:.2f} GiB"


def out_of_memory(text: str) -> tuple[int, int] | None:
    """(required, available) bytes of the compiler's out-of-memory message in TEXT, or None."""
    found = _HBM_OOM.search(text) or _USED_OF.search(text)
    if found is None:
        return None
    need, need_unit, have, have_unit = found.groups()
    return round(float(need) * _UNITS[need_unit.upper()]), round(float(have) * _UNITS[have_unit.upper()])


def read_answer(answer: dict[str, Any]) -> Verdict:
    """The verdict of the compile runner's answer (flaglint/memory/compile_runner.py)."""
    versions = {str(k): str(v) for k, v in answer.get("versions", {}).items()}
    error = answer.get("error")
    if error:
        oom = out_of_memory(error)
        if oom is not None:
            return Verdict(OUT_OF_MEMORY, oom[0], oom[1], versions=versions)
        return Verdict(FAILED, message=labelled(error), versions=versions)
    memory = {str(k): int(v) for k, v in answer.get("memory", {}).items()}
    capacity = out_of_memory(answer.get("capacity_message") or "")
    peak = memory.get("peak_memory_in_bytes")
    if peak is None:  # jax before peak_memory_in_bytes: what the program holds at once, less what it aliases
        peak = sum(memory.get(name, 0) for name in ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes"))
        peak -= memory.get("alias_size_in_bytes", 0)
    return Verdict(FITS, peak, capacity[1] if capacity else None, memory=memory, versions=versions)


def labelled(error: str) -> str:
    """The compiler's (or MaxText's) message, after a label that says what kind of failure it is."""
    text = " ".join(error.split())
    _, colon, rest = text.partition(": ")
    if colon and re.fullmatch(r"[\w.]+(?:Error|Exception)", text.partition(": ")[0]):
        text = rest  # the exception's class: the status code after it says more
    label = next((label for code, label in _LABELS if text.startswith(code)), "the compile failed")
    if len(text) > _SHOWN_CHARACTERS:
        text = text[:_SHOWN_CHARACTERS] + " …"
    return f"{label}: {text}"

"""The trainer-core settings a recipe renders, parsed and checked without jax or numpy.

`flaglint check` and `lint` import this module; only head.py, packing.py and smoke.py need jax.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Mapping

HEAD_MODES = ("off", "local", "fused")
HEAD_OFF_VALUES = ("0", "false", "off", "no")
DEFAULT_CHUNK_SIZE = 1024
PAD_POSITIONS = ("end", "start")
DEFAULT_PAD_POSITION = "end"
DEFAULT_PAD_ALIGN = 4096
# The recipe packs with segments aligned to 64 tokens (seed summary: "rounded to a multiple of 64 tokens").
DEFAULT_SEGMENT_ALIGN_MULTIPLE = 64


def parse_head_mode(value: str | None) -> str:
    """Read TUNIX_LOGPS_SHARDED_HEAD as "off", "local" or "fused".

    The variable is the sharded head's on/off switch, and "fused" is one more value of it.
    Unset, empty and the off values (0, false, off, no, in any case) turn the sharded head off;
    "local" (exactly) turns it on with log_softmax scoring; "fused" (exactly) with fused scoring.
    Rule FL106 accepts exactly the same values (tests/trainer/test_settings.py checks both agree). Whether the head is off or "local", each
    chunk is scored by the same local program, so google/tunix#2884's "unset, 0 and local give the local
    program" and the recipe's "0 turns the head off" (its chunk-size fallback) are both this
    reading: use `scoring_mode` for the program, and "off" for the chunk fallback.
    Anything else raises ValueError naming the closest accepted value.
    """
    if value is None or value == "":
        return "off"
    if value.lower() in HEAD_OFF_VALUES:
        return "off"
    if value == "local":
        return "local"
    if value == "fused":
        return "fused"
    accepted = ["local", "fused", *HEAD_OFF_VALUES]
    close = difflib.get_close_matches(value.strip().lower(), accepted, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(
        f"TUNIX_LOGPS_SHARDED_HEAD={value!r} is not a head mode: use 'local' or 'fused' (exactly), "
        f"or 0/false/off/no to turn the head off{hint}"
    )


def scoring_mode(head_mode: str) -> str:
    """The per-chunk program a head mode runs: "fused" for fused, "local" otherwise."""
    if head_mode not in HEAD_MODES:
        raise ValueError(f"unknown head mode {head_mode!r}; expected one of {HEAD_MODES}")
    return "fused" if head_mode == "fused" else "local"


def parse_positive_int(name: str, value: str | None, default: int) -> int:
    """An integer setting from the environment: unset or empty gives the default."""
    if value is None or value == "":
        return default
    text = value.strip()
    if not text.isdigit() or int(text) <= 0:
        raise ValueError(f"{name}={value!r} is not a positive integer")
    return int(text)


def parse_pad_position(value: str | None) -> str:
    if value is None or value == "":
        return DEFAULT_PAD_POSITION
    if value not in PAD_POSITIONS:
        raise ValueError(f"PACK_PAD_POSITION={value!r} is not one of {', '.join(PAD_POSITIONS)}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_pad_settings(pad_position: str, pad_align: int, segment_align_multiple: int) -> None:
    """The packer's own refusals: an unknown position, and with "start" a bad pad_align."""
    if not _is_int(segment_align_multiple) or segment_align_multiple <= 0:
        raise ValueError(f"segment_align_multiple must be a positive integer, got {segment_align_multiple!r}")
    if pad_position not in PAD_POSITIONS:
        raise ValueError(f"pad_position must be one of {PAD_POSITIONS}, got {pad_position!r}")
    if pad_position == "start" and (
        not _is_int(pad_align) or pad_align <= 0 or pad_align % segment_align_multiple != 0
    ):
        raise ValueError(
            f"pad_position='start' needs pad_align to be a positive multiple of "
            f"segment_align_multiple={segment_align_multiple}, got {pad_align!r}"
        )


def assembler_refusals(pad_position: str, pad_align: int, *, packed: bool, row_length: int | None) -> list[str]:
    """Why the batch assembler would refuse these settings: each one would make the option do nothing.

    `packed` is False for the padded (unpacked) assembler, which MAX_SEQ_TOKEN_PER_TPU=0 selects;
    `row_length` is the packed row's token budget, None when unknown.
    """
    return [problem.reason for problem in assembler_problems(pad_position, pad_align, packed=packed, row_length=row_length)]


def assembler_problems(pad_position: str, pad_align: int, *, packed: bool, row_length: int | None) -> list[Problem]:
    """assembler_refusals, each with the variable that makes the option do nothing."""
    problems = []
    if pad_position == "start" and not packed:
        problems.append(Problem("PACK_PAD_POSITION",
            "PACK_PAD_POSITION=start with the padded (unpacked) assembler (MAX_SEQ_TOKEN_PER_TPU=0): "
            "only packed rows move, so it would do nothing"
        ))
    if pad_position == "start" and packed and row_length is not None and pad_align >= row_length:
        problems.append(Problem("PACK_PAD_ALIGN",
            f"PACK_PAD_ALIGN={pad_align} is at least the row length {row_length}: "
            "no row can carry that much padding, so PACK_PAD_POSITION=start would do nothing"
        ))
    if pad_position == "end" and pad_align != DEFAULT_PAD_ALIGN:
        problems.append(Problem("PACK_PAD_ALIGN",
            f"PACK_PAD_ALIGN={pad_align} with PACK_PAD_POSITION=end: pad_align is only read with start, "
            "so it would do nothing"
        ))
    return problems


def check_assembler_settings(pad_position: str, pad_align: int, packed: bool, row_length: int | None) -> None:
    """Raise ValueError with every assembler refusal, as the orchestrator does."""
    reasons = assembler_refusals(pad_position, pad_align, packed=packed, row_length=row_length)
    if reasons:
        raise ValueError("; ".join(reasons))


@dataclass(frozen=True)
class Problem:
    """Why the trainer core would fail or do nothing with a setting, and the variable to change."""

    variable: str
    reason: str


@dataclass(frozen=True)
class SmokeSettings:
    head_mode: str
    chunk_size: int
    pad_position: str
    pad_align: int
    segment_align_multiple: int
    row_length: int | None  # 0: the padded (unpacked) assembler; None: not set


def read_settings(env: Mapping[str, str]) -> tuple[SmokeSettings | None, list[Problem]]:
    """The settings from the Tunix variables, or None and why they cannot be read."""
    problems: list[Problem] = []

    def attempt(variable: str, parse, *args):
        try:
            return parse(*args)
        except ValueError as error:
            problems.append(Problem(variable, str(error)))
            return None

    head_mode = attempt("TUNIX_LOGPS_SHARDED_HEAD", parse_head_mode, env.get("TUNIX_LOGPS_SHARDED_HEAD"))
    chunk_size = attempt("COMPUTE_LOGPS_CHUNK_SIZE", parse_positive_int, "COMPUTE_LOGPS_CHUNK_SIZE",
                         env.get("COMPUTE_LOGPS_CHUNK_SIZE"), DEFAULT_CHUNK_SIZE)
    pad_position = attempt("PACK_PAD_POSITION", parse_pad_position, env.get("PACK_PAD_POSITION"))
    pad_align = attempt("PACK_PAD_ALIGN", parse_positive_int, "PACK_PAD_ALIGN", env.get("PACK_PAD_ALIGN"), DEFAULT_PAD_ALIGN)
    segment_align = attempt("SEGMENT_ALIGN_MULTIPLE", parse_positive_int, "SEGMENT_ALIGN_MULTIPLE",
                            env.get("SEGMENT_ALIGN_MULTIPLE"), DEFAULT_SEGMENT_ALIGN_MULTIPLE)
    row_text = env.get("MAX_SEQ_TOKEN_PER_TPU")
    row_length = None
    if row_text not in (None, ""):
        if row_text.strip() == "0":
            row_length = 0
        else:
            row_length = attempt("MAX_SEQ_TOKEN_PER_TPU", parse_positive_int, "MAX_SEQ_TOKEN_PER_TPU", row_text, 0)
    if problems:
        return None, problems
    return SmokeSettings(head_mode, chunk_size, pad_position, pad_align, segment_align, row_length), []

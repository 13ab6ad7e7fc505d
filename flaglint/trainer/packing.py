"""Pack rollout items into rows of a token budget, with the padding at the end or the start.

Rows are filled first-fit-decreasing. Each segment (one item: prompt then completion) starts at
a multiple of `segment_align_multiple`; segment ids run 1..K in row order, 0 is padding, and
positions restart at 0 in every segment. With pad_position="start" each row is laid out as with
"end" and then moved right by its trailing padding, counted from its last token and rounded down
to a multiple of `pad_align`, so every segment start keeps its alignment to the kernel's tiles.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Sequence

import numpy as np

from flaglint.trainer.settings import (
    DEFAULT_PAD_ALIGN,
    DEFAULT_PAD_POSITION,
    check_pad_settings,
)

# What a padding token holds in the routing array: no expert.
NO_EXPERT = -1


@dataclass(frozen=True)
class Item:
    """One rollout. `values` holds one number per completion token (e.g. old log-probs);
    `routed_experts` holds the experts each token was routed to, [prompt + completion, k]."""

    prompt_ids: np.ndarray
    completion_ids: np.ndarray
    completion_mask: np.ndarray
    advantage: float
    values: np.ndarray | None = None
    routed_experts: np.ndarray | None = None

    @property
    def length(self) -> int:
        return len(self.prompt_ids) + len(self.completion_ids)


@dataclass(frozen=True)
class PackedRows:
    """Per-token arrays [rows, row_length] (routed_experts [rows, row_length, k], or None when no
    item has routing); `segment_items[r][k]` is the index of the item in segment k + 1 of row r."""

    ids: np.ndarray
    segment_ids: np.ndarray
    positions: np.ndarray
    completion_mask: np.ndarray
    advantages: np.ndarray
    values: np.ndarray
    routed_experts: np.ndarray | None
    segment_items: tuple[tuple[int, ...], ...]

    def token_arrays(self) -> dict[str, np.ndarray]:
        """Every per-token array by name, routing included when present."""
        arrays = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "segment_items"}
        return {name: array for name, array in arrays.items() if array is not None}


def _align_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _place(lengths: Sequence[int], row_length: int, align: int, num_rows: int | None) -> list[list[tuple[int, int]]]:
    """First-fit-decreasing: for each row, its (item index, start) pairs in row order."""
    rows: list[list[tuple[int, int]]] = [[] for _ in range(num_rows or 0)]
    ends: list[int] = [0] * len(rows)
    for index in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        length = lengths[index]
        if length == 0:
            continue
        if length > row_length:
            raise ValueError(f"item {index} has {length} tokens, more than the row length {row_length}")
        for row, end in enumerate(ends):
            start = _align_up(end, align)
            if start + length <= row_length:
                break
        else:
            if num_rows is not None:
                raise ValueError(f"the items do not fit in {num_rows} rows of {row_length} tokens")
            rows.append([])
            ends.append(0)
            row, start = len(rows) - 1, 0
        rows[row].append((index, start))
        ends[row] = start + length
    return rows


def _routing_width(items: Sequence[Item]) -> int | None:
    widths = {item.routed_experts.shape[1] for item in items if item.routed_experts is not None}
    if len(widths) > 1:
        raise ValueError(f"items route to different numbers of experts: {sorted(widths)}")
    return widths.pop() if widths else None


def pack(
    items: Sequence[Item],
    *,
    row_length: int,
    segment_align_multiple: int = 1,
    pad_position: str = DEFAULT_PAD_POSITION,
    pad_align: int = DEFAULT_PAD_ALIGN,
    num_rows: int | None = None,
) -> PackedRows:
    """Pack `items` into rows of `row_length` tokens.

    `num_rows` fixes the number of rows (raising when the items do not fit); otherwise there are
    as many as first-fit-decreasing needs. Items with no tokens take no segment. pad_align is
    read only with pad_position="start".
    """
    check_pad_settings(pad_position, pad_align, segment_align_multiple)
    if not isinstance(row_length, int) or row_length <= 0:
        raise ValueError(f"row_length must be a positive integer, got {row_length!r}")
    rows = _place([item.length for item in items], row_length, segment_align_multiple, num_rows)
    width = _routing_width(items)
    shape = (len(rows), row_length)
    out = PackedRows(
        ids=np.zeros(shape, np.int32),
        segment_ids=np.zeros(shape, np.int32),
        positions=np.zeros(shape, np.int32),
        completion_mask=np.zeros(shape, np.int32),
        advantages=np.zeros(shape, np.float32),
        values=np.zeros(shape, np.float32),
        routed_experts=None if width is None else np.full((*shape, width), NO_EXPERT, np.int32),
        segment_items=tuple(tuple(index for index, _ in placed) for placed in rows),
    )
    for r, placed in enumerate(rows):
        for segment, (index, start) in enumerate(placed, start=1):
            _write(out, r, start, segment, items[index])
        if pad_position == "start" and placed:
            last_index, last_start = placed[-1]
            trailing = row_length - (last_start + items[last_index].length)
            _shift_row(out, r, trailing // pad_align * pad_align)
    return out


def _write(out: PackedRows, row: int, start: int, segment: int, item: Item) -> None:
    prompt, completion = len(item.prompt_ids), len(item.completion_ids)
    tokens = slice(start, start + prompt + completion)
    answer = slice(start + prompt, start + prompt + completion)
    out.ids[row, tokens] = np.concatenate([item.prompt_ids, item.completion_ids])
    out.segment_ids[row, tokens] = segment
    out.positions[row, tokens] = np.arange(prompt + completion)
    out.completion_mask[row, answer] = item.completion_mask
    out.advantages[row, answer] = np.where(np.asarray(item.completion_mask) != 0, item.advantage, 0.0)
    if item.values is not None:
        out.values[row, answer] = item.values
    if item.routed_experts is not None:
        out.routed_experts[row, tokens] = item.routed_experts


def _shift_row(out: PackedRows, row: int, shift: int) -> None:
    """Move row `row` right by `shift`; the `shift` positions that wrap round are all padding."""
    if shift == 0:
        return
    for array in out.token_arrays().values():
        array[row] = np.roll(array[row], shift, axis=0)

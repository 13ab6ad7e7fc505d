"""The packer: hand-written rows, "start" as "end" rotated, every token's fields, refusals."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from flaglint.trainer.packing import NO_EXPERT, Item, pack  # noqa: E402


def item(prompt, completion, advantage=1.0, mask=None, values=None, experts=None):
    prompt, completion = np.asarray(prompt, np.int32), np.asarray(completion, np.int32)
    mask = np.ones(len(completion), np.int32) if mask is None else np.asarray(mask, np.int32)
    return Item(prompt, completion, mask, advantage,
                None if values is None else np.asarray(values, np.float32),
                None if experts is None else np.asarray(experts, np.int32))


def test_end_row_by_hand():
    rows = pack([item([5, 6], [7], 2.0, values=[0.5]), item([8], [9, 10, 11], -1.0, mask=[1, 0, 1])],
                row_length=11, segment_align_multiple=3)
    # Longest first: the 4-token item (index 1) at 0, then the other at the next multiple of 3.
    np.testing.assert_array_equal(rows.ids, [[8, 9, 10, 11, 0, 0, 5, 6, 7, 0, 0]])
    np.testing.assert_array_equal(rows.segment_ids, [[1, 1, 1, 1, 0, 0, 2, 2, 2, 0, 0]])
    np.testing.assert_array_equal(rows.positions, [[0, 1, 2, 3, 0, 0, 0, 1, 2, 0, 0]])
    np.testing.assert_array_equal(rows.completion_mask, [[0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0]])
    np.testing.assert_array_equal(rows.advantages, [[0, -1, 0, -1, 0, 0, 0, 0, 2, 0, 0]])
    np.testing.assert_array_equal(rows.values, [[0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0, 0]])
    assert rows.routed_experts is None
    assert rows.segment_items == ((1, 0),)
    assert rows.segment_ids.dtype == np.int32


def test_start_row_by_hand():
    experts = [[1, 2], [3, 4], [5, 6]]
    rows = pack([item([1, 2], [3], 1.5, values=[0.25], experts=experts)], row_length=20,
                segment_align_multiple=2, pad_position="start", pad_align=8)
    # 17 tokens of trailing padding round down to 16: the row moves right by 16.
    expect_ids = [0] * 16 + [1, 2, 3, 0]
    np.testing.assert_array_equal(rows.ids, [expect_ids])
    np.testing.assert_array_equal(rows.segment_ids, [[0] * 16 + [1, 1, 1, 0]])
    np.testing.assert_array_equal(rows.positions, [[0] * 16 + [0, 1, 2, 0]])
    np.testing.assert_array_equal(rows.completion_mask, [[0] * 18 + [1, 0]])
    np.testing.assert_array_equal(rows.advantages, [[0] * 18 + [1.5, 0]])
    np.testing.assert_array_equal(rows.values, [[0] * 18 + [0.25, 0]])
    want_experts = np.full((1, 20, 2), NO_EXPERT)
    want_experts[0, 16:19] = experts
    np.testing.assert_array_equal(rows.routed_experts, want_experts)


def test_start_default_pad_align_and_shift_from_the_last_token():
    # Budget 9000 is not a multiple of the alignment 64; the shift counts from the last token.
    rows = pack([item(np.arange(1, 101), np.arange(1, 50))], row_length=9000, segment_align_multiple=64,
                pad_position="start")
    # 149 tokens, 8851 trailing: 8192 = 2 * 4096.
    assert np.flatnonzero(rows.segment_ids[0])[0] == 8192
    assert np.flatnonzero(rows.segment_ids[0])[-1] == 8192 + 148


def test_rows_that_cannot_move_stay():
    few = pack([item([1] * 10, [2] * 5)], row_length=20, pad_position="start", pad_align=8)
    np.testing.assert_array_equal(few.ids, pack([item([1] * 10, [2] * 5)], row_length=20).ids)
    empty = pack([], row_length=16, pad_position="start", pad_align=4, num_rows=2)
    assert empty.ids.shape == (2, 16) and not empty.segment_ids.any()


def test_end_ignores_pad_align():
    items = [item([1, 2, 3], [4, 5]), item([6], [7, 8, 9])]
    base = pack(items, row_length=24, segment_align_multiple=3)
    for pad_align in (1, 5, 7, 4096, 10**6):
        other = pack(items, row_length=24, segment_align_multiple=3, pad_align=pad_align)
        for name, array in base.token_arrays().items():
            np.testing.assert_array_equal(array, other.token_arrays()[name])


@pytest.mark.parametrize("kwargs", [
    dict(pad_position="middle"),
    dict(pad_position="START"),
    dict(pad_position="start", pad_align=0),
    dict(pad_position="start", pad_align=-64),
    dict(pad_position="start", pad_align=96, segment_align_multiple=64),
    dict(pad_position="start", pad_align=4096.0),
    dict(pad_position="start", pad_align=True),
    dict(segment_align_multiple=0),
    dict(row_length=0),
])
def test_invalid_settings_raise(kwargs):
    args = dict(row_length=128, segment_align_multiple=1) | kwargs
    with pytest.raises(ValueError):
        pack([item([1], [2])], **args)


def test_items_that_do_not_fit_raise():
    with pytest.raises(ValueError, match="more than the row length"):
        pack([item([1] * 10, [2] * 10)], row_length=16)
    with pytest.raises(ValueError, match="do not fit"):
        pack([item([1] * 10, [2]), item([1] * 10, [2])], row_length=16, num_rows=1)


@st.composite
def packings(draw):
    align = draw(st.sampled_from([1, 2, 3, 8, 64, 128]))
    multiple = draw(st.booleans())
    row_length = draw(st.integers(4, 40)) * align + (0 if multiple else draw(st.integers(1, max(1, align - 1))))
    pad_align = align * draw(st.integers(1, 6))
    width = draw(st.sampled_from([None, 1, 3]))
    items = []
    for _ in range(draw(st.integers(0, 12))):
        prompt = draw(st.integers(0, max(0, row_length // 3)))
        completion = draw(st.integers(0, max(0, row_length // 3)))
        length = prompt + completion
        routed = width is not None and draw(st.booleans())
        items.append(item(
            draw(st.lists(st.integers(1, 50_000), min_size=prompt, max_size=prompt)),
            draw(st.lists(st.integers(1, 50_000), min_size=completion, max_size=completion)),
            advantage=draw(st.floats(-4, 4, width=32)),
            mask=draw(st.lists(st.integers(0, 1), min_size=completion, max_size=completion)),
            values=draw(st.lists(st.floats(-20, 0, width=32), min_size=completion, max_size=completion)),
            experts=np.arange(length * width).reshape(length, width) % 97 if routed else None,
        ))
    num_rows = draw(st.sampled_from([None, "spare"]))
    return items, row_length, align, pad_align, num_rows


def rows_needed(items, **kwargs):
    return pack(items, **kwargs).ids.shape[0]


@settings(max_examples=200, deadline=None)
@given(packings())
def test_start_is_end_rotated_and_every_token_keeps_its_fields(case):
    items, row_length, align, pad_align, num_rows = case
    common = dict(row_length=row_length, segment_align_multiple=align)
    if num_rows == "spare":  # an empty row at the end
        common["num_rows"] = rows_needed(items, **common) + 1
    end = pack(items, **common)
    start = pack(items, pad_position="start", pad_align=pad_align, **common)
    assert start.segment_items == end.segment_items
    for r in range(end.ids.shape[0]):
        tokens = np.flatnonzero(end.segment_ids[r])
        trailing = row_length - (tokens[-1] + 1) if len(tokens) else 0
        shift = trailing // pad_align * pad_align
        for name, array in end.token_arrays().items():
            np.testing.assert_array_equal(start.token_arrays()[name][r], np.roll(array[r], shift, axis=0), name)
    for rows in (end, start):
        check_tokens(rows, items, row_length, align)


def check_tokens(rows, items, row_length, align):
    placed = sorted(i for segments in rows.segment_items for i in segments)
    assert placed == [i for i, it in enumerate(items) if it.length > 0], "every item exactly once"
    assert rows.segment_ids.dtype == np.int32
    for r, segments in enumerate(rows.segment_items):
        seg = rows.segment_ids[r]
        assert set(np.unique(seg)) <= set(range(len(segments) + 1))
        for k, index in enumerate(segments, start=1):
            it = items[index]
            where = np.flatnonzero(seg == k)
            assert len(where) == it.length and np.all(np.diff(where) == 1), "a segment is contiguous"
            assert where[0] % align == 0, "segment starts keep their alignment, moved or not"
            n_prompt = len(it.prompt_ids)
            np.testing.assert_array_equal(rows.ids[r, where], np.concatenate([it.prompt_ids, it.completion_ids]))
            np.testing.assert_array_equal(rows.positions[r, where], np.arange(it.length))
            answer = where[n_prompt:]
            np.testing.assert_array_equal(rows.completion_mask[r, where[:n_prompt]], 0)
            np.testing.assert_array_equal(rows.completion_mask[r, answer], it.completion_mask)
            np.testing.assert_array_equal(rows.advantages[r, answer], np.where(it.completion_mask != 0, np.float32(it.advantage), 0))
            np.testing.assert_array_equal(rows.advantages[r, where[:n_prompt]], 0)
            np.testing.assert_array_equal(rows.values[r, answer], it.values)
            if rows.routed_experts is not None:
                want = it.routed_experts if it.routed_experts is not None else NO_EXPERT
                np.testing.assert_array_equal(rows.routed_experts[r, where], np.broadcast_to(want, rows.routed_experts[r, where].shape))
        padding = seg == 0
        for name, array in rows.token_arrays().items():
            fill = NO_EXPERT if name == "routed_experts" else 0
            assert np.all(array[r][padding] == fill), name

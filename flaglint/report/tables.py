"""Aligned tables for the listing commands (`rules`, `pins`, `pins diff`, `show`): read at a glance
in a terminal, and still one row per line for grep."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# A column is padded to its widest cell up to this; a longer cell (a list value, a long origin)
# pushes the rest of its own row right instead of every row.
WIDEST_PADDED = 40
GAP = "  "


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], indent: str = "") -> list[str]:
    """HEADERS and ROWS as lines of aligned columns, GAP apart; the last column is not padded."""
    rows = [list(row) for row in rows]
    widths = [min(WIDEST_PADDED, max(len(cell) for cell in column)) for column in zip(headers, *rows)]
    lines = []
    for row in [list(headers), *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths)]
        lines.append((indent + GAP.join([*cells, row[-1]])).rstrip())
    return lines

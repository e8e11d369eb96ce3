"""Plain, left-aligned text tables: `osiris sessions` and the chat's plain display."""

from __future__ import annotations

from collections.abc import Sequence


def format_table(headers: Sequence[object], rows: Sequence[Sequence[object]]) -> list[str]:
    """The header line and one line per row, columns padded to their widest cell."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in cells]

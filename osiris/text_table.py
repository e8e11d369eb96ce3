"""Plain text for people: left-aligned tables (`osiris sessions`, the chat's plain display) and row
counts."""

from __future__ import annotations

from collections.abc import Sequence


def format_table(headers: Sequence[object], rows: Sequence[Sequence[object]]) -> list[str]:
    """The header line and one line per row, columns padded to their widest cell."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in cells]


def count_rows(n: int) -> str:
    """'1 row', '1,204 rows'."""
    return f"{n:,} row{'' if n == 1 else 's'}"

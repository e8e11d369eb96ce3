"""A few numbered lines of a text around a position, with a caret under the column."""

from __future__ import annotations

CONTEXT_LINES = 2


def excerpt(text: str, line: int, column: int | None, context: int = CONTEXT_LINES) -> str:
    """E.g. for line 3, column 5:

         2 | name: x
         3 | key: [a, b
           |     ^
    """
    lines = text.splitlines()
    if not 1 <= line <= len(lines) + 1:
        return ""
    first, last = max(1, line - context), min(len(lines), line)
    width = len(str(line))
    shown = [f"{n:>{width}} | {lines[n - 1]}" for n in range(first, last + 1)]
    if column:
        shown.append(f"{'':>{width}} | {' ' * (column - 1)}^")
    return "\n".join(shown)

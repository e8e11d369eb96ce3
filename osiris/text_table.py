"""Plain text for people: left-aligned tables (`osiris sessions`, the chat's plain display, sample
previews), row counts, and data values made safe and short for a terminal.

Widths count terminal cells, not characters: a CJK character or an emoji takes two cells, a
combining accent none, so a column of `李小龍` lines up with one of `Ann`. Values from data (a
file, a database, an API) may hold control characters; `printable` shows them as escapes, so that
a value can neither drive the terminal (set its title, clear the screen) nor break a line
(docs/run.md, "What you see").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

CELL_WIDTH = 24  # the widest a data value is shown in a preview, in terminal cells
NO_ROWS = "(no rows matched on the sample)"
ROLLED_BACK = "rolled back, nothing kept"  # a writer's rows on a sample run: `run --sample`, the sample run


def format_table(headers: Sequence[object], rows: Sequence[Sequence[object]]) -> list[str]:
    """The header line and one line per row, columns padded to their widest cell (in terminal
    cells), control characters escaped. A row shorter than the headers is padded with empty cells."""
    cells = [[printable(str(h)) for h in headers]] + [
        _padded([printable(str(c)) for c in row], len(headers)) for row in rows]
    widths = [max(cell_width(row[i]) for row in cells) for i in range(len(headers))]
    return ["  ".join(_ljust(cell, width) for cell, width in zip(row, widths)).rstrip() for row in cells]


def _padded(row: list[str], length: int) -> list[str]:
    return row + [""] * (length - len(row))


def _ljust(text: str, width: int) -> str:
    return text + " " * (width - cell_width(text))


def count_rows(n: int) -> str:
    """'1 row', '1,204 rows'."""
    return f"{n:,} row{'' if n == 1 else 's'}"


def printable(text: str, keep: str = "") -> str:
    """`text` with every character Python does not count as printable (controls such as ESC, CR
    and BEL, line and paragraph separators, invisible format characters) shown as its escape,
    `\\x1b`, `\\r`, `\\u2028`; characters in `keep` (e.g. "\\n") stay as they are."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char in keep else repr(char)[1:-1] for char in text)


def cell(value: object, width: int = CELL_WIDTH) -> str:
    """One data value for a preview: NULL for None, control characters escaped (one line, never a
    terminal command), at most `width` terminal cells (cut with "…")."""
    return fit("NULL" if value is None else printable(value_text(value)), width)


def value_text(value: object) -> str:
    """A value as a preview shows it: a duration by `duration_text` (`838:59:59`, not Python's
    `34 days, 22:59:59`); anything else as str() does."""
    return duration_text(value) if isinstance(value, timedelta) else str(value)


def duration_text(value: timedelta) -> str:
    """A duration as MySQL prints a TIME and the DuckDB engine an INTERVAL of hours (so as a CSV file
    holds it): `[-]HH:MM:SS`, hours past 24 as they are, the fraction without its trailing zeros:
    `838:59:59`, `-12:30:00.5`, `00:00:00.000001`. The one rule for previews and for the MySQL reader."""
    micros = abs(value) // timedelta(microseconds=1)
    seconds, fraction = divmod(micros, 1_000_000)
    text = f"{'-' if value < timedelta(0) else ''}{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{fraction:06d}".rstrip("0") if fraction else text


def fit(text: str, width: int) -> str:
    """`text` cut to `width` terminal cells, its last cell "…" when it was cut."""
    if cell_width(text) <= width:
        return text
    kept, used = [], 0
    for char in text:
        used += _char_width(char)
        if used > width - 1:
            break
        kept.append(char)
    return "".join(kept) + "…"


def cell_width(text: str) -> int:
    """How many terminal cells `text` takes (East Asian wide and full-width characters two,
    combining marks none)."""
    if text.isascii():
        return len(text)
    return sum(_char_width(char) for char in text)


def _char_width(char: str) -> int:
    import unicodedata

    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1

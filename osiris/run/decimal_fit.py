"""The engine type that holds every number of a column exactly, from the numbers' texts.

Used where a reader has each value's exact text but no declared precision: a PostgreSQL `numeric`
without one (and the numeric results of `sum()` or `avg()`), and JSON numbers a double or BIGINT
cannot hold (osiris.run.json_numbers). Up to DuckDB's 38 digits that is DECIMAL(p,s) (or, for
whole numbers, the type the caller names); wider, the text stays text (docs/types.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

MAX_DIGITS = 38  # DuckDB's widest DECIMAL


def holding_type(texts: Iterable[str], whole: str | None = None) -> str | None:
    """DECIMAL(p,s) holding every number in `texts` (`whole`, e.g. HUGEINT, when none has a
    fraction), VARCHAR when that needs more than 38 digits; None when a text is not a finite number
    (NaN, Infinity, or not a number at all). Each number keeps the scale it is written with."""
    integer_digits, scale = 0, 0
    for text in texts:
        if not text or text[0] not in "-+.0123456789":
            return None
        try:
            _, digits, exponent = Decimal(text).as_tuple()
        except InvalidOperation:
            return None
        if not isinstance(exponent, int):  # NaN, Infinity
            return None
        significant = len(digits) - next((i for i, d in enumerate(digits) if d), len(digits))
        integer_digits, scale = max(integer_digits, significant + exponent), max(scale, -exponent)
    if integer_digits + scale > MAX_DIGITS:
        return "VARCHAR"
    if scale == 0 and whole is not None:
        return whole
    return f"DECIMAL({max(integer_digits + scale, 1)},{scale})"


def column_texts(con: duckdb.DuckDBPyConnection, table: str, expression: str) -> Iterator[str]:
    """The non-NULL values of `expression` (SQL over `table`, a quoted name) as text, in batches."""
    cursor = con.execute(f"SELECT ({expression})::VARCHAR AS v FROM {table} WHERE v IS NOT NULL")
    while batch := cursor.fetchmany(10_000):
        for (text,) in batch:
            yield text

"""One-value questions to the engine: a table's row count, a setting."""

from __future__ import annotations

from typing import Any

from osiris.run.spool import quote_ident


def first_value(con: Any, sql: str) -> Any:
    """The first column of the first row of `sql` (a query that always returns a row)."""
    row = con.execute(sql).fetchone()
    if row is None:
        raise RuntimeError(f"no row from: {sql}")
    return row[0]


def row_count(con: Any, table: str) -> int:
    """How many rows the engine's `table` holds."""
    return int(first_value(con, f"SELECT count(*) FROM {quote_ident(table)}"))

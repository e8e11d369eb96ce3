"""One-value questions to the engine: a table's row count, a setting, the rows a query scanned."""

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


def scanned_rows(profile: str) -> int | None:
    """The rows the one file scan of a profiled query read (DuckDB's JSON profile: the `READ_CSV`
    table scan's `rows_scanned`); None when the plan holds no such scan or more than one, or DuckDB
    did not count it: then no engine count exists."""
    import json

    try:
        tree = json.loads(profile)
    except ValueError:
        return None
    scans: list[Any] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if node.get("type") == "TABLE_SCAN" and (node.get("extra_info") or {}).get("Function") == "READ_CSV":
                scans.append(node.get("rows_scanned"))
            pending += [child for key in ("operator", "children") for child in node.get(key) or []]
    return scans[0] if len(scans) == 1 and isinstance(scans[0], int) else None

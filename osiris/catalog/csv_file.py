"""Sniff a CSV file's columns and types with DuckDB (`read_csv_auto`)."""

from __future__ import annotations

from pathlib import Path

from osiris.families import ColumnInfo, TableInfo
from osiris.problems import unreadable_csv_problem


def sniff_csv(path: Path, shown: Path | None = None) -> TableInfo:
    """One table named after the file's stem (of `shown`, the name messages use, when given), with
    DuckDB's inferred types. RuntimeProblem when DuckDB cannot read the file as CSV."""
    from osiris.duckdb_core import duckdb  # only for `discover FILE.csv`

    literal = "'" + str(path).replace("'", "''") + "'"
    con = duckdb.connect()
    try:
        rows = con.execute(f"DESCRIBE SELECT * FROM read_csv_auto({literal})").fetchall()
    except duckdb.Error as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise unreadable_csv_problem(str(shown or path), first) from None
    finally:
        con.close()
    return TableInfo((shown or path).stem, [ColumnInfo(str(name), str(kind), str(null).upper() != "NO")
                                 for name, kind, null, *_ in rows])

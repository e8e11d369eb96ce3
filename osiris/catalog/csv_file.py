"""Sniff a CSV file's columns and types with DuckDB (`read_csv_auto`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from osiris.families import ColumnInfo, TableInfo
from osiris.problems import repeated_header, repeated_header_problem, unreadable_csv_problem

if TYPE_CHECKING:
    import duckdb


def sniff_csv(path: Path, shown: Path | None = None) -> TableInfo:
    """One table named after the file's stem (of `shown`, the name messages use, when given), with
    DuckDB's inferred types. RuntimeProblem when DuckDB cannot read the file as CSV, and OML540's
    when its header names a column twice: DuckDB's `id_1` is not a column of the file, and a run
    of the file refuses it the same way (osiris.problems.repeated_header)."""
    from osiris.duckdb_core import duckdb  # only for `discover FILE.csv`

    literal = "'" + str(path).replace("'", "''") + "'"
    con = duckdb.connect()
    try:
        rows = con.execute(f"DESCRIBE SELECT * FROM read_csv_auto({literal})").fetchall()
        twin = repeated_header([str(row[0]) for row in rows], lambda: _first_row(con, literal))
    except duckdb.Error as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise unreadable_csv_problem(str(shown or path), first) from None
    finally:
        con.close()
    if twin is not None:
        raise repeated_header_problem(str(shown or path), twin)
    return TableInfo((shown or path).stem, [ColumnInfo(str(name), str(kind), str(null).upper() != "NO")
                                 for name, kind, null, *_ in rows])


def _first_row(con: duckdb.DuckDBPyConnection, literal: str) -> list[str]:
    """The file's first row as text, as it stands (the header, where DuckDB found one)."""
    row = con.execute(f"SELECT * FROM read_csv_auto({literal}, header = false, all_varchar = true) LIMIT 1").fetchone()
    return [str(value) for value in row or ()]

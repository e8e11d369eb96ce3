"""The DuckDB engine's columns for a Spark step's rows, so that a table a writer creates gets the
same column types on both engines (docs/spark.md, "Created tables").

Spark holds some values in other types than the DuckDB engine: a PostgreSQL interval, uuid, jsonb,
timetz or wide numeric as text, a MariaDB TIME as text and its BIT as DECIMAL(20,0), the sum of a
DECIMAL(8,2) as DECIMAL(18,2). So each step keeps the columns the DuckDB engine would give its rows,
found by that engine's own rules: a database read from the source's column descriptions
(osiris.run.spark.columns), a CSV file from DuckDB's sniffing, an API from its driver's own table,
a transform by DuckDB binding the step's query (never running it) over empty tables of its inputs'
columns. A writer creates its table from them with its own rule (postgres.create_table_sql,
mysql_types.mysql_type), as on DuckDB. Where DuckDB cannot say (the query does not bind on those
columns), Spark's own types stand.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from osiris.run.spark.types import duckdb_columns
from osiris.run.spool import Column, column_notes, quote_ident

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


def of_spark(schema: StructType) -> list[Column]:
    """Spark's own columns, named as DuckDB names them (when nothing closer is known)."""
    return [Column(name, kind) for name, kind in duckdb_columns(schema)]


def of_table(con: Any, table: str) -> list[Column]:
    """A DuckDB table's columns, with the notes its reader left on them ({"long": "numeric"})."""
    notes = column_notes(con, table)
    rows = con.execute(f"DESCRIBE {quote_ident(table)}").fetchall()
    return [Column(str(row[0]), str(row[1]), note=notes.get(str(row[0]))) for row in rows]


def matched(found: list[Column] | None, schema: StructType) -> list[Column]:
    """`found` under Spark's column names, when it has one column for each of Spark's; else Spark's own."""
    names = [field.name for field in schema.fields]
    if found is None or len(found) != len(names):
        return of_spark(schema)
    return [Column(name, column.type, note=column.note) for name, column in zip(names, found, strict=True)]


def types(columns: list[Column] | None) -> dict[str, str]:
    """{name: DuckDB type} of `columns` (empty when not known)."""
    return {column.name: column.type for column in columns or []}


def of_transform(query: str, inputs: Mapping[str, list[Column]], schema: StructType, scratch: Path) -> list[Column]:
    """The columns of a transform's rows (`schema`, Spark's) as the DuckDB engine's transform would
    make them of `inputs` (`df_<id>` -> its columns; the one input is `input_df` too)."""
    tables = dict(inputs)
    if len(inputs) == 1:
        tables["input_df"] = next(iter(inputs.values()))
    return matched(transformed(query, tables, scratch), schema)


def transformed(query: str, inputs: Mapping[str, list[Column]], scratch: Path) -> list[Column] | None:
    """The columns the DuckDB engine's transform would make of `inputs` (table name -> its columns):
    DuckDB binds the query over empty tables of those columns, in a connection that reaches no file
    (osiris.trust.sandbox), and runs nothing. None when it does not bind. No notes: a transform's
    columns have none on DuckDB either."""
    import duckdb  # the package: its relation API (duckdb.sql) binds without running (ADR 0206)

    from osiris.trust.sandbox import lock_down

    empty = Path(tempfile.mkdtemp(prefix="types-", dir=scratch))
    try:
        with duckdb.connect(":memory:") as con:
            lock_down(con, empty)
            for table, columns in inputs.items():
                create(con, table, columns)
            relation = duckdb.sql(query.strip().rstrip(";"), connection=con)  # a relation is bound, not run
            if relation is None:
                return None  # not a query
            return [Column(str(name), str(kind)) for name, kind in zip(relation.columns, relation.types, strict=True)]
    except duckdb.Error:
        return None
    finally:
        shutil.rmtree(empty, ignore_errors=True)


def create(con: Any, table: str, columns: list[Column]) -> None:
    """An empty DuckDB table of `columns`, each note its column's comment, as a reader leaves it."""
    from osiris.trust.duckdb_sql import literal

    name = quote_ident(table)
    con.execute(f"CREATE OR REPLACE TABLE {name} ({', '.join(f'{quote_ident(c.name)} {c.type}' for c in columns)})")
    for column in columns:
        if column.note:
            con.execute(f"COMMENT ON COLUMN {name}.{quote_ident(column.name)} IS {literal(column.note)}")

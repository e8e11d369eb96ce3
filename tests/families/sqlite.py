"""A SQL family written the way docs/architecture.md ("Adding a SQL database") says: this one
module and two specs (components/sqlite.*/spec.yaml), nothing else. tests/test_sql_skeleton.py
puts this folder on `osiris.run.drivers.__path__` and the specs on `components.paths`, then
validates, runs and discovers pipelines of it. It reads and writes SQLite files (Python's sqlite3),
whose `database` is a path in the project."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from osiris.run.driver import Family, StepContext, TableInfo
from osiris.run.drivers.sql_base import Classified, ErrorKind, SqlDialect, SqlDriver, WriteTarget, tables_found
from osiris.run.drivers.sql_common import input_batches, spool_path
from osiris.run.spool import CsvSpool, quote_ident

FAMILY = Family("sqlite", "SQLite", ("sqlite.extractor", "sqlite.writer"), kind="database", discoverable=True,
                dialect="sqlite", words=("sqlite3",))


class SQLiteDialect(SqlDialect):
    family = FAMILY
    default_port = 0

    def open(self, config: Mapping[str, Any]) -> Any:
        path = Path(str(config.get("base_dir") or ".")) / str(config["database"])
        if not path.is_file():
            raise sqlite3.OperationalError(f"unable to open database file {path.name}")
        return sqlite3.connect(path)

    def classify_connect(self, error: Exception) -> Classified | None:
        return (ErrorKind.UNKNOWN_DATABASE, str(error)) if isinstance(error, sqlite3.Error) else None

    def classify(self, error: Exception) -> Classified | None:
        if not isinstance(error, sqlite3.Error):
            return None
        text = str(error)
        if "no such table" in text:
            return ErrorKind.UNKNOWN_TABLE, f'"{text.split(": ")[-1]}"'
        if "no such column" in text:
            return ErrorKind.UNKNOWN_COLUMN, f'"{text.split(": ")[-1]}"'
        if isinstance(error, sqlite3.IntegrityError):
            return ErrorKind.UNIQUE if "UNIQUE" in text else ErrorKind.REJECTED, text
        return ErrorKind.SQL, text

    def quote(self, name: str) -> str:
        return quote_ident(name)

    def schema(self, config: Mapping[str, Any]) -> str:
        return "main"

    def read(self, ctx: StepContext, conn: Any, query: str) -> int:
        cursor = conn.execute(query)
        columns = [(d[0], "VARCHAR") for d in cursor.description]
        spool = CsvSpool(ctx.con, ctx.output_table, columns, spool_path(ctx), 1000, ctx.progress)
        try:
            while batch := cursor.fetchmany(1000):
                spool.add_rows(batch)
        finally:
            rows = spool.close()
        return rows

    def discover(self, conn: Any, schema: str, tables: list[str] | None) -> list[TableInfo]:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        rows, keys = [], []
        for name in (n for n in names if tables is None or n in tables):
            for _, column, kind, notnull, _, pk in conn.execute(f"PRAGMA table_info({quote_ident(name)})"):
                rows.append((name, column, kind, not notnull))
                keys += [(name, column)] if pk else []
        return tables_found(rows, keys)

    def prepare(self, ctx: StepContext, conn: Any, target: WriteTarget, columns: list[tuple[str, str]]) -> str:
        into = quote_ident(target.table)
        if target.existing is None:
            conn.execute(f"CREATE TABLE {into} ({', '.join(quote_ident(n) for n, _ in columns)})")
        return into

    def write(self, ctx: StepContext, conn: Any, into: str, target: WriteTarget, source: str,
              columns: list[tuple[str, str]]) -> int:
        marks = ", ".join("?" for _ in columns)
        rows = 0
        for batch in input_batches(ctx, source, ", ".join(quote_ident(n) for n, _ in columns), 1000):
            conn.executemany(f"INSERT INTO {into} VALUES ({marks})", batch)
            rows += len(batch)
        return rows


DRIVER = SqlDriver(SQLiteDialect())

"""The MySQL writer's fast path: the input as a file DuckDB writes, sent with one `LOAD DATA LOCAL
INFILE` instead of INSERT statements PyMySQL builds value by value in Python (ADR 0167).

It stays exact by taking only what it can prove, and handing the rest to the INSERT path:
- a column goes this way only when the text DuckDB writes for its engine type reads, into the
  target column's type, as the value the INSERT path sends (`LOADABLE`: integers, decimals, text,
  dates, timestamps into date-time columns, doubles into floating columns, booleans as 1 / 0, and
  what the INSERT path sends as text anyway); a binary target, a BIT, an upsert, or a `--sample`
  take the INSERT path;
- MySQL turns errors into warnings under LOCAL (a duplicate key is skipped, a bad value cut): the
  load runs inside a savepoint, and one warning, or a row count that is not the input's, rolls it
  back to the savepoint, and the INSERT path writes the rows and reports what it finds, as before;
- a server that does not allow LOCAL INFILE takes the INSERT path the same way.

The connection enables LOCAL INFILE, so that a server cannot use it to read the person's files:
`GuardedConnection` sends only the file of the load under way, and refuses any other a server asks
for (a hostile server may ask in answer to any statement).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import cast

import pymysql
from pymysql.connections import MySQLResult
from pymysql.protocol import LoadLocalPacketWrapper, MysqlPacket

from osiris.run.driver import StepContext
from osiris.run.drivers.mysql_types import render
from osiris.run.drivers.sql_common import spool_path
from osiris.run.drivers.sql_types import base
from osiris.run.spool import quote_ident

_INTEGERS = {"tinyint", "smallint", "mediumint", "int", "integer", "bigint"}
_NUMBERS = _INTEGERS | {"decimal", "numeric", "dec", "fixed", "float", "double", "real"}
_TEXTS = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "json"}
_DATES = {"date", "datetime", "timestamp"}
_TEXT_VALUES = _NUMBERS | _TEXTS | _DATES | {"time", "year", "enum", "set"}
# engine base type -> the target column types that read its text as the INSERT path's value
LOADABLE: dict[str, set[str]] = {
    **dict.fromkeys(("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER", "USMALLINT",
                     "UTINYINT", "HUGEINT", "UHUGEINT", "BOOLEAN"), _NUMBERS | _TEXTS),
    "DECIMAL": _NUMBERS,
    "DOUBLE": {"float", "double", "real"}, "FLOAT": {"float", "double", "real"},
    "DATE": _DATES | _TEXTS,
    "TIMESTAMP": {"datetime", "timestamp"}, "TIMESTAMP WITH TIME ZONE": {"datetime", "timestamp"},
    **dict.fromkeys(("VARCHAR", "UUID", "JSON", "TIME", "INTERVAL", "TIME WITH TIME ZONE"), _TEXT_VALUES),
}
_TYPE_WORD = re.compile(r"[a-z]+")
PACKET_BYTES = 256 << 10  # the file goes in packets of this size (PyMySQL's own: 16 KiB)


class LoadRefused(pymysql.err.OperationalError):
    """The server asked for a file that is not the one being loaded."""


class GuardedConnection(pymysql.connections.Connection):
    """A PyMySQL connection with LOCAL INFILE on, that sends the server no file but `loading`: the
    file of that name, or the pieces of `sending` when a load streams from elsewhere (a direct
    PostgreSQL -> MySQL copy, osiris.run.drivers.postgres_mysql)."""

    loading: bytes | None = None
    sending: Iterable[bytes | bytearray] | None = None

    def _read_query_result(self, unbuffered: bool = False) -> int:
        """PyMySQL's own (pymysql/connections.py), reading results with `_GuardedResult`."""
        self._result = None
        result = _GuardedResult(self)
        if unbuffered:
            result.init_unbuffered_query()
        else:
            result.read()
        self._result = result
        if result.server_status is not None:
            self.server_status = result.server_status
        return int(result.affected_rows or 0)

    def abandon(self) -> None:
        """Drop the link without a word: in the middle of a file, whatever is sent would be read as
        its data. The server rolls the open transaction back when the link drops."""
        self._force_close()  # type: ignore[attr-defined]  # PyMySQL's, not in its stubs

    def rollback(self) -> None:
        if self.open:  # an abandoned link has nothing left to roll back
            super().rollback()


class _GuardedResult(MySQLResult):
    def _read_load_local_packet(self, first_packet: MysqlPacket) -> None:
        """PyMySQL's answer to LOAD_LOCAL (pymysql/connections.py), sending only the file being loaded,
        and dropping the link when interrupted half-way (PyMySQL would go on to wait for a server that
        waits for the rest of the file)."""
        connection = cast(GuardedConnection, self.connection)
        asked = LoadLocalPacketWrapper(first_packet).filename
        try:
            if connection.loading is None or asked != connection.loading:
                connection.write_packet(b"")  # no data: the server ends the statement
                connection._read_packet()  # type: ignore[no-untyped-call]  # PyMySQL's, untyped in its stubs
                raise LoadRefused(2068, "the server asked for a file Osiris did not offer; nothing was sent")
            for piece in connection.sending if connection.sending is not None else _file_pieces(asked):
                view = memoryview(piece)
                for start in range(0, len(view), PACKET_BYTES):
                    connection.write_packet(view[start:start + PACKET_BYTES])
            connection.write_packet(b"")
            answer = connection._read_packet()  # type: ignore[no-untyped-call]  # PyMySQL's, untyped in its stubs
        except BaseException as error:
            if not isinstance(error, LoadRefused):
                connection.abandon()
            raise
        if not answer.is_ok_packet():
            raise pymysql.err.OperationalError(2014, "Commands out of sync")
        self._read_ok_packet(answer)  # type: ignore[attr-defined]  # PyMySQL's, not in its stubs


def _file_pieces(path: bytes) -> Iterator[bytes]:
    with open(path, "rb") as file:
        while piece := file.read(PACKET_BYTES):
            yield piece


def load(ctx: StepContext, conn: GuardedConnection, into: str, source: str, columns: list[tuple[str, str]],
         target_types: Mapping[str, str]) -> int | None:
    """Write the input table `source` into `into` with LOAD DATA LOCAL INFILE: the row count, or None
    when the INSERT path must write it (nothing of the load is kept then)."""
    select = _loadable(columns, target_types)
    if select is None:
        return None
    path = spool_path(ctx).with_suffix(".load.csv")
    try:  # every value quoted, NULL the bare word: what OPTIONALLY ENCLOSED BY '"' reads as NULL
        written = ctx.con.execute(f"COPY (SELECT {select} FROM {quote_ident(source)}) TO '{path}' "
                                  "(FORMAT csv, HEADER false, NULLSTR 'NULL', FORCE_QUOTE *)").fetchone()
        return _loaded(conn, into, path, [name for name, _ in columns], int(written[0]) if written else 0)
    finally:
        path.unlink(missing_ok=True)


def load_data(conn: GuardedConnection, into: str, names: list[str], name: str,
              sending: Iterable[bytes | bytearray] | None = None) -> tuple[int, int]:
    """One LOAD DATA LOCAL INFILE into `into`'s columns `names` of a CSV file with every value quoted
    and NULL the bare word: the file `name`, or the pieces of `sending` offered under that name.
    (rows loaded, warnings); the guard sends the server nothing else."""
    from osiris.run.drivers.mysql import quote_mysql

    listed = ", ".join(quote_mysql(column) for column in names)
    conn.loading, conn.sending = name.encode(), sending
    try:
        with conn.cursor() as cursor:
            cursor.execute(f"LOAD DATA LOCAL INFILE %s INTO TABLE {into.replace('%', '%%')} CHARACTER SET utf8mb4 "
                           "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' "
                           f"LINES TERMINATED BY '\\n' ({listed.replace('%', '%%')})", (name,))
            loaded = cursor.rowcount
            cursor.execute("SELECT @@warning_count")
            return loaded, (cursor.fetchone() or (0,))[0]
    finally:
        conn.loading = conn.sending = None


def _loaded(conn: GuardedConnection, into: str, path: Path, names: list[str], expected: int) -> int | None:
    with conn.cursor() as cursor:
        cursor.execute("SAVEPOINT osiris_load")
        try:
            loaded, warnings = load_data(conn, into, names, str(path))
        except LoadRefused:
            raise
        except pymysql.MySQLError:  # LOCAL INFILE not allowed, or any other refusal: the INSERT path says
            if not conn.open:
                raise
            loaded, warnings = -1, 0
        if warnings or loaded != expected:
            cursor.execute("ROLLBACK TO SAVEPOINT osiris_load")
            return None
        cursor.execute("RELEASE SAVEPOINT osiris_load")
    return loaded


def lands_as_inserted(kind: str, target: str) -> bool:
    """Whether the text of an engine column of type `kind` reads, into a MySQL column of type
    `target`, as the value the INSERT path sends (`LOADABLE`)."""
    word = _TYPE_WORD.match(target.lower())
    return word is not None and word.group() in LOADABLE.get(kind if kind in LOADABLE else base(kind), set())


def _loadable(columns: list[tuple[str, str]], target_types: Mapping[str, str]) -> str | None:
    """The SELECT list DuckDB writes the file from, or None when a column must take the INSERT path."""
    parts = []
    for name, kind in columns:
        target = target_types.get(name, "")
        if not lands_as_inserted(kind, target):
            return None
        quoted = quote_ident(name)
        if kind == "BOOLEAN":
            shown: str | None = f"CASE WHEN {quoted} THEN 1 WHEN NOT {quoted} THEN 0 END"
        elif kind == "FLOAT":
            shown = f"CAST({quoted} AS DOUBLE)"  # the double PyMySQL would be given, not the float's shortest text
        else:
            shown = render(quoted, kind, target.lower())
        parts.append(f"{shown} AS {quoted}" if shown else quoted)
    return ", ".join(parts)

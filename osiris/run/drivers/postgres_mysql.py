"""A postgres.extractor read straight into a mysql.writer: PostgreSQL's `COPY ... TO STDOUT (FORMAT
CSV)` relayed piece by piece as the file of one `LOAD DATA LOCAL INFILE`, both servers working at
once (the direct route of osiris.run.direct, ADR 0177).

The engine's route reads PostgreSQL's CSV into DuckDB, and DuckDB writes it again as the load's
file (osiris.run.drivers.mysql_load). Here MySQL reads PostgreSQL's own text, so the route is taken
only where that text is the engine's, value for value, in the same framing (every value quoted,
NULL the bare word):

- columns of these PostgreSQL types: boolean (written 1 / 0 by the COPY's SELECT, as the engine
  writes it), smallint, integer, bigint, numeric(p,s) with p <= 38, text, varchar, date, timestamp;
  each into a target column that reads that text as the INSERT path's value
  (`mysql_load.lands_as_inserted`, the engine's own rule);
- an existing target (creating one takes the engine's types), `append` or `replace`, a full run, a
  UTF-8 PostgreSQL session, no column name twice.

Anything else takes the engine's route from the start. What the engine refuses sends the copy back
before anything is kept: `NaN` and `Infinity` in the rows of a result with a numeric column,
`infinity` and ` BC` in those of one with a date or timestamp (a text holding them sends it back
too: slower, never wrong). As on the engine's route, a MySQL warning or a row count that is not
PostgreSQL's undoes the load; here the whole copy, `replace`'s DELETE included, is rolled back and
goes to the engine's route, which writes the rows or says what is wrong with them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

from osiris.run.drivers.mysql_load import GuardedConnection, lands_as_inserted, load_statement
from osiris.run.drivers.postgres_csv import PIECE_BYTES
from osiris.run.spool import quote_ident

_ENGINE_TYPE = {16: "BOOLEAN", 20: "BIGINT", 21: "SMALLINT", 23: "INTEGER", 1700: "DECIMAL", 25: "VARCHAR",
                1043: "VARCHAR", 1082: "DATE", 1114: "TIMESTAMP"}  # PostgreSQL type oid -> what the engine reads
_NUMERIC, _INSTANTS = 1700, {1082, 1114}
LOAD_NAME = "osiris-direct-copy"  # the file the LOAD statement names: the guard sends only these rows for it


class Fallback(Exception):
    """The rows hold a value only the engine's route handles right; nothing is kept."""


def direct_select(description: list[Any], target_types: Mapping[str, str]) -> str | None:
    """The SELECT list whose CSV MySQL reads as the engine's route would write it, over a query's
    columns (psycopg's `cursor.description`) into a target's (name -> MySQL type); None when the
    copy must take the engine's route."""
    names = [str(column.name) for column in description]
    if not names or len(set(names)) < len(names):
        return None
    parts = []
    for name, column in zip(names, description, strict=True):
        kind = _ENGINE_TYPE.get(column.type_code)
        if kind is None or (kind == "DECIMAL" and not _fixed_decimal(column)) or \
                not lands_as_inserted(kind, target_types.get(name, "")):
            return None
        quoted = quote_ident(name)
        parts.append(f"CASE WHEN {quoted} THEN 1 WHEN NOT {quoted} THEN 0 END AS {quoted}" if kind == "BOOLEAN"
                     else quoted)
    return ", ".join(parts)


def load_rows(mysql: GuardedConnection, cursor: Any, pg: Any, query: str, select: str, into: str,
              names: list[str], progress: Callable[[int], None]) -> int | None:
    """LOAD DATA into `into` from PostgreSQL's COPY of `select` over `query`, inside the open
    transaction: the row count, or None when MySQL warned or counted otherwise (the caller rolls
    back). Raises Fallback (the MySQL link dropped, so nothing is kept) for a value only the engine
    handles, and what PostgreSQL or MySQL raised."""
    from osiris.run.drivers.postgres import copied_rows

    marks = _marks(cursor.description or [])
    statement = (f"COPY (SELECT {select} FROM ({query}) AS osiris_source) TO STDOUT "
                 "(FORMAT CSV, FORCE_QUOTE *, NULL 'NULL')")
    sent = 0

    def pieces() -> Generator[bytearray]:
        nonlocal sent
        piece = bytearray()
        with cursor.copy(statement) as copy:
            for line in copied_rows(copy, pg):
                piece += line
                sent += 1
                if len(piece) >= PIECE_BYTES:
                    yield _checked(piece, marks)
                    piece = bytearray()
                    progress(sent)
        yield _checked(piece, marks)

    relay = pieces()
    mysql.loading, mysql.sending = LOAD_NAME.encode(), relay
    try:
        with mysql.cursor() as load:
            load.execute(load_statement(into, names), (LOAD_NAME,))
            loaded = load.rowcount
            load.execute("SELECT @@warning_count")
            warnings = (load.fetchone() or (0,))[0]
    finally:
        mysql.loading = mysql.sending = None
        relay.close()
    return loaded if not warnings and loaded == sent else None


def _checked(piece: bytearray, marks: tuple[bytes, ...]) -> bytearray:
    if any(mark in piece for mark in marks):
        raise Fallback()
    return piece


def _marks(description: list[Any]) -> tuple[bytes, ...]:
    codes = {column.type_code for column in description}
    marks: list[bytes] = []
    if _NUMERIC in codes:
        marks += [b"NaN", b"Infinity"]
    if codes & _INSTANTS:
        marks += [b"infinity", b" BC"]
    return tuple(marks)


def _fixed_decimal(column: Any) -> bool:
    """numeric(p,s) the engine reads as DECIMAL(p,s): p <= 38, 0 <= s <= p."""
    precision, scale = column.precision, column.scale
    return bool(precision) and precision <= 38 and scale is not None and 0 <= scale <= precision

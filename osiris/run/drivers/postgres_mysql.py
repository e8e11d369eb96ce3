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

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import TYPE_CHECKING

from osiris.run.drivers.mysql_load import GuardedConnection, lands_as_inserted, load_data
from osiris.run.drivers.postgres_csv import Pieces, has_decimal
from osiris.run.spool import quote_ident

if TYPE_CHECKING:
    from psycopg import Column, Cursor
    from psycopg.rows import TupleRow

    from osiris.run.drivers.postgres import PgConnection

_TAKEN = {16, 20, 21, 23, 1700, 25, 1043, 1082, 1114}  # PostgreSQL type oids the route may carry (above)
_NUMERIC, _INSTANTS = 1700, {1082, 1114}
LOAD_NAME = "osiris-direct-copy"  # the file the LOAD statement names: the guard sends only these rows for it


def direct_select(description: Sequence[Column], target_types: Mapping[str, str]) -> str | None:
    """The SELECT list whose CSV MySQL reads as the engine's route would write it, over a query's
    columns (psycopg's `cursor.description`) into a target's (name -> MySQL type); None when the
    copy must take the engine's route. Each column's engine type is the one the engine's read gives
    it (postgres.engine_column)."""
    from osiris.run.drivers.postgres import engine_column

    names = [str(column.name) for column in description]
    if not names or len(set(names)) < len(names):
        return None
    parts = []
    for name, column in zip(names, description, strict=True):
        kind = engine_column(column).type
        if column.type_code not in _TAKEN or (column.type_code == _NUMERIC and not kind.startswith("DECIMAL")) or \
                not has_decimal(column) or not lands_as_inserted(kind, target_types.get(name, "")):
            return None
        quoted = quote_ident(name)
        parts.append(f"CASE WHEN {quoted} THEN 1 WHEN NOT {quoted} THEN 0 END AS {quoted}" if kind == "BOOLEAN"
                     else quoted)
    return ", ".join(parts)


def load_rows(mysql: GuardedConnection, cursor: Cursor[TupleRow], pg: PgConnection, query: str, select: str, into: str,
              names: list[str], progress: Callable[[int], None]) -> int | None:
    """LOAD DATA into `into` from PostgreSQL's COPY of `select` over `query`, inside the open
    transaction: the row count, or None when MySQL warned or counted otherwise (the caller rolls
    back). Raises Fallback (the MySQL link dropped, so nothing is kept) for a value only the engine
    handles, and what PostgreSQL or MySQL raised."""
    from osiris.run.drivers.postgres import copied_rows

    statement = (f"COPY (SELECT {select} FROM ({query}) AS osiris_source) TO STDOUT "
                 "(FORMAT CSV, FORCE_QUOTE *, NULL 'NULL')")
    pieces = Pieces(_marks(cursor.description or []), progress)

    def relay() -> Generator[bytearray]:
        with cursor.copy(statement) as copy:
            yield from pieces.of(copied_rows(copy, pg))

    sending = relay()
    try:
        loaded, warnings = load_data(mysql, into, names, LOAD_NAME, sending)
    finally:
        sending.close()
    return loaded if not warnings and loaded == pieces.rows else None


def _marks(description: Sequence[Column]) -> tuple[bytes, ...]:
    codes = {column.type_code for column in description}
    marks: list[bytes] = []
    if _NUMERIC in codes:
        marks += [b"NaN", b"Infinity"]
    if codes & _INSTANTS:
        marks += [b"infinity", b" BC"]
    return tuple(marks)

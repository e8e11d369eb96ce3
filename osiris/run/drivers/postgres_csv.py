"""PostgreSQL's rows as the very bytes the engine's CSV writer would write, from PostgreSQL's own
`COPY ... TO STDOUT (FORMAT CSV)`: the direct route of a postgres.extractor read straight into a
filesystem.csv_writer (osiris.run.direct, ADR 0165).

The engine's route reads PostgreSQL's CSV into DuckDB and DuckDB writes the file. For these types,
DuckDB writes each value with PostgreSQL's own text, which tests/test_run_direct.py pins value by
value against the engine's route: integers, numeric(p,s) with p <= 38, numeric wider or without a
precision (the exact digits), date, timestamp, timestamptz (in the UTC session: `...+00`), time,
timetz, uuid, bytea (`\\x` and hex), json, jsonb, text and every type the engine keeps as
PostgreSQL's text (arrays, enums, money, ...). What differs is rewritten in the COPY's SELECT, or
sends the copy back to the engine's route before anything is kept:

- a boolean is written `true` / `false` (PostgreSQL would write `t` / `f`);
- DuckDB quotes a field that holds `#` and PostgreSQL does not: a text value with `#` (and, in a
  one-column result, the value `\\.`, which PostgreSQL quotes) sends the copy back;
- what the engine refuses when read (NaN in numeric(p,s), a date before the year 1) sends the copy
  back, and the engine's route refuses it with its own OML504 line;
- real, double precision and interval are written differently by DuckDB (`0.0`, `nan`, `1 year`):
  a result with one of them, or with a column name DuckDB would quote or rename, takes the engine's
  route from the start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from osiris.run.drivers.postgres import engine_column
from osiris.run.spool import quote_ident

FALLBACK = "osiris-direct-fallback"  # the text of the error that sends a copy back to the engine's route
_DESCRIBED = {"REAL": "FLOAT", "TIMETZ": "TIME WITH TIME ZONE", "TIMESTAMPTZ": "TIMESTAMP WITH TIME ZONE"}
_AS_IS = {20, 21, 23, 26, 17, 1083, 1266, 2950}  # bigint, smallint, integer, oid, bytea, time, timetz, uuid
_NOT_DIRECT = {700, 701, 1186}  # real, double precision, interval
_INSTANTS = {1082: "date", 1114: "timestamp", 1184: "timestamptz"}
_QUOTED_BY_DUCKDB = set(',"\r\n#')


class Fallback(Exception):
    """The copy met a value only the engine's route writes right; nothing is kept."""


def direct_select(description: list[Any]) -> str | None:
    """The SELECT list that makes PostgreSQL's COPY write what the engine would, over the columns
    of a query (psycopg's `cursor.description`); None when the result must take the engine's route."""
    names = [str(column.name) for column in description]
    if not names or len({name.lower() for name in names}) < len(names) or not all(map(_plain_name, names)):
        return None
    rendered = [_rendered(column, alone=len(names) == 1) for column in description]
    if any(part is None for part in rendered):
        return None
    return ", ".join(f"{part} AS {quote_ident(name)}" for part, name in zip(rendered, names, strict=True))


def engine_columns(description: list[Any]) -> list[tuple[str, str]]:
    """(name, DuckDB type) of each column, as the engine's route would record the step's table."""
    found = []
    for column in description:
        kind = engine_column(column).type
        found.append((str(column.name), _DESCRIBED.get(kind, kind)))
    return found


def copy_csv(cursor: Any, conn: Any, query: str, select: str, header: bool, write: Callable[[memoryview], Any],
             progress: Callable[[int], None], batch_size: int) -> int:
    """Run `COPY (SELECT select FROM (query)) TO STDOUT (FORMAT CSV)` and hand its bytes to `write`;
    the row count. Raises Fallback when a value needs the engine's route."""
    import psycopg

    from osiris.run.drivers.postgres import copied_rows

    statement = (f"COPY (SELECT {select} FROM ({query}) AS osiris_source) TO STDOUT "
                 f"(FORMAT CSV{', HEADER' if header else ''})")
    rows = -1 if header else 0
    try:
        with cursor.copy(statement) as copy:
            for line in copied_rows(copy, conn):
                write(line)
                rows += 1
                if rows % batch_size == 0:
                    progress(rows)
    except psycopg.DataError as error:
        if FALLBACK in str(error):
            conn.rollback()
            raise Fallback() from None
        raise
    return max(rows, 0)


def _plain_name(name: str) -> bool:
    """A column name both write the same way in a header: not quoted, not renamed."""
    return bool(name) and name.strip() == name and "\\" not in name and not _QUOTED_BY_DUCKDB & set(name)


def _rendered(column: Any, alone: bool) -> str | None:
    name, code = quote_ident(str(column.name)), column.type_code
    if code in _NOT_DIRECT:
        return None
    if code == 16:
        return f"CASE WHEN {name} THEN 'true' WHEN NOT {name} THEN 'false' END"
    if code in _AS_IS:
        return name
    if code == 1700:
        precision, scale = column.precision, column.scale
        if not precision or precision > 38:
            return name  # the engine keeps the exact text: digits, NaN, Infinity, never quoted
        if scale is None or not 0 <= scale <= precision:
            return None  # DuckDB has no DECIMAL for it: the engine's route says so
        return _unless(f"{name} = 'NaN'", name)
    if code in _INSTANTS:
        return _unless(f"{name} < '0001-01-01'::{_INSTANTS[code]} AND isfinite({name})", name)
    unquoted = f"strpos({name}::text, '#') > 0" + (f" OR {name}::text = '\\.'" if alone else "")
    return _unless(unquoted, name)


def _unless(refused: str, name: str) -> str:
    """`name` as it is, or an error that names no value when `refused` holds for it (CASE keeps the
    order: the error's cast is reached only for such a value)."""
    fail = f"CAST(left({name}::text, 0) || '{FALLBACK}' AS integer) = 0"
    return f"CASE WHEN (CASE WHEN {refused} THEN {fail} ELSE false END) THEN NULL ELSE {name} END"

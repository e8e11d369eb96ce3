"""PostgreSQL's rows as the very bytes the engine's CSV writer would write, from PostgreSQL's own
`COPY ... TO STDOUT (FORMAT CSV)`: the direct route of a postgres.extractor read straight into a
filesystem.csv_writer (osiris.run.direct, ADR 0165).

The engine's route reads PostgreSQL's CSV into DuckDB and DuckDB writes the file. For these types,
DuckDB writes each value with PostgreSQL's own text, which tests/test_run_direct.py pins value by
value against the engine's route: integers, numeric(p,s) with p <= 38, numeric wider or without a
precision (the exact digits), date, timestamp, timestamptz (in the UTC session: `...+00`), time,
timetz, uuid, bytea (`\\x` and hex), json, jsonb, text and every type the engine keeps as
PostgreSQL's text (arrays, enums, money, ...). What differs is rewritten, or sends the copy back to
the engine's route before anything is kept:

- a boolean is written `true` / `false` by the COPY's SELECT (PostgreSQL would write `t` / `f`);
- DuckDB quotes a field that holds `#` and PostgreSQL does not: a `#` in the rows (only text can
  hold one) sends the copy back, and so does, in a one-column result, the value `\\.`, which
  PostgreSQL quotes and DuckDB does not;
- what the engine refuses when read sends the copy back, and the engine's route refuses it with its
  own OML504 line: `NaN` in the rows of a result with a numeric(p,s) column, ` BC` in those of one
  with a date or timestamp (a text holding those letters sends it back too: slower, never wrong);
- real, double precision and interval are written differently by DuckDB (`0.0`, `nan`, `1 year`):
  a result with one of them, or with a column name DuckDB would quote or rename, takes the engine's
  route from the start.

The rows are looked at in the client, as they arrive, so PostgreSQL's COPY is as cheap as psql's
(the same checks in its SELECT cost it a fifth more time).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from osiris.run.drivers.postgres import engine_column
from osiris.run.spool import quote_ident

if TYPE_CHECKING:
    from psycopg import Column, Cursor
    from psycopg.rows import TupleRow

    from osiris.run.drivers.postgres import PgConnection

_DESCRIBED = {"REAL": "FLOAT", "TIMETZ": "TIME WITH TIME ZONE", "TIMESTAMPTZ": "TIMESTAMP WITH TIME ZONE"}
_NOT_DIRECT = {700, 701, 1186}  # real, double precision, interval
_INSTANTS = {1082, 1114, 1184}  # date, timestamp, timestamptz
_QUOTED_BY_DUCKDB = set(',"\r\n#')
PIECE_BYTES = 1 << 20  # rows are searched and written in pieces of about this size


class Fallback(Exception):
    """The copy met a value only the engine's route writes right; nothing is kept."""


def direct_select(description: Sequence[Column]) -> str | None:
    """The SELECT list that makes PostgreSQL's COPY write what the engine would, over the columns
    of a query (psycopg's `cursor.description`); None when the result must take the engine's route."""
    names = [str(column.name) for column in description]
    if not names or len({name.lower() for name in names}) < len(names) or not all(map(_plain_name, names)):
        return None
    if any(column.type_code in _NOT_DIRECT or not has_decimal(column) for column in description):
        return None
    return ", ".join(f"CASE WHEN {q} THEN 'true' WHEN NOT {q} THEN 'false' END AS {q}" if column.type_code == 16
                     else q for q, column in ((quote_ident(str(c.name)), c) for c in description))


def sent_back(description: Sequence[Column]) -> tuple[tuple[bytes, ...], bytes | None]:
    """What in a row of this result sends the copy back: (bytes it may not hold, a whole row it may not be)."""
    codes = {column.type_code for column in description}
    marks = [b"#"]
    if any(column.type_code == 1700 and column.precision and column.precision <= 38 for column in description):
        marks.append(b"NaN")
    if codes & _INSTANTS:
        marks.append(b" BC")
    return tuple(marks), (b'"\\."\n' if len(description) == 1 else None)


def engine_columns(description: Sequence[Column]) -> list[tuple[str, str]]:
    """(name, DuckDB type) of each column, as the engine's route would record the step's table."""
    found = []
    for column in description:
        kind = engine_column(column).type
        found.append((str(column.name), _DESCRIBED.get(kind, kind)))
    return found


def copy_csv(cursor: Cursor[TupleRow], conn: PgConnection, query: str, description: Sequence[Column], header: bool,
             write: Callable[[bytearray], object], progress: Callable[[int], None]) -> int:
    """Run `COPY (SELECT ... FROM (query)) TO STDOUT (FORMAT CSV)` and hand its bytes to `write`,
    about a MiB at a time; the row count. Raises Fallback, the COPY cancelled, when a piece holds a
    row only the engine writes right: each piece is searched whole, at C speed."""
    from osiris.run.drivers.postgres import copied_rows

    select, (marks, lone) = direct_select(description), sent_back(description)
    statement = (f"COPY (SELECT {select} FROM ({query}) AS osiris_source) TO STDOUT "
                 f"(FORMAT CSV{', HEADER' if header else ''})")
    pieces = Pieces(marks, progress, lone)
    with cursor.copy(statement) as copy:
        lines = copied_rows(copy, conn)
        if header:
            write(bytearray(next(lines)))  # the names, checked plain before
        for piece in pieces.of(lines):
            write(piece)
    return pieces.rows


class Pieces:
    """A COPY's rows gathered into pieces of about PIECE_BYTES, each searched whole for `marks` before
    it is handed on; Fallback when a piece holds one, or when a row is the whole row `lone`. `rows`
    counts the rows handed on; `progress` hears it after each piece."""

    def __init__(self, marks: tuple[bytes, ...], progress: Callable[[int], None], lone: bytes | None = None) -> None:
        self.marks, self.progress, self.lone = marks, progress, lone
        self.rows = 0

    def of(self, lines: Iterable[bytes | bytearray | memoryview]) -> Iterator[bytearray]:
        rows, piece, lone = self.rows, bytearray(), self.lone  # locals: this loop runs once a row
        for line in lines:
            if lone is not None and bytes(line) == lone:
                raise Fallback()
            piece += line
            rows += 1
            if len(piece) >= PIECE_BYTES:
                yield self._checked(piece)
                self.rows, piece = rows, bytearray()
                self.progress(rows)
        self.rows = rows
        yield self._checked(piece)

    def _checked(self, piece: bytearray) -> bytearray:
        if any(mark in piece for mark in self.marks):
            raise Fallback()
        return piece


def _plain_name(name: str) -> bool:
    """A column name both write the same way in a header: not quoted, not renamed."""
    return bool(name) and name.strip() == name and "\\" not in name and not _QUOTED_BY_DUCKDB & set(name)


def has_decimal(column: Column) -> bool:
    """False for a numeric(p,s) DuckDB has no DECIMAL for (a scale below 0 or above p): the engine's
    route says so; True for every other column."""
    precision, scale = column.precision, column.scale
    return column.type_code != 1700 or not precision or precision > 38 or (scale is not None and 0 <= scale <= precision)

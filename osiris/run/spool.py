"""Stream rows from a database into a DuckDB table in batches, through CSV spool files on disk.

Without pyarrow, a CSV file read by DuckDB's `read_csv` with declared types is the fastest way in
(ADR 0060). Rows wait on disk, never in memory; a full spool file is loaded by DuckDB in a
background thread (DuckDB releases the GIL) while the next one fills, so the source never waits.
At most two spool files exist at a time, so disk use is bounded too.

Both ways in write NULL as an unquoted empty field and text quoted, so that `''` and NULL stay
apart and every text arrives as it was (docs/types.md). A value that the column's DuckDB type
cannot hold stops the read with OML504 naming the column, never its value.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.run.driver import RuntimeProblem

if TYPE_CHECKING:
    from concurrent.futures import Future

    import duckdb

SPOOL_BYTES = 32 << 20  # load into DuckDB when a spool file holds this much
CSV_BUFFER_BYTES = 8 << 20  # read_csv's buffer per thread (default 32 MiB): fits the engine's memory_limit
_CONVERTING = re.compile(r'converting column "(.+?)"\. ')
REFUSED = "'osiris-refused:'"  # SQL: the start of the error() message a `parse` raises for a value it refuses
_REFUSED = re.compile(r"osiris-refused:(.+)$", re.MULTILINE)


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Column:
    """A column a reader loads: its name, its DuckDB type, and how its text becomes that type."""

    name: str
    type: str  # the DuckDB type of the step's table
    parse: str | None = None  # SQL over the column's text {0} (its name as a string: {1}) when read_csv
    # cannot read it as `type`; `error(REFUSED || {1})` in it refuses a value (OML504 for the column)
    note: str | None = None  # the source type a DuckDB type loses ("numeric"), kept as the column's comment


class _Null(float):
    """NULL in a row for `csv.writer` (QUOTE_NONNUMERIC quotes every text): an unquoted empty field."""

    def __str__(self) -> str:
        return ""

    __repr__ = __str__


NULL = _Null()


class CsvSpool:
    """Rows in (as CSV lines or Python tuples), a DuckDB table out. add_lines takes PostgreSQL's CSV
    (NULL an unquoted empty field, text quoted when needed); add_rows takes tuples of Python values
    (None is NULL; text, dates and times are written quoted, numbers bare). Not both.
    `progress` hears the row count every `batch_size` rows."""

    def __init__(self, con: duckdb.DuckDBPyConnection, table: str, columns: Sequence[Column | tuple[str, str]], path: Path,
                 batch_size: int, progress: Callable[[int], None]) -> None:
        from osiris.run.problems import repeated_column_problem, repeated_name

        self.con, self.table = con, table
        self.columns = [c if isinstance(c, Column) else Column(*c) for c in columns]
        twin = repeated_name(c.name for c in self.columns)
        if twin is not None:
            raise repeated_column_problem(twin)
        self.batch_size, self.progress = max(1, batch_size), progress
        self.rows = 0
        self._paths = [path.with_suffix(".0.csv"), path.with_suffix(".1.csv")]
        from concurrent.futures import ThreadPoolExecutor  # only a database read needs it

        self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="osiris-spool")
        self._loading: Future[None] | None = None
        self._open(0)
        body = ", ".join(f"{quote_ident(c.name)} {c.type}" for c in self.columns)
        con.execute(f"CREATE OR REPLACE TABLE {quote_ident(table)} ({body})")
        for column in self.columns:
            if column.note:
                con.execute(f"COMMENT ON COLUMN {quote_ident(table)}.{quote_ident(column.name)} IS "
                            f"'{column.note}'")

    def _open(self, index: int) -> None:
        self._index = index
        self._file = open(self._paths[index], "wb")
        self._text = io.TextIOWrapper(self._file, encoding="utf-8", newline="", write_through=True)
        self._writer = csv.writer(self._text, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)

    def add_lines(self, lines: Iterable[bytes | bytearray | memoryview]) -> None:
        """CSV rows, one per item, as PostgreSQL's COPY ... (FORMAT CSV) sends them (the hot loop)."""
        write, count, batch_size = self._file.write, 0, self.batch_size
        for line in lines:
            write(line)
            count += 1
            if count == batch_size:
                self._advance(count)
                write, count = self._file.write, 0
        self.rows += count

    def add_rows(self, rows: Sequence[Sequence[object]]) -> None:
        if len(self.columns) == 1:  # csv.writer quotes a row of one empty field, which would read as ''
            self._text.write("".join(f"{_field(row[0])}\n" for row in rows))
        else:
            self._writer.writerows([NULL if value is None else value for value in row] for row in rows)
        self._advance(len(rows))

    def _advance(self, added: int) -> None:
        self.rows += added
        self.progress(self.rows)
        if self._file.tell() >= SPOOL_BYTES:
            self._hand_over()

    def _hand_over(self) -> None:
        """Close the full spool file, load it in the background, and go on in the other one."""
        self._text.flush()
        self._file.close()
        self._wait()
        full = self._paths[self._index]
        self._loading = self._loader.submit(self._load, full)
        self._open(1 - self._index)

    def _load(self, path: Path) -> None:
        from osiris.duckdb_core import duckdb

        types = ", ".join(f"'{c.name.replace(chr(39), chr(39) * 2)}': '{'VARCHAR' if c.parse else c.type}'"
                          for c in self.columns)
        values = ", ".join(c.parse.format(quote_ident(c.name), _literal(c.name)) if c.parse else quote_ident(c.name)
                           for c in self.columns)
        cursor = self.con.cursor()
        try:
            cursor.execute(
                f"INSERT INTO {quote_ident(self.table)} SELECT {values} FROM read_csv(?, header = false, "
                f"columns = {{{types}}}, delim = ',', quote = '\"', escape = '\"', "
                f"nullstr = '', allow_quoted_nulls = false, auto_detect = false, strict_mode = false, "
                f"buffer_size = {CSV_BUFFER_BYTES})",
                [str(path)])
        except (duckdb.ConversionException, duckdb.InvalidInputException) as error:  # error() is the latter
            raise self._unreadable(str(error)) from None
        finally:
            cursor.close()
            path.unlink(missing_ok=True)

    def _unreadable(self, text: str) -> RuntimeProblem:
        """OML504 for the column whose value the engine could not take; the value is never quoted."""
        from osiris.run.problems import type_problem, unreadable_value_problem

        found = _CONVERTING.search(text) or _REFUSED.search(text)
        column = next((c for c in self.columns if found and c.name == found.group(1)), None)
        if column is None:
            return type_problem("a value the source sent does not convert to its column's type")
        return unreadable_value_problem(column.name, column.type)

    def _wait(self) -> None:
        if self._loading is not None:
            loading, self._loading = self._loading, None
            loading.result()

    def close(self) -> int:
        """Load what is left and remove the spool files; the row count."""
        try:
            if self._file.tell():
                self._hand_over()
            self._wait()
        finally:
            self._file.close()
            self._loader.shutdown(wait=True)
            for path in self._paths:
                path.unlink(missing_ok=True)
        self.progress(self.rows)
        return self.rows


def _field(value: object) -> str:
    """One value as add_rows writes it: NULL empty, a number bare, anything else quoted."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) or type(value).__name__ == "Decimal":
        return str(value)
    return '"' + str(value).replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def column_notes(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    """The source types the reader of `table` noted ({column: "numeric"}); empty after a transform."""
    rows = con.execute("SELECT column_name, comment FROM duckdb_columns() WHERE database_name = current_database() "
                       "AND schema_name = current_schema() AND table_name = ? AND comment IS NOT NULL",
                       [table]).fetchall()  # the engine's own schema: DuckDB then lists no other (~10x faster)
    return {str(name): str(note) for name, note in rows if note}


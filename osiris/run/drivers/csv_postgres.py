"""A filesystem.csv_extractor read straight into a postgres.writer: the file's own bytes sent to
PostgreSQL's `COPY ... FROM STDIN (FORMAT csv, HEADER)` (the direct route of osiris.run.direct,
ADR 0203).

The engine's route reads the file into DuckDB (read_csv: the sniffed types, every number exact,
osiris.run.csv_input) and DuckDB writes each value again as the text of PostgreSQL's COPY
(osiris.run.drivers.postgres). Here PostgreSQL reads the file's text itself, so the route is taken
only where the text of every value is the very text the engine would send, and its CSV framing the
same:

- the reader's settings are all in `_READER_SETTINGS` (comma-separated UTF-8 with a header; no
  dtype, na_values, comment, skip_rows, limit or compression), and DuckDB's own sniff of the file
  (with the engine's read options) finds `"` (or no) quoting and escaping, LF line ends, no rows to
  skip, ISO dates, a header of plain names written exactly as DuckDB names the columns, and columns
  of the types in `_ENGINE_TYPES`;
- the target exists (creating it takes the engine's column types), `append` or `replace`, holds
  every column of the file, each of a type in `_TARGET_TYPES`, in a UTF-8 session.

While PostgreSQL loads the bytes, DuckDB reads the same file as the engine does, every column as
text, and checks every value (`check_query`): a value of a typed column must be the very text
DuckDB writes for it (`007`, `1.50` or `2024-01-01T10:00` are not: the engine would send `7`,
`1.5`, `2024-01-01 10:00:00`), and a text value may hold no `"` (PostgreSQL reads a `"` inside an
unquoted field as a quote, DuckDB as a character). Only when every value passes and DuckDB counts
the rows PostgreSQL loaded is the copy committed; otherwise, as on any PostgreSQL error, the whole
copy (`replace`'s DELETE included) is rolled back and the engine's route runs, writing the rows or
saying what is wrong with them in its own words. A NULL is an unquoted empty field and `""` the
empty text on both routes (the engine's `allow_quoted_nulls = false`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from osiris.run.spool import quote_ident

_READER_SETTINGS: dict[str, Callable[[Any], bool]] = {  # the only settings a direct read may have
    "path": lambda value: True, "connection": lambda value: True, "base_dir": lambda value: True,
    "delimiter": lambda value: value == ",", "header": lambda value: value is True,
    "encoding": lambda value: str(value).lower() in ("utf-8", "utf8"), "skip_rows": lambda value: not value,
    "compression": lambda value: value in (None, "infer", "none"), "chunk_size": lambda value: True,
    "parse_dates": lambda value: True, "skip_blank_lines": lambda value: True}
_COMPRESSED = (".gz", ".gzip", ".zst", ".zstd", ".bz2", ".xz", ".zip")
_ENGINE_TYPES = {"VARCHAR", "BIGINT", "DOUBLE", "DATE", "TIMESTAMP", "TIME"}  # the types DuckDB's sniff may give
_TARGET_TYPES = re.compile(r"text|character varying(\(\d+\))?|smallint|integer|bigint|numeric(\(\d+,\d+\))?|date"
                           r"|timestamp(\(\d\))? without time zone|time(\(\d\))? without time zone")
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIALECT = "SELECT Quote, Escape, NewLineDelimiter, Comment, SkipRows, DateFormat, TimestampFormat FROM sniff_csv"
PIECE_BYTES = 1 << 20  # the file is sent in pieces of this size


def plain_reader(config: Mapping[str, Any]) -> bool:
    """A csv_extractor step whose every setting the direct route reads as the engine does."""
    return all(key in _READER_SETTINGS and _READER_SETTINGS[key](value) for key, value in config.items()) \
        and not str(config.get("path", "")).lower().endswith(_COMPRESSED)


def engine_columns(con: Any, source: str, options: str) -> list[tuple[str, str]] | None:
    """The (name, DuckDB type) columns the engine's read of the file `source` (a literal) would make,
    from DuckDB's own sniff with the engine's `options`; None when the file's CSV is not one both
    read alike (quoting, line ends, skipped rows, date formats, names) or a type is not one the
    route carries."""
    quote, escape, newline, comment, skip, date_format, timestamp_format = \
        con.execute(f"{_DIALECT}({source}{options})").fetchone()
    if quote not in ('"', "(empty)") or escape not in ('"', "(empty)") or newline != "\\n" or \
            comment != "(empty)" or skip or date_format not in (None, "%Y-%m-%d") or timestamp_format is not None:
        return None
    columns = [(str(row[0]), str(row[1])) for row in
               con.execute(f"DESCRIBE SELECT * FROM read_csv({source}{options})").fetchall()]
    if not all(_PLAIN_NAME.fullmatch(name) and kind in _ENGINE_TYPES for name, kind in columns):
        return None
    return columns


def header_is(path: Path, names: list[str]) -> bool:
    """True when the file's first line is `names` joined by commas, as written (after a UTF-8 BOM,
    which DuckDB skips and PostgreSQL's HEADER skips with the line): PostgreSQL skips that line."""
    with open(path, "rb") as handle:
        first = handle.readline(1 << 16)
    return first.removeprefix(b"\xef\xbb\xbf") == ",".join(names).encode() + b"\n"


def lands_alike(columns: list[tuple[str, str]], target_types: Mapping[str, str]) -> bool:
    """True when every file column is a target column of a type the route carries."""
    return all(name in target_types and _TARGET_TYPES.fullmatch(target_types[name]) for name, _ in columns)


def check_query(source: str, options: str, columns: list[tuple[str, str]]) -> str:
    """One pass over the file as the engine reads it, every column as text: its row count, and
    whether every value is one PostgreSQL reads from the file as it would from the engine's text."""
    checks = []
    for name, kind in columns:
        value = quote_ident(name)
        checks.append(f"NOT contains({value}, '\"')" if kind == "VARCHAR"
                      else f"CAST(TRY_CAST({value} AS {kind}) AS VARCHAR) = {value}")
    every = " AND ".join(f"({value} IS NULL OR {check})" for value, check in
                         zip((quote_ident(name) for name, _ in columns), checks, strict=True))
    return f"SELECT count(*), bool_and(coalesce({every}, false)) FROM read_csv({source}{options}, all_varchar = true)"


class Check(threading.Thread):
    """`check_query` run in a thread of its own (DuckDB releases the GIL) while PostgreSQL loads the
    file; `rows()` waits for it: the row count when every value passed, else None."""

    def __init__(self, con: Any, query: str) -> None:
        super().__init__(name="osiris-direct-check", daemon=True)
        self.con, self.query = con, query
        self.found: tuple[int, bool | None] | None = None

    def run(self) -> None:
        try:
            self.found = self.con.execute(self.query).fetchone()
        except Exception:  # noqa: BLE001  (any failure sends the copy to the engine's route, which reports it)
            self.found = None

    def rows(self) -> int | None:
        self.join()
        if self.found is None or self.found[1] is False:
            return None
        return int(self.found[0])


@contextmanager
def checking(con: Any, query: str) -> Iterator[Check]:
    """`query` under way in a Check while the block runs; one still running when the block ends
    (an error, Ctrl-C) is interrupted and waited for, so that the connection can close."""
    check = Check(con, query)
    check.start()
    try:
        yield check
    finally:
        if check.is_alive():
            con.interrupt()
            check.join()


@contextmanager
def duckdb_in(scratch: Path) -> Iterator[Any]:
    """A DuckDB connection locked into the run's scratch directory (docs/security.md), closed after
    the block."""
    from osiris.duckdb_core import duckdb

    from osiris.trust.sandbox import lock_down

    con = duckdb.connect(":memory:")
    try:
        con.execute("SET memory_limit = '256MB'")
        lock_down(con, scratch)
        yield con
    finally:
        con.close()


def send_file(cursor: Any, into: str, names: list[str], path: Path, progress: Callable[[int], None]) -> int:
    """`COPY into (names) FROM STDIN (FORMAT csv, HEADER)` of the file's bytes, a piece at a time;
    the rows PostgreSQL loaded."""
    columns = ", ".join(quote_ident(name) for name in names)
    lines = 0
    with open(path, "rb") as handle, cursor.copy(f"COPY {into} ({columns}) FROM STDIN (FORMAT csv, HEADER)") as copy:
        while piece := handle.read(PIECE_BYTES):
            copy.write(piece)
            lines += piece.count(b"\n")
            progress(max(lines - 1, 0))  # lines, not rows (a quoted value may hold one): for the display only
    return int(cursor.rowcount)

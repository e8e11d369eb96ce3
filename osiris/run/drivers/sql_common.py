"""What the SQL database drivers (postgres, mysql) share: the writer's input and its columns, key
lists, and streaming the input out of DuckDB in bounded pieces."""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.oml.values import Value
from osiris.run.driver import StepContext
from osiris.run.problems import inputs_problem
from osiris.run.spool import quote_ident

if TYPE_CHECKING:
    import duckdb

READ_CHUNK_BYTES = 1 << 20
READER_WAIT_SECONDS = 60  # a failed export's stand-in writer waits this long for the reader to open


def input_columns(ctx: StepContext) -> tuple[str, list[tuple[str, str]]]:
    """The writer's one input table and its (name, DuckDB type) columns."""
    if len(ctx.input_tables) != 1:
        raise inputs_problem("writer", len(ctx.input_tables))
    (source,) = ctx.input_tables.values()
    rows = ctx.con.execute(f"DESCRIBE {quote_ident(source)}").fetchall()
    return source, [(str(r[0]), str(r[1])) for r in rows]


def key_list(value: Value) -> list[str]:
    """`primary_key: id`, `[id]` or `"a, b"` -> ["id"] / ["a", "b"]."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, (list, tuple)):
        return [str(part) for part in value]
    return []


def tables_in(query: str, dialect: str | None) -> list[str] | None:
    """The tables a query names (for hints), or None when sqlglot cannot parse it."""
    import sqlglot
    from sqlglot import exp

    from osiris.quiet_sqlglot import quiet_sqlglot

    quiet_sqlglot()
    try:
        parsed = sqlglot.parse_one(query, read=dialect)
    except Exception:  # any parse failure: the hint falls back to every table's columns
        return None
    names = sorted({table.name for table in parsed.find_all(exp.Table) if table.name})
    return names or None


def spool_path(ctx: StepContext) -> Path:
    """In the run's scratch directory; a driver called without the engine (a test) spools in the
    system's temporary directory, under a name of its process, so that two never share a file."""
    if ctx.scratch_dir is not None:
        return ctx.scratch_dir / f"{ctx.output_table}.spool.csv"
    return Path(tempfile.gettempdir()) / f"{ctx.output_table}.{os.getpid()}.spool.csv"


def select_list(columns: list[tuple[str, str]], render: Callable[[str, str], str | None]) -> str:
    """`a, to_json("b") AS "b"`: each column as `render(quoted name, DuckDB type)` writes it, or as it is."""
    parts = []
    for name, kind in columns:
        rendered = render(quote_ident(name), kind)
        parts.append(f"{rendered} AS {quote_ident(name)}" if rendered else quote_ident(name))
    return ", ".join(parts)


def csv_batches(ctx: StepContext, source: str, select: str, batch_size: int) -> Generator[tuple[bytes, int]]:
    """The input as headerless CSV (NULL as an empty field, '' quoted), `batch_size` rows at a time:
    (the batch's bytes, its row count), cut at record ends (`cut_records`). DuckDB writes
    `SELECT {select}` of the table into a named pipe from a thread of its own, so the rows it writes
    are being sent while it writes the next (ADR 0168); a failed export raises its DuckDB error
    after the rows that came through it."""
    path = spool_path(ctx)
    path.unlink(missing_ok=True)
    os.mkfifo(path, 0o600)
    export = _Export(ctx.con, f"COPY (SELECT {select} FROM {quote_ident(source)}) TO '{path}' "
                                       "(FORMAT csv, HEADER false)", path)
    try:
        with open(path, "rb") as handle:  # opening waits for DuckDB to open its end (or a failed export's stand-in)
            export.reader_opened.set()
            yield from cut_records(iter(lambda: handle.read(READ_CHUNK_BYTES), b""), batch_size)
        export.join()
    finally:
        export.stop()
        path.unlink(missing_ok=True)


class _Export(threading.Thread):
    """One DuckDB COPY into the named pipe `path`, in a thread (DuckDB releases the GIL while it
    works), on the step's own connection (which sees its TEMP views), left alone by the reading
    thread meanwhile; `join` raises its error. Whichever side stops first opens the other end, so
    that neither waits for ever in open()."""

    def __init__(self, con: duckdb.DuckDBPyConnection, statement: str, path: Path) -> None:
        super().__init__(name="osiris-export", daemon=True)
        self.con, self.statement, self.path = con, statement, path
        self.error: BaseException | None = None
        self.reader_opened = threading.Event()
        _LIVE.add(self)
        self.start()

    def run(self) -> None:
        try:
            self.con.execute(self.statement)
        except BaseException as error:  # handed to the thread that reads the pipe
            self.error = error
            self._stand_in_for_the_writer()
        finally:
            _LIVE.discard(self)

    def _stand_in_for_the_writer(self) -> None:
        """Hold a write end of the pipe until the reader has opened its own, then close it: the reader
        reads the end at once, whether it reached open() before the export failed or after. (Opening
        a FIFO read-write never waits on Linux; a non-blocking write-only open fails while no reader
        is there yet, and a reader arriving later would then wait for ever.)"""
        with contextlib.suppress(OSError):
            descriptor = os.open(self.path, os.O_RDWR)
            try:
                self.reader_opened.wait(READER_WAIT_SECONDS)
            finally:
                os.close(descriptor)

    def join(self, timeout: float | None = None) -> None:
        super().join(timeout)
        if self.error is not None:
            raise self.error

    def stop(self) -> None:
        """Stop a COPY the reader left (a failed write, Ctrl-C): with the reading end closed its next
        write fails at once, and the interrupt ends whatever it was computing."""
        self.reader_opened.set()  # a stand-in writer need not wait for a reader that is gone
        while self.is_alive():
            self.con.interrupt()
            _touch(self.path, os.O_RDONLY)  # a DuckDB still opening the pipe gets its end, then EPIPE
            super().join(0.1)


_LIVE: set[_Export] = set()  # exports whose COPY still runs


def stop_exports() -> None:
    """Stop every export still writing into its pipe. A Ctrl-C that lands while a writer stops its
    export (in `csv_batches`' finally) leaves the COPY running on the step's connection; the engine
    calls this before it closes DuckDB, which refuses to close under a running query and would then
    hang the process at exit."""
    for export in list(_LIVE):
        export.stop()


def _touch(path: Path, mode: int) -> None:
    """Open and close one end of a named pipe without waiting (nothing when no one is at the other)."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, mode | os.O_NONBLOCK))


def cut_records(chunks: Iterable[bytes], batch_size: int) -> Iterator[tuple[bytes, int]]:
    """Newline-terminated CSV in arbitrary chunks -> (bytes of `batch_size` records, count) pieces.

    A record ends at a newline outside quotes: a line that closes with an odd number of `"`
    characters opens or closes a quoted field that holds newlines. Chunks without any `"` (the
    common case) are cut by slicing their lines, not by a Python loop over each line.
    """
    batch: list[bytes] = []
    rows, in_quotes, tail = 0, False, b""
    for chunk in chunks:
        data = tail + chunk
        lines = data.split(b"\n")
        tail = lines.pop()  # the unfinished last line, b"" when the chunk ends a line
        if not in_quotes and b'"' not in data:
            start = 0
            while start < len(lines):
                take = min(batch_size - rows, len(lines) - start)
                batch.append(b"\n".join(lines[start:start + take]) + b"\n")
                rows, start = rows + take, start + take
                if rows == batch_size:
                    yield b"".join(batch), rows
                    batch, rows = [], 0
            continue
        for line in lines:
            batch.append(line + b"\n")
            if line.count(b'"') % 2:
                in_quotes = not in_quotes
            if not in_quotes:
                rows += 1
                if rows == batch_size:
                    yield b"".join(batch), rows
                    batch, rows = [], 0
    if tail:
        batch.append(tail)
        rows += 1
    if batch:
        yield b"".join(batch), rows


def input_batches(ctx: StepContext, source: str, select: str, batch_size: int) -> Iterator[list[tuple[object, ...]]]:
    """The rows of `SELECT {select}` over the input, as tuples, `batch_size` at a time (DuckDB streams them)."""
    cursor = ctx.con.cursor()
    try:
        result = cursor.execute(f"SELECT {select} FROM {quote_ident(source)}")
        while batch := result.fetchmany(batch_size):
            yield batch
    finally:
        cursor.close()

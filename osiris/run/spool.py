"""Stream rows from a database into a DuckDB table in batches, through CSV spool files on disk.

Without pyarrow, a CSV file read by DuckDB's `read_csv` with declared types is the fastest way in
(ADR 0060). Rows wait on disk, never in memory; a full spool file is loaded by DuckDB in a
background thread (DuckDB releases the GIL) while the next one fills, so the source never waits.
At most two spool files exist at a time, so disk use is bounded too.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

NULL_TOKEN = "\\N"  # how add_rows writes None (a text value that is exactly \N would read as NULL)
SPOOL_BYTES = 32 << 20  # load into DuckDB when a spool file holds this much
CSV_BUFFER_BYTES = 8 << 20  # read_csv's buffer per thread (default 32 MiB): fits the engine's memory_limit


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class CsvSpool:
    """Rows in (as CSV lines or Python tuples), a DuckDB table out. Use either add_lines (NULL as an
    unquoted empty field, PostgreSQL's CSV) or add_rows (None written as NULL_TOKEN), not both.
    `progress` hears the row count every `batch_size` rows."""

    def __init__(self, con: Any, table: str, columns: Sequence[tuple[str, str]], path: Path,
                 batch_size: int, progress: Callable[[int], None]) -> None:
        self.con, self.table, self.columns = con, table, list(columns)
        self.batch_size, self.progress = max(1, batch_size), progress
        self.rows = 0
        self._paths = [path.with_suffix(".0.csv"), path.with_suffix(".1.csv")]
        self._null = ""
        self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="osiris-spool")
        self._loading: Future[None] | None = None
        self._open(0)
        body = ", ".join(f"{quote_ident(name)} {kind}" for name, kind in self.columns)
        con.execute(f"CREATE OR REPLACE TABLE {quote_ident(table)} ({body})")

    def _open(self, index: int) -> None:
        self._index = index
        self._file = open(self._paths[index], "wb")
        self._text = io.TextIOWrapper(self._file, encoding="utf-8", newline="", write_through=True)
        self._writer = csv.writer(self._text, lineterminator="\n")

    def add_lines(self, lines: Iterable[bytes | memoryview]) -> None:
        """CSV rows, one per item, as PostgreSQL's COPY ... (FORMAT CSV) sends them (the hot loop)."""
        write, count, batch_size = self._file.write, 0, self.batch_size
        for line in lines:
            write(line)
            count += 1
            if count == batch_size:
                self._advance(count)
                write, count = self._file.write, 0
        self.rows += count

    def add_rows(self, rows: Iterable[Sequence[Any]]) -> None:
        self._null = NULL_TOKEN
        batch = [[NULL_TOKEN if value is None else value for value in row] for row in rows]
        self._writer.writerows(batch)
        self._advance(len(batch))

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
        types = ", ".join(f"'{name.replace(chr(39), chr(39) * 2)}': '{kind}'" for name, kind in self.columns)
        cursor = self.con.cursor()
        try:
            cursor.execute(
                f"INSERT INTO {quote_ident(self.table)} SELECT * FROM read_csv(?, header = false, "
                f"columns = {{{types}}}, delim = ',', quote = '\"', escape = '\"', "
                f"nullstr = ?, allow_quoted_nulls = false, auto_detect = false, strict_mode = false, "
                f"buffer_size = {CSV_BUFFER_BYTES})",
                [str(path), self._null])
        finally:
            cursor.close()
            path.unlink(missing_ok=True)

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

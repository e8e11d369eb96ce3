"""Stream rows from a database into a DuckDB table in batches, through a CSV spool file on disk.

Without pyarrow, a CSV file read by DuckDB's `read_csv` with declared types is the fastest way in
(ADR 0060). At most `batch_size` rows wait in the spool, so memory does not grow with the table.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


NULL_TOKEN = "\\N"  # how add_rows writes None (a text value that is exactly \\N would read as NULL)


class CsvSpool:
    """Rows in (as CSV lines or Python tuples), a DuckDB table out. Use either add_line (NULL as an
    unquoted empty field, PostgreSQL's CSV) or add_rows (None written as NULL_TOKEN), not both."""

    def __init__(self, con: Any, table: str, columns: Sequence[tuple[str, str]], path: Path,
                 batch_size: int, progress: Callable[[int], None]) -> None:
        self.con, self.table, self.columns, self.path = con, table, list(columns), path
        self.batch_size, self.progress = max(1, batch_size), progress
        self.rows = 0
        self._pending = 0
        self._file = open(path, "wb")
        self._text = io.TextIOWrapper(self._file, encoding="utf-8", newline="", write_through=True)
        self._writer = csv.writer(self._text, lineterminator="\n")
        self._null = ""
        body = ", ".join(f"{quote_ident(name)} {kind}" for name, kind in self.columns)
        con.execute(f"CREATE OR REPLACE TABLE {quote_ident(table)} ({body})")

    def add_line(self, line: bytes) -> None:
        """One CSV row as PostgreSQL's COPY ... (FORMAT CSV) sends it."""
        self._file.write(line)
        self._count(1)

    def add_rows(self, rows: Iterable[Sequence[Any]]) -> None:
        self._null = NULL_TOKEN
        batch = [[NULL_TOKEN if value is None else value for value in row] for row in rows]
        self._writer.writerows(batch)
        self._count(len(batch))

    def _count(self, added: int) -> None:
        self.rows += added
        self._pending += added
        if self._pending >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        self._file.flush()
        types = ", ".join(f"'{name.replace(chr(39), chr(39) * 2)}': '{kind}'" for name, kind in self.columns)
        self.con.execute(
            f"INSERT INTO {quote_ident(self.table)} SELECT * FROM read_csv(?, header = false, "
            f"columns = {{{types}}}, delim = ',', quote = '\"', escape = '\"', "
            "nullstr = ?, allow_quoted_nulls = false, auto_detect = false, strict_mode = false)",
            [str(self.path), self._null])
        self._file.seek(0)
        self._file.truncate()
        self._pending = 0
        self.progress(self.rows)

    def close(self) -> int:
        self.flush()
        self._text.close()
        self.path.unlink(missing_ok=True)
        return self.rows

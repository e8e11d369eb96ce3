"""JSON records from an API into a DuckDB table, without holding them in Python.

Each page's records are appended to a newline-delimited JSON spool file as they arrive; at the end
DuckDB's `read_json` loads the whole file into the step's table in one pass, inferring the columns
from every record (nested objects become STRUCT columns, arrays LIST columns). Memory holds one
page at a time; the rows live on disk and then in DuckDB (ADR 0065).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from osiris.run.driver import RuntimeProblem, StepContext, StepOutcome
from osiris.run.counts import first_value
from osiris.suggest import listing

if TYPE_CHECKING:
    import duckdb

_MISSING = object()
MAX_RECORD_BYTES = 8 << 20  # one API record at most (read_json's maximum_object_size)


def dig(data: Any, path: str) -> Any:
    """The value at a dotted path (`data.items`, `results.0.rows`), or `_MISSING`."""
    value = data
    for part in [p for p in path.split(".") if p]:
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def found(value: Any) -> bool:
    return value is not _MISSING


def records_at(body: Any, path: str, where: str) -> list[dict[str, Any]]:
    """The records at `path` in a response body: a list of objects (an object alone is one record).

    Raises OML509 when nothing list- or object-shaped is there; the hint names the body's top-level
    keys (never its values).
    """
    value = dig(body, path)
    if isinstance(value, Mapping):
        return [dict(value)]
    if isinstance(value, list):
        return [dict(item) if isinstance(item, Mapping) else {"value": item} for item in value]
    shown = f"'{path}'" if path else "'' (the whole body)"
    raise RuntimeProblem(
        "OML509",
        f"no records at data_path {shown} in the response of {where}",
        f"{describe_keys(body)} Set data_path to the dotted path of the list of records.",
    )


def describe_keys(body: Any) -> str:
    """The shape of a response for a hint: its top-level keys, never its values."""
    if isinstance(body, Mapping):
        return f"The response's top-level keys are: {listing(sorted(map(str, body))) or '(none)'}."
    if isinstance(body, list):
        return f"The response is a list of {len(body)} items."
    return f"The response is a single {type(body).__name__} value."


def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects as columns: `{"a": {"b": 1}}` -> `{"a_b": 1}`; lists stay as they are."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, f"{name}_"))
        else:
            flat[name] = value
    return flat


class RecordSpool:
    """Records appended page by page to an NDJSON file, then loaded into DuckDB at once."""

    def __init__(self, work_dir: Path | None = None, *, flat: bool = False) -> None:
        if work_dir is not None:
            work_dir.mkdir(parents=True, exist_ok=True)
        self._dir = tempfile.TemporaryDirectory(prefix="osiris-records-", dir=work_dir)
        self.path = Path(self._dir.name) / "records.ndjson"
        self._file = self.path.open("w", encoding="utf-8")
        self.flat = flat
        self.count = 0

    def __enter__(self) -> RecordSpool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()
        self._dir.cleanup()

    def add(self, records: Iterable[Mapping[str, Any]]) -> None:
        for record in records:
            row = flatten(record) if self.flat else record
            self._file.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            self.count += 1

    def load(self, con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
        """Create `table` from the spooled records; its (name, type) columns."""
        self._file.close()
        target = '"' + table.replace('"', '""') + '"'
        if self.count == 0:
            con.execute(f"CREATE OR REPLACE TABLE {target} (record JSON)")
        else:
            threads = first_value(con, "SELECT current_setting('threads')")
            con.execute("SET threads = 1")  # read_json holds a 32 MiB buffer per thread: one fits the engine's cap
            try:
                con.execute(
                    f"CREATE OR REPLACE TABLE {target} AS SELECT * FROM read_json(?, format = 'newline_delimited',"
                    f" sample_size = -1, maximum_object_size = {MAX_RECORD_BYTES})",
                    [str(self.path)],
                )
            finally:
                con.execute(f"SET threads = {int(threads)}")
        return [(name, kind) for name, kind, *_ in con.execute(f"DESCRIBE {target}").fetchall()]


def read_pages(pages: Iterator[list[dict[str, Any]]], ctx: StepContext, spool: RecordSpool) -> None:
    """Spool records page by page; with a sample of N, stop after exactly N records."""
    for records in pages:
        if ctx.sample is not None:
            records = records[: ctx.sample - spool.count]
        spool.add(records)
        ctx.progress(spool.count)
        if ctx.sample is not None and spool.count >= ctx.sample:
            return


def spooled_outcome(ctx: StepContext, spool: RecordSpool, notes: list[str]) -> StepOutcome:
    """Load the spool into the step's table; the outcome with the client's notes as warnings."""
    columns = spool.load(ctx.con, ctx.output_table)
    warnings = list(notes)
    if spool.count == 0:
        warnings.append("the API returned no records; the output table is empty")
    return StepOutcome(rows_in=spool.count, rows_out=spool.count, columns=columns, warnings=warnings)

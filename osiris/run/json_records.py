"""JSON records from an API into a DuckDB table, without holding them in Python.

Each page's records are appended to a newline-delimited JSON spool file as they arrive; at the end
DuckDB's `read_json` loads the whole file into the step's table in one pass, inferring the columns
from every record (nested objects become STRUCT columns, arrays LIST columns). Memory holds one
page at a time; the rows live on disk and then in DuckDB (ADR 0065).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeAlias, TypeVar

from osiris.oml.values import Value
from osiris.problems import invalid_response_problem, no_records_problem, unloadable_record_problem
from osiris.run.counts import first_value
from osiris.run.driver import StepContext, StepOutcome
from osiris.run.http import safe_url
from osiris.run.json_numbers import settle_columns, spool_form
from osiris.run.json_stream import JsonText, Missing, missing
from osiris.run.json_text import JsonTextError, record_line, without_surrogates
from osiris.suggest import listing

if TYPE_CHECKING:
    import duckdb
    import httpx

    from osiris.run.http import HttpClient

Record: TypeAlias = "dict[str, Value]"  # one JSON object an API sent: a row of the step's table
T = TypeVar("T")
MAX_RECORD_BYTES = 8 << 20  # one API record at most (read_json's maximum_object_size)
DUCKDB_MAX_DEPTH = 128  # read_json reads records nested at most this deep
STREAM_BATCH = 1000  # records handed on at a time from a large body


def dig(data: Value, path: str) -> Value | Missing:
    """The value at a dotted path (`data.items`, `results.0.rows`), or `missing`."""
    value = data
    for part in [p for p in path.split(".") if p]:
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return missing
    return value


def records_at(body: Value, path: str, where: str) -> list[Record]:
    """The records at `path` in a response body: a list of objects (an object alone is one record).

    Raises OML509 when nothing list- or object-shaped is there; the hint names the body's top-level
    keys (never its values).
    """
    value = dig(body, path)
    if isinstance(value, Mapping):
        return [dict(value)]
    if isinstance(value, list):
        return [dict(item) if isinstance(item, Mapping) else {"value": item} for item in value]
    raise no_records_problem(path, where, describe_keys(body))


class Page:
    """One response's records for a reader: `batches()` gives them a list at a time, `count` how
    many there were, `fingerprint` what PageGuard compares (osiris.run.paging), and `value_at` a
    value outside the records (a cursor). A body small enough is parsed whole; a larger one, on
    disk, is read a record at a time (osiris.run.json_stream), so memory holds one batch."""

    def __init__(self, client: HttpClient, response: httpx.Response, data_path: str) -> None:
        self.where = safe_url(response.url)
        self._file = client.body_file(response)
        self.payload = None if self._file is not None else client.json(response)
        self.count = 0
        if self._file is None:
            records = records_at(self.payload, data_path, self.where)
            self._records: Iterator[Record] = iter(records)
            self.fingerprint: list[Record] | str = records
        else:
            self._records = self._streamed(data_path)
            self.fingerprint = _file_digest(self._file)
        self.first = list(islice(self._records, STREAM_BATCH))

    def batches(self) -> Iterator[list[Record]]:
        batch = self.first
        while batch:
            self.count += len(batch)
            yield batch
            batch = list(islice(self._records, STREAM_BATCH))

    def value_at(self, path: str) -> Value | Missing:
        """The value at dotted `path`, or `missing`."""
        if self._file is None:
            return dig(self.payload, path)
        return self._read(lambda text: text.value_at(path))  # None (not JSON there) reads as null, as before

    def _streamed(self, data_path: str) -> Iterator[Record]:
        assert self._file is not None
        try:
            for item in JsonText(self._file).records(data_path):
                yield dict(item) if isinstance(item, Mapping) else {"value": item}
        except JsonTextError as error:
            if error.what and error.what.startswith("no list"):
                keys = self._read(JsonText.keys)
                shape = (f"The response's top-level keys are: {listing(sorted(map(str, keys))) or '(none)'}."
                         if keys is not None else "The response is not an object.")
                raise no_records_problem(data_path, self.where, shape) from None
            raise invalid_response_problem(self.where, error.reason('JSON'),
                                           "Check base_url and endpoint: they must name a JSON API.") from None

    def _read(self, how: Callable[[JsonText], T]) -> T | None:
        """What `how` reads of the body on disk; None when it is not JSON there."""
        assert self._file is not None
        try:
            return how(JsonText(self._file))
        except JsonTextError:
            return None


def _file_digest(file: IO[bytes]) -> str:
    """A digest of a body on disk, read in chunks (two large pages alike are the same page)."""
    file.seek(0)
    digest = hashlib.sha256()
    while chunk := file.read(1 << 20):
        digest.update(chunk)
    return digest.hexdigest()


def describe_keys(body: Value) -> str:
    """The shape of a response for a hint: its top-level keys, never its values."""
    if isinstance(body, Mapping):
        return f"The response's top-level keys are: {listing(sorted(map(str, body))) or '(none)'}."
    if isinstance(body, list):
        return f"The response is a list of {len(body)} items."
    return f"The response is a single {type(body).__name__} value."


def flatten(record: Mapping[str, Value], prefix: str = "", parents: set[str] | None = None) -> Record:
    """Nested objects as columns: `{"a": {"b": 1}}` -> `{"a_b": 1}`; lists stay as they are. The
    names of the objects flattened are added to `parents`."""
    flat: Record = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            if parents is not None:
                parents.add(name)
            flat.update(flatten(value, f"{name}_", parents))
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
        self.wide: set[str] = set()  # top-level columns holding a number a double or BIGINT cannot hold
        self.parents: set[str] = set()  # objects flattened into columns (flat): `address` of `address_city`

    def __enter__(self) -> RecordSpool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()
        self._dir.cleanup()

    def add(self, records: Iterable[Mapping[str, Value]]) -> None:
        """Append records; OML515 for one larger than MAX_RECORD_BYTES or nested too deep."""
        for record in records:
            form, wide = spool_form(flatten(record, parents=self.parents) if self.flat else record)
            try:
                line = record_line(form)
            except JsonTextError as error:
                raise unloadable_record_problem(self.count + 1, str(error)) from None
            if len(line) > MAX_RECORD_BYTES:
                raise unloadable_record_problem(self.count + 1, f"it is {len(line) / (1 << 20):.1f} MiB of JSON, more than "
                                                      f"the {MAX_RECORD_BYTES >> 20} MiB a record may be")
            try:
                self._file.write(line + "\n")
            except UnicodeEncodeError:  # a lone surrogate, which UTF-8 cannot hold
                self._file.write(without_surrogates(line) + "\n")
            self.count += 1
            self.wide |= wide

    def load(self, con: duckdb.DuckDBPyConnection, table: str,
             known: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
        """Create `table` from the spooled records; its (name, type) columns. With no records, its
        columns are the `known` ones (an endpoint's catalog), else one JSON column `record`: a
        DuckDB table needs a column, and nothing else is known of records that never came."""
        self._file.close()
        target = '"' + table.replace('"', '""') + '"'
        if self.count == 0:
            body = ", ".join(f'"{name.replace(chr(34), chr(34) * 2)}" {kind}' for name, kind in known or [])
            con.execute(f"CREATE OR REPLACE TABLE {target} ({body or 'record JSON'})")
        else:
            self._read_json(con, target)
            if self.wide:
                settle_columns(con, table, sorted(self.wide))
            self._drop_null_parents(con, target)
        return [(name, kind) for name, kind, *_ in con.execute(f"DESCRIBE {target}").fetchall()]

    def _drop_null_parents(self, con: duckdb.DuckDBPyConnection, target: str) -> None:
        """Drop the column of an object flattened into columns where it was null in other records
        (`address: null` beside `address_city`): all NULL, it says nothing the parts do not. A name
        that also held a value (not null, not an object) keeps its column."""
        columns = {str(row[0]) for row in con.execute(f"DESCRIBE {target}").fetchall()}
        for name in sorted(self.parents & columns):
            column = '"' + name.replace('"', '""') + '"'
            if first_value(con, f"SELECT count({column}) FROM {target}") == 0:
                con.execute(f"ALTER TABLE {target} DROP COLUMN {column}")

    def _read_json(self, con: duckdb.DuckDBPyConnection, target: str) -> None:
        """read_json on one thread (its buffers are per thread); inferring the columns of an 8 MiB
        record needs about 90 MB, under the engine's cap (osiris.run.duckdb_engine, ADR 0170)."""
        from osiris.duckdb_core import duckdb

        threads = first_value(con, "SELECT current_setting('threads')")
        con.execute("SET threads = 1")
        source = (f"read_json(?, format = 'newline_delimited', sample_size = -1, "
                  f"maximum_object_size = {MAX_RECORD_BYTES}")
        try:
            if self.wide:  # their columns as JSON, to be settled (osiris.run.json_numbers)
                inferred = con.execute(f"DESCRIBE SELECT * FROM {source})", [str(self.path)]).fetchall()
                types = ", ".join(f"'{name.replace(chr(39), chr(39) * 2)}': "
                                  f"'{'JSON' if name in self.wide else kind.replace(chr(39), chr(39) * 2)}'"
                                  for name, kind, *_ in inferred)
                source += f", columns = {{{types}}}"
            con.execute(f"CREATE OR REPLACE TABLE {target} AS SELECT * FROM {source})", [str(self.path)])
        except duckdb.InvalidInputException as error:
            if "recursion depth" in str(error):
                raise unloadable_record_problem(None, f"it nests deeper than the {DUCKDB_MAX_DEPTH} levels DuckDB reads") from None
            raise
        except duckdb.NotImplementedException as error:
            twin = _DUPLICATE_NAME.search(str(error))
            if twin is None:
                raise
            raise unloadable_record_problem(None, f"it has two keys spelt '{twin.group(1)}' but for upper and lower case, "
                                        "which the engine's columns cannot tell apart") from None
        finally:
            con.execute(f"SET threads = {int(threads)}")


_DUPLICATE_NAME = re.compile(r'Duplicate name "([^"]*)"')


def read_pages(pages: Iterator[list[Record]], ctx: StepContext, spool: RecordSpool) -> None:
    """Spool records page by page; with a sample of N, stop after exactly N records."""
    for records in pages:
        if ctx.sample is not None:
            records = records[: ctx.sample - spool.count]
        spool.add(records)
        ctx.progress(spool.count)
        if ctx.sample is not None and spool.count >= ctx.sample:
            return


def spooled_outcome(ctx: StepContext, spool: RecordSpool, notes: list[str],
                    known: list[tuple[str, str]] | None = None, known_from: str = "its catalog") -> StepOutcome:
    """Load the spool into the step's table; the outcome with the client's notes as warnings.
    `known` columns (from `known_from`: the endpoint's catalog, the query) shape the table when no
    record came."""
    columns = spool.load(ctx.con, ctx.output_table, known)
    warnings = list(notes)
    if spool.count == 0:
        shape = f"with the columns of {known_from}" if known else "with one JSON column, record (no catalog for it)"
        warnings.append(f"the API returned no records; the output table is empty, {shape}")
    return StepOutcome(rows_in=spool.count, rows_out=spool.count, columns=columns, warnings=warnings)

"""cut_records: the PostgreSQL writer's CSV cut into batches of exactly `batch_size` records, however
the bytes arrive, with quoted fields that hold newlines and quotes kept whole."""

from __future__ import annotations

import csv
import io
import random

import pytest

from osiris.run.drivers.sql_common import cut_records


def csv_bytes(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def records(piece: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(piece.decode(), newline="")))


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize("batch_size", [1, 3, 1000])
def test_every_batch_holds_whole_records_and_all_of_them(chunk_size: int, batch_size: int) -> None:
    generator = random.Random(chunk_size * 31 + batch_size)
    values = ["plain", "", 'say "hi"', "two\nlines", "a,b", '"\n"', "x" * 50]
    rows = [[str(i), generator.choice(values), generator.choice(values)] for i in range(2500)]
    data = csv_bytes(rows)
    pieces = list(cut_records(chunked(data, chunk_size), batch_size))
    assert b"".join(piece for piece, _ in pieces) == data
    assert [count for _, count in pieces] == [batch_size] * (2500 // batch_size) + (
        [2500 % batch_size] if 2500 % batch_size else [])
    assert [len(records(piece)) for piece, _ in pieces] == [count for _, count in pieces]


def test_plain_rows_are_cut_the_same_way() -> None:
    data = b"".join(f"{i},name-{i}\n".encode() for i in range(10))
    assert list(cut_records(chunked(data, 16), 4)) == [
        (b"0,name-0\n1,name-1\n2,name-2\n3,name-3\n", 4), (b"4,name-4\n5,name-5\n6,name-6\n7,name-7\n", 4),
        (b"8,name-8\n9,name-9\n", 2)]


def test_no_input_gives_no_batch() -> None:
    assert list(cut_records([], 10)) == []


# --- csv_batches: DuckDB exports through a named pipe while the batches go out (ADR 0168) -----------

def exporting(tmp_path, rows: int = 100_000):
    import duckdb

    from osiris.run.driver import StepContext

    con = duckdb.connect()
    con.execute(f"CREATE TABLE df_src AS SELECT range AS id, 'row ' || range AS name FROM range({rows})")
    return StepContext("write", "postgres.writer", "write", {}, con, "df_write", {"src": "df_src"}, scratch_dir=tmp_path)


def exports_left() -> list[str]:
    import threading

    return [thread.name for thread in threading.enumerate() if thread.name == "osiris-export"]


def test_the_batches_are_the_bytes_duckdb_copies(tmp_path) -> None:
    from osiris.run.drivers.sql_common import csv_batches

    ctx = exporting(tmp_path)
    pieces = list(csv_batches(ctx, "df_src", '"id", "name"', 30_000))
    ctx.con.execute(f"COPY df_src TO '{tmp_path / 'whole.csv'}' (FORMAT csv, HEADER false)")
    assert b"".join(piece for piece, _ in pieces) == (tmp_path / "whole.csv").read_bytes()
    assert [count for _, count in pieces] == [30_000, 30_000, 30_000, 10_000]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["whole.csv"] and not exports_left()


def test_an_export_that_fails_half_way_raises_its_error_after_the_rows_it_gave(tmp_path) -> None:
    import duckdb

    from osiris.run.drivers.sql_common import csv_batches

    ctx = exporting(tmp_path)
    given = []
    with pytest.raises(duckdb.InvalidInputException, match="boom"):
        for _, count in csv_batches(ctx, "df_src", "CASE WHEN id = 90000 THEN error('boom') ELSE id END", 10_000):
            given.append(count)
    assert sum(given) < 100_000
    assert list(tmp_path.iterdir()) == [] and not exports_left()


def test_an_export_that_cannot_start_raises_at_once(tmp_path) -> None:
    import duckdb

    from osiris.run.drivers.sql_common import csv_batches

    with pytest.raises(duckdb.BinderException):
        list(csv_batches(exporting(tmp_path), "df_src", "no_such_column", 1000))
    assert list(tmp_path.iterdir()) == [] and not exports_left()


def test_an_export_that_fails_before_the_reader_opens_the_pipe_still_raises(tmp_path, monkeypatch) -> None:
    """The export fails (a bad column) while the reader is still on its way to open(): the reader
    must still get the end of the pipe and the error, never wait for ever (a hang the suite met)."""
    import builtins
    import threading
    import time

    import duckdb

    from osiris.run.drivers import sql_common

    def late_open(*args: object, **kwargs: object) -> object:
        time.sleep(0.3)  # the binder error comes in milliseconds: the export has failed by now
        return builtins.open(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(sql_common, "open", late_open, raising=False)
    outcome: list[BaseException] = []

    def consume() -> None:
        try:
            list(sql_common.csv_batches(exporting(tmp_path), "df_src", "no_such_column", 1000))
        except BaseException as error:  # noqa: BLE001 - the test checks which
            outcome.append(error)

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    worker.join(20)  # a bound on a hang, not a measurement
    assert not worker.is_alive(), "the reader waited for ever for a writer"
    assert len(outcome) == 1 and isinstance(outcome[0], duckdb.BinderException)
    assert list(tmp_path.iterdir()) == [] and not exports_left()


def test_a_writer_that_stops_early_stops_the_export(tmp_path) -> None:
    from osiris.run.drivers.sql_common import csv_batches

    batches = csv_batches(exporting(tmp_path, 2_000_000), "df_src", '"id", "name"', 1000)
    assert next(batches)[1] == 1000
    batches.close()  # what a failed COPY FROM STDIN or Ctrl-C does to the generator
    assert list(tmp_path.iterdir()) == [] and not exports_left()

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

"""JSON numbers of every size arrive exactly through the record spool (osiris.run.json_numbers), whichever
way the body is read (whole, or streamed from disk) and with graphql's flattening. The end-to-end path,
API -> CSV / PostgreSQL / MariaDB, is in tests/test_type_matrix.py."""

from __future__ import annotations

import io
from decimal import Decimal

import duckdb
import pytest

from osiris.run.json_records import RecordSpool
from osiris.run.json_stream import JsonText
from osiris.run.json_text import parse_json

BODY = (b'{"items": [{"id": 1, "n": 1234567890.123456789, "s": "00123", "o": {"deep": 12345678901234567890123}},'
        b' {"id": 2, "n": 0.5, "s": 12345678901234567890123, "o": {"deep": 1}}]}')


def load(records: list[dict], flat: bool = False) -> tuple[dict[str, str], list[tuple]]:
    con = duckdb.connect()
    with RecordSpool(flat=flat) as spool:
        spool.add(records)
        columns = dict(spool.load(con, "t"))
    return columns, con.execute("SELECT * FROM t ORDER BY id").fetchall()


@pytest.mark.parametrize("how", ["whole", "streamed"])
def test_a_decimal_a_double_cannot_hold_arrives_as_the_decimal_that_holds_every_value(how: str) -> None:
    records = (parse_json(BODY)["items"] if how == "whole" else list(JsonText(io.BytesIO(BODY)).records("items")))
    columns, rows = load(records)
    assert columns["n"] == "DECIMAL(19,9)"
    assert [row[1] for row in rows] == [Decimal("1234567890.123456789"), Decimal("0.5")]


def test_text_beside_a_wide_number_stays_text_and_the_number_keeps_its_digits() -> None:
    columns, rows = load(parse_json(BODY)["items"])
    assert columns["s"] == "JSON"  # "00123" is text: never read as the number 123
    assert [row[2] for row in rows] == ['"00123"', '"12345678901234567890123"']


def test_a_wide_number_inside_an_object_keeps_its_digits_as_text() -> None:
    columns, rows = load(parse_json(BODY)["items"])
    assert [row[3] for row in rows] == [{"deep": '"12345678901234567890123"'}, {"deep": "1"}]


def test_flattened_records_give_the_nested_wide_number_its_own_exact_column() -> None:
    columns, rows = load(parse_json(BODY)["items"], flat=True)
    assert columns["o_deep"] == "HUGEINT"
    assert [row[3] for row in rows] == [12345678901234567890123, 1]


@pytest.mark.parametrize("text, kind", [
    ("9223372036854775807", "BIGINT"), ("-9223372036854775809", "HUGEINT"),
    ("99999999999999999999999999999999999999", "HUGEINT"), ("999999999999999999999999999999999999999", "VARCHAR"),
    ("99999999999999999999.99", "DECIMAL(22,2)"), ("0.12345678901234567890123456789012345678", "DECIMAL(38,38)"),
    ("1.000000000000000000001", "DECIMAL(22,21)"), ("1e400", "VARCHAR"), ("1E-400", "VARCHAR")])
def test_each_size_of_number_gets_the_type_that_holds_it(text: str, kind: str) -> None:
    columns, rows = load(parse_json(b'{"items": [{"id": 1, "x": ' + text.encode() + b"}]}")["items"])
    assert columns["x"] == kind
    assert Decimal(str(rows[0][1])) == Decimal(text)


def test_flattening_adds_no_column_for_a_parent_object_that_is_null() -> None:
    """Issue 35, item 5: `address: null` in some records gave an all-NULL `address` beside `address_city`."""
    records = [{"id": 1, "address": {"city": "Oslo"}, "due": None}, {"id": 2, "address": None, "due": None}]
    columns, rows = load(records, flat=True)
    assert list(columns) == ["id", "address_city", "due"]  # `due`, null everywhere but never an object, stays
    assert rows == [(1, "Oslo", None), (2, None, None)]


def test_a_name_that_is_an_object_in_one_record_and_a_value_in_another_keeps_its_column() -> None:
    columns, rows = load([{"id": 1, "a": {"b": 1}}, {"id": 2, "a": 5}], flat=True)
    assert list(columns) == ["id", "a_b", "a"]
    assert rows == [(1, 1, None), (2, None, 5)]


def test_a_wide_number_in_records_read_as_one_map_is_refused_naming_its_key() -> None:
    # an empty key makes DuckDB read the records as one MAP column: the number has no column of its own
    from osiris.run.driver import RuntimeProblem

    records = parse_json(b'{"items": [{"": 1, "name": 12345678901234567890123}]}')["items"]
    with pytest.raises(RuntimeProblem) as refused:
        load(records)
    assert refused.value.code == "OML504"
    assert refused.value.message.startswith("column 'name' holds numbers too wide for a double")

"""What a CSV file holds and gives back (docs/types.md): nested API values are JSON text, binary is
PostgreSQL's hex text, instants are in UTC; `filesystem.csv_extractor` reads a file that
`filesystem.csv_writer` wrote back to the same values, '' and NULL apart, and numbers no double
holds exactly stay exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api_fixtures import api, api_server  # noqa: F401  (fixtures)
from tests.run_helpers import RunProject, csv_step, sql_step
from tests.servers.http_apis import RECORDS, ApiServer


@pytest.fixture
def proj(tmp_path: Path) -> RunProject:
    return RunProject(tmp_path / "project")


def test_nested_api_values_are_written_as_json_text(proj: RunProject, api: ApiServer) -> None:
    get = {"id": "get", "component": "rest.extractor", "mode": "read",
           "config": {"base_url": api.url, "endpoint": "/all", "data_path": "data.items"}}
    result = proj.run(str(proj.pipeline([get, sql_step("first", "SELECT id, meta FROM input_df WHERE id <= 2 ORDER BY id"),
                                         csv_step("write", "write", "out.csv")])))
    assert result.returncode == 0, result.stderr
    assert RECORDS[0]["meta"] == {"rank": 1, "tags": ["t1"]}
    assert (proj.root / "out.csv").read_text() == ('id,meta\n1,"{""rank"":1,""tags"":[""t1""]}"\n'
                                                   '2,"{""rank"":2,""tags"":[""t2""]}"\n')


def test_engine_values_are_written_as_text_that_reads_back(proj: RunProject) -> None:
    query = ("SELECT 1 AS id, {'login': 'u1'} AS author, ['a', 'b'] AS tags, MAP {'k': 1} AS counts, "
             "'\\x00\\xFF'::BLOB AS raw, TIMESTAMPTZ '2024-06-01 12:07:00+09' AS at, '' AS empty, NULL AS nothing")
    result = proj.run(str(proj.pipeline([sql_step("make", query), csv_step("write", "write", "out.csv")])))
    assert result.returncode == 0, result.stderr
    assert (proj.root / "out.csv").read_text() == (
        'id,author,tags,counts,raw,at,empty,nothing\n'
        '1,"{""login"":""u1""}","[""a"",""b""]","{""k"":1}",\\x00ff,2024-06-01 03:07:00+00,"",\n')


def test_a_csv_file_osiris_wrote_reads_back_to_the_same_values(proj: RunProject) -> None:
    (proj.root / "in.csv").write_text(
        'id,note,wide,ratio,tiny,big\n'
        '1,"",12345678901234567890.123456789,0.30000000000000004,0.1,18446744073709551615\n'
        '2,,-0.5,1.5,1e-5,0\n'
        '3,"two\nlines, ""quoted""",7,2.5,0.25,1\n', encoding="utf-8")
    result = proj.run(str(proj.pipeline([csv_step("read", "read", "in.csv"), csv_step("write", "write", "out.csv")])))
    assert result.returncode == 0, result.stderr
    assert proj.step_columns("read") == [("id", "BIGINT"), ("note", "VARCHAR"), ("wide", "DECIMAL(29,9)"),
                                         ("ratio", "DOUBLE"), ("tiny", "DOUBLE"), ("big", "HUGEINT")]
    assert (proj.root / "out.csv").read_text() == (
        'id,note,wide,ratio,tiny,big\n'
        '1,"",12345678901234567890.123456789,0.30000000000000004,0.1,18446744073709551615\n'
        '2,,-0.500000000,1.5,1e-05,0\n'
        '3,"two\nlines, ""quoted""",7.000000000,2.5,0.25,1\n')
    again = proj.run(str(proj.pipeline([csv_step("read", "read", "out.csv"),
                                        csv_step("write", "write", "again.csv")], name="again")))
    assert again.returncode == 0, again.stderr
    assert (proj.root / "again.csv").read_text() == (proj.root / "out.csv").read_text()


def test_a_number_too_wide_for_a_decimal_stays_its_exact_text(proj: RunProject) -> None:
    (proj.root / "in.csv").write_text("id,amount\n1,99999999999999999999999999999999999999999.5\n2,1.25\n")
    result = proj.run(str(proj.pipeline([csv_step("read", "read", "in.csv"), csv_step("write", "write", "out.csv")])))
    assert result.returncode == 0, result.stderr
    assert proj.step_columns("read") == [("id", "BIGINT"), ("amount", "VARCHAR")]
    assert (proj.root / "out.csv").read_text() == "id,amount\n1,99999999999999999999999999999999999999999.5\n2,1.25\n"


def test_numbers_a_double_holds_are_read_in_one_pass_as_doubles(proj: RunProject) -> None:
    """ADR 0166: the common file is checked as it is read; each spelling reads as read_csv reads it."""
    (proj.root / "in.csv").write_text("id,x\n1,1.5\n2,-1e3\n3,1e3\n4,.5\n5,5.\n6,-0\n7,inf\n8,NaN\n9,4.9e-324\n10,\n")
    result = proj.run(str(proj.pipeline([csv_step("read", "read", "in.csv"), csv_step("write", "write", "out.csv")])))
    assert result.returncode == 0, result.stderr
    assert proj.step_columns("read") == [("id", "BIGINT"), ("x", "DOUBLE")]
    assert (proj.root / "out.csv").read_text() == (
        "id,x\n1,1.5\n2,-1000.0\n3,1000.0\n4,0.5\n5,5.0\n6,-0.0\n7,inf\n8,nan\n9,5e-324\n10,\n")


@pytest.mark.parametrize("limit", [None, 10])
def test_one_number_a_double_does_not_hold_makes_the_column_exact_wherever_it_is(proj: RunProject, limit) -> None:
    """Row 5,000 of 6,000 holds the only wide number: with or without a row limit that stops
    before it, the column's type is decided by every value in the file, as it always was."""
    rows = "".join(f"{n},{n}.25\n" for n in range(1, 6001)).replace("\n5000,5000.25\n", "\n5000,0.12345678901234567\n")
    (proj.root / "in.csv").write_text("id,x\n" + rows)
    read = csv_step("read", "read", "in.csv", **({"limit": limit} if limit else {}))
    result = proj.run(str(proj.pipeline([read, csv_step("write", "write", "out.csv")])))
    assert result.returncode == 0, result.stderr
    assert proj.step_columns("read") == [("id", "BIGINT"), ("x", "DECIMAL(21,17)")]
    written = (proj.root / "out.csv").read_text()
    assert written.startswith("id,x\n1,1.25000000000000000\n2,2.25000000000000000\n")
    assert written.count("\n") == 1 + (limit or 6000)

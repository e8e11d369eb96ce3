"""The PostgreSQL extractor's read loop (`copied_rows`, ADR 0127) against a real PostgreSQL 15:
the same bytes psycopg's own iteration gives, rows that arrive late, an empty result, and a query
that fails half-way through its rows, both at the function and through `osiris run`."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from osiris.run.drivers.postgres import copied_rows
from tests.run_helpers import RunProject, csv_step, pg_step

MIXED_ROWS = ("SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'name ' || g END, "
              "CASE WHEN g % 5 = 0 THEN 'quote \"' || g || '\", comma' WHEN g % 3 = 0 THEN E'two\\nlines' "
              "ELSE 'ünïcødé ✓' END FROM generate_series(1, 30000) g")


@pytest.fixture
def conn(postgres_server):
    with psycopg.connect(postgres_server.dsn()) as connection:
        yield connection


def read_all(conn, query: str) -> list[bytes]:
    with conn.cursor() as cursor, cursor.copy(f"COPY ({query}) TO STDOUT (FORMAT CSV)") as copy:
        return [bytes(row) for row in copied_rows(copy, conn)]


def test_the_rows_are_the_bytes_psycopg_gives(conn):
    with conn.cursor() as cursor, cursor.copy(f"COPY ({MIXED_ROWS}) TO STDOUT (FORMAT CSV)") as copy:
        expected = [bytes(row) for row in copy]
    conn.rollback()
    assert read_all(conn, MIXED_ROWS) == expected
    assert len(expected) == 30000
    assert conn.execute("SELECT 1").fetchone() == (1,)  # the copy is over: the connection is usable


def test_rows_that_arrive_late_are_waited_for(conn):
    assert read_all(conn, "SELECT g, pg_sleep(0.2) FROM generate_series(1, 3) g") == [b'1,""\n', b'2,""\n', b'3,""\n']


def test_an_empty_result_is_no_rows(conn):
    assert read_all(conn, "SELECT 1 WHERE false") == []
    assert conn.execute("SELECT 2").fetchone() == (2,)


def test_a_query_that_fails_half_way_raises_the_psycopg_error(conn):
    with pytest.raises(psycopg.errors.DivisionByZero, match="division by zero"):
        read_all(conn, "SELECT 1 / (g - 20000) FROM generate_series(1, 30000) g")
    conn.rollback()
    assert conn.execute("SELECT 3").fetchone() == (3,)


def test_osiris_run_blames_the_read_step_and_writes_nothing(tmp_path: Path, postgres_server):
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    path = proj.pipeline([pg_step("read", "read", query="SELECT g, 1 / (g - 20000) AS ratio FROM generate_series(1, 30000) g",
                                  batch_size=1000),
                          csv_step("write", "write", "out.csv")])
    result = proj.run(str(path))
    assert result.returncode == 6, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert f"{path} OML504 step 'read': a value does not fit its column's type: division by zero\n" in result.stderr
    assert not (proj.root / "out.csv").exists()

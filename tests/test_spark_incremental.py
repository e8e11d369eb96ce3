"""Incremental reads on the Spark engine (docs/run-again.md, docs/spark.md), on real PostgreSQL and
MariaDB and a CSV file: a second run reads exactly the rows added or changed since the first, the
target equals the source, the state moves on as on DuckDB and stays where it was after a failed run,
and the saved value is quoted by the client library, never pasted into the SQL. Real local Spark
(each run starts a JVM: few runs)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.run_helpers import RunProject, csv_step, on_engine, pg_step
from tests.test_incremental import STATE, rows_read, source_and_target, the_cursor_value_stays_data

pytestmark = pytest.mark.xdist_group("spark")


def on_spark(proj: RunProject) -> RunProject:
    return on_engine(proj, "spark")


@pytest.fixture(params=["postgres", "mariadb"])
def database(request: Any, tmp_path: Path) -> Iterator[tuple[Any, RunProject]]:
    for db, proj in source_and_target(request, tmp_path):
        yield db, on_spark(proj)


def run_reads(proj: RunProject, path: Path, rows: int, value: str) -> None:
    """A run of `path` succeeds, reads `rows` rows, and leaves the cursor at `value`."""
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == rows
    assert json.loads((proj.root / STATE).read_text()) == {"steps": {"read": {"cursor": "changed", "value": value}}}


def test_a_second_spark_run_reads_exactly_what_changed_and_a_failed_run_keeps_the_state(database):
    db, proj = database
    path = proj.pipeline(db.steps(cursor="changed"), name="orders-sync")
    run_reads(proj, path, 3, "2026-01-02T00:00:00")
    assert db.rows("inc_target") == db.rows("inc_source")

    db.run("INSERT INTO inc_source VALUES (4, 'four', '2026-01-03 00:00:00.5')")
    db.run("UPDATE inc_source SET note = 'two again', changed = '2026-01-03 00:00:01' WHERE id = 2")
    run_reads(proj, path, 2, "2026-01-03T00:00:01")
    assert db.rows("inc_target") == db.rows("inc_source")
    state = json.loads((proj.root / STATE).read_text())

    db.run("INSERT INTO inc_source VALUES (5, 'five', '2026-01-04 00:00:00')")
    db.run("ALTER TABLE inc_target RENAME TO inc_gone")  # the writer fails
    failed = proj.run(str(path))
    assert failed.returncode == 6, failed.stderr
    assert json.loads((proj.root / STATE).read_text()) == state  # the state stayed


def test_the_saved_value_on_spark_is_quoted_by_the_client_library(database):
    the_cursor_value_stays_data(*database)


def test_a_csv_file_on_spark_is_read_after_its_cursor(tmp_path: Path):
    proj = on_spark(RunProject(tmp_path / "project"))
    source = proj.root / "orders.csv"
    source.write_text("id,changed\n1,2026-01-01 10:00:00\n2,2026-01-02 10:00:00\n3,2026-01-03 10:00:00\n")
    path = proj.pipeline([csv_step("read", "read", "orders.csv", incremental={"cursor": "changed",
                                                                               "initial": "2026-01-01 10:00:00"}),
                          csv_step("write", "write", "out.csv")], name="orders-sync")
    run_reads(proj, path, 2, "2026-01-03T10:00:00")
    assert (proj.root / "out.csv").read_text() == "id,changed\n2,2026-01-02 10:00:00\n3,2026-01-03 10:00:00\n"


def test_an_instant_cursor_is_kept_as_on_the_duckdb_engine(tmp_path: Path, postgres_server: Any):
    from tests.test_incremental import Postgres

    db = Postgres(postgres_server)
    db.run("DROP TABLE IF EXISTS inc_instants")
    db.run("CREATE TABLE inc_instants (id int PRIMARY KEY, changed timestamptz NOT NULL)")
    db.run("INSERT INTO inc_instants VALUES (1, '2026-01-02 03:04:05.25+02'), (2, '2026-01-01 00:00:00+00')")
    kept = []
    for engine in ("duckdb", "spark"):
        proj = on_spark(RunProject(tmp_path / engine, postgres=postgres_server))
        path = proj.pipeline([pg_step("read", "read", query="SELECT id, changed FROM inc_instants",
                                      incremental={"cursor": "changed"}),
                              csv_step("write", "write", "out.csv")], name="orders-sync")
        result = proj.run(str(path), "--engine", engine)
        assert result.returncode == 0, result.stderr
        kept.append(json.loads((proj.root / STATE).read_text())["steps"]["read"]["value"])
    db.run("DROP TABLE inc_instants")
    instant = datetime.datetime(2026, 1, 2, 1, 4, 5, 250000, tzinfo=datetime.UTC)  # each in its own offset
    assert [datetime.datetime.fromisoformat(value) for value in kept] == [instant, instant]


@pytest.mark.parametrize("kind", ["rest", "graphql"])
def test_an_api_on_spark_is_asked_for_what_changed_as_on_the_duckdb_engine(tmp_path: Path, kind: str):
    """An API's incremental read on Spark (refused before, OML414): its own driver sends the saved value
    as the request parameter, the state moves on, and an answer with nothing new keeps it, as on DuckDB."""
    from tests.test_incremental import the_api_is_asked_for_what_changed

    the_api_is_asked_for_what_changed(on_spark(RunProject(tmp_path / "project")), kind)

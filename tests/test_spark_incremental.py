"""Incremental reads on the Spark engine (docs/run-again.md, docs/spark.md), on real PostgreSQL and
MariaDB and a CSV file: a second run reads exactly the rows added or changed since the first, the
target equals the source, the state moves on as on DuckDB and stays where it was after a failed run,
and the saved value is quoted by the client library, never pasted into the SQL. Real local Spark
(each run starts a JVM: few runs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.run_helpers import RunProject, csv_step
from tests.test_incremental import STATE, Maria, Postgres, rows_read

pytestmark = pytest.mark.xdist_group("spark")


def on_spark(proj: RunProject) -> RunProject:
    settings_file = proj.root / ".osiris.yaml"
    settings = yaml.safe_load(settings_file.read_text(encoding="utf-8")) or {}
    settings_file.write_text(yaml.safe_dump({**settings, "run": {"engine": "spark", "spark": {"master": "local[1]"}}}),
                             encoding="utf-8")
    return proj


@pytest.fixture(params=["postgres", "mariadb"])
def database(request: Any, tmp_path: Path) -> Any:
    if request.param == "postgres":
        server = request.getfixturevalue("postgres_server")
        db: Any = Postgres(server)
        proj = RunProject(tmp_path / "project", postgres=server)
        changed = "timestamp(6)"
    else:
        server = request.getfixturevalue("mariadb_server")
        db = Maria(server)
        proj = RunProject(tmp_path / "project", mariadb=server)
        changed = "datetime(6)"
    for table in ("inc_source", "inc_target", "inc_canary"):
        db.run(f"DROP TABLE IF EXISTS {table}")
    db.run(f"CREATE TABLE inc_source (id int PRIMARY KEY, note varchar(40), changed {changed} NOT NULL)")
    db.run(f"CREATE TABLE inc_target (id int PRIMARY KEY, note varchar(40), changed {changed} NOT NULL)")
    db.run("INSERT INTO inc_source VALUES (1, 'a%b', '2026-01-01 10:00:00.000001'), "
           "(2, 'two', '2026-01-01 10:00:00.000002'), (3, 'three', '2026-01-02 00:00:00')")
    yield db, on_spark(proj)
    for table in ("inc_source", "inc_target", "inc_gone", "inc_canary"):
        db.run(f"DROP TABLE IF EXISTS {table}")


def test_a_second_spark_run_reads_exactly_what_changed_and_a_failed_run_keeps_the_state(database):
    db, proj = database
    path = proj.pipeline(db.steps(cursor="changed"), name="orders-sync")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 3 and db.rows("inc_target") == db.rows("inc_source")
    state = json.loads((proj.root / STATE).read_text())
    assert state == {"steps": {"read": {"cursor": "changed", "value": "2026-01-02T00:00:00"}}}

    db.run("INSERT INTO inc_source VALUES (4, 'four', '2026-01-03 00:00:00.5')")
    db.run("UPDATE inc_source SET note = 'two again', changed = '2026-01-03 00:00:01' WHERE id = 2")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 2 and db.rows("inc_target") == db.rows("inc_source")
    state = json.loads((proj.root / STATE).read_text())
    assert state == {"steps": {"read": {"cursor": "changed", "value": "2026-01-03T00:00:01"}}}

    db.run("INSERT INTO inc_source VALUES (5, 'five', '2026-01-04 00:00:00')")
    db.run("ALTER TABLE inc_target RENAME TO inc_gone")  # the writer fails
    failed = proj.run(str(path))
    assert failed.returncode == 6, failed.stderr
    assert json.loads((proj.root / STATE).read_text()) == state  # the state stayed


def test_the_saved_value_on_spark_is_quoted_by_the_client_library(database):
    db, proj = database
    db.run("CREATE TABLE inc_canary (id int)")
    path = proj.pipeline(db.steps(cursor="note", initial="x' OR 1=1; DROP TABLE inc_canary; --"), name="orders-sync")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 0  # no note is greater than "x'..."
    db.run("DROP TABLE inc_canary")  # still there


def test_a_csv_file_on_spark_is_read_after_its_cursor(tmp_path: Path):
    proj = on_spark(RunProject(tmp_path / "project"))
    source = proj.root / "orders.csv"
    source.write_text("id,changed\n1,2026-01-01 10:00:00\n2,2026-01-02 10:00:00\n3,2026-01-03 10:00:00\n")
    path = proj.pipeline([csv_step("read", "read", "orders.csv", incremental={"cursor": "changed",
                                                                               "initial": "2026-01-01 10:00:00"}),
                          csv_step("write", "write", "out.csv")], name="orders-sync")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 2
    assert (proj.root / "out.csv").read_text() == "id,changed\n2,2026-01-02 10:00:00\n3,2026-01-03 10:00:00\n"
    assert json.loads((proj.root / STATE).read_text()) == {
        "steps": {"read": {"cursor": "changed", "value": "2026-01-03T10:00:00"}}}

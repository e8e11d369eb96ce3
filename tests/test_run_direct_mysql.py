"""The direct route PostgreSQL -> MySQL (osiris/run/drivers/postgres_mysql.py, ADR 0177), on the real
PostgreSQL 15 and MariaDB.

The rule the route lives by: the target holds exactly what the engine's route (PostgreSQL -> DuckDB
-> LOAD DATA or INSERT) writes. Each test runs the same read twice, into two tables made alike: as a
plain copy, and with a second writer reading it, which makes it no plain copy and so takes the
engine's route; the two tables are compared row by row. A spy on `direct.copy` says which route a
run took (it calls the real route)."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import psycopg
import pytest

from osiris.run import direct
from tests.direct_routes import routes  # noqa: F401  (a fixture)
from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step
from tests.support import clean_env, interrupt_when

SOURCE = r"""
DROP TABLE IF EXISTS dm_src, dm_nan, dm_inf, dm_bc, dm_long;
CREATE TABLE dm_src (id int PRIMARY KEY, bo boolean, sm smallint, i int, b bigint, d2 numeric(10,2),
  dec numeric(38,10), t text, v varchar(20), d date, ts timestamp);
INSERT INTO dm_src VALUES
 (1, true, -32768, -2147483648, -9223372036854775808, -0.01, '-1234567890123456789012345678.0123456789',
  E'emoji 😀 CJK 漢字 CR\r\nLF\n, "q" ;|\t \\N ''s', 'NULL', '1000-01-01', '1000-01-01 00:00:00'),
 (2, false, 32767, 2147483647, 9223372036854775807, 0, 0, '', '', '9999-12-31', '9999-12-31 23:59:59.999999'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, true, 0, 0, 0, 12345678.99, 0.0000000001, 'x\.y \ back\slash "', 'null', '2024-02-29',
  '2024-01-01 00:00:01.5'),
 (5, false, 1, 1, 1, 1.5, 1.5, ' lead and trail ', E'tab\there', '2024-06-01', '2024-06-01 05:07:00.25');
CREATE TABLE dm_nan AS SELECT 1 AS id, 'NaN'::numeric(10,2) AS d2;
CREATE TABLE dm_inf AS SELECT 1 AS id, 'infinity'::date AS d;
CREATE TABLE dm_bc AS SELECT 1 AS id, '0044-03-15 BC'::date AS d;
CREATE TABLE dm_long AS SELECT 1 AS id, 'longer than five'::text AS v;
"""
TARGET = ("id INT PRIMARY KEY, bo TINYINT(1), sm SMALLINT, i INT, b BIGINT, d2 DECIMAL(10,2), `dec` DECIMAL(38,10), "
          "t TEXT, v VARCHAR(20), d DATE, ts DATETIME(6)")


@pytest.fixture(scope="module")
def proj(tmp_path_factory, postgres_server, mariadb_server) -> RunProject:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute(SOURCE)
    return RunProject(tmp_path_factory.mktemp("direct-mysql") / "project", postgres=postgres_server,
                      mariadb=mariadb_server)


def targets(mariadb_server, columns: str, rows: str = "") -> None:
    """dm_direct and dm_engine, made alike, each holding `rows` (a VALUES list) when given."""
    con = mariadb_server.connect(autocommit=True)
    with con.cursor() as cursor:
        for name in ("dm_direct", "dm_engine"):
            cursor.execute(f"DROP TABLE IF EXISTS {name}")
            cursor.execute(f"CREATE TABLE {name} ({columns}) DEFAULT CHARSET=utf8mb4")
            if rows:
                cursor.execute(f"INSERT INTO {name} VALUES {rows}")
    con.close()


def rows_of(mariadb_server, table: str) -> list[tuple[Any, ...]]:
    con = mariadb_server.connect()
    with con.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {table} ORDER BY id")
        found = list(cursor.fetchall())
    con.close()
    return found


def both_routes(proj: RunProject, name: str, read: dict[str, Any], **writer: Any) -> tuple[Any, Any]:
    """The same read as a plain copy (into dm_direct) and on the engine's route (into dm_engine, with
    a second writer that makes it no plain copy): both runs' results."""
    plain = proj.run(str(proj.pipeline([read, mysql_step("write", "write", table="dm_direct", **writer)],
                                       name=f"{name}-direct")))
    engine = proj.run(str(proj.pipeline([
        read, {**mysql_step("write", "write", table="dm_engine", **writer), "needs": ["read"]},
        {**csv_step("also", "write", f"{name}-also.csv"), "needs": ["read"]}], name=f"{name}-engine")))
    return plain, engine


@pytest.mark.parametrize("mode", ["append", "replace"])
def test_a_plain_copy_writes_the_rows_of_the_engines_route(proj, mariadb_server, routes, mode):
    targets(mariadb_server, TARGET, "(99, 1, 1, 1, 1, 1, 1, 'old', 'old', '2000-01-01', '2000-01-01')")
    plain, engine = both_routes(proj, f"all-{mode}", pg_step("read", "read", table="dm_src"), mode=mode)
    assert (plain.returncode, engine.returncode) == (0, 0), plain.stderr + engine.stderr
    assert [type(taken) for taken in routes] == [direct.Copied]
    written = rows_of(mariadb_server, "dm_direct")
    assert written == rows_of(mariadb_server, "dm_engine")
    assert [row[0] for row in written] == ([1, 2, 3, 4, 5, 99] if mode == "append" else [1, 2, 3, 4, 5])
    assert written[0][7] == 'emoji 😀 CJK 漢字 CR\r\nLF\n, "q" ;|\t \\N \'s' and written[0][8] == "NULL"
    assert written[2][1:] == (None,) * 10  # NULL stays NULL, never the text 'NULL'
    assert "read  ok  5 rows" in plain.stdout


@pytest.mark.parametrize(("table", "column", "target"), [
    ("dm_nan", "d2", "d2 DECIMAL(10,2)"), ("dm_inf", "d", "d DATE"), ("dm_bc", "d", "d DATE")])
def test_a_value_the_engine_refuses_sends_the_copy_back_and_keeps_the_target(proj, mariadb_server, routes, table,
                                                                              column, target):
    targets(mariadb_server, f"id INT PRIMARY KEY, {target}", "(7, NULL)")
    plain, engine = both_routes(proj, table, pg_step("read", "read", table=table), mode="replace")
    assert routes == [None]
    assert plain.returncode == engine.returncode != 0
    assert "OML504" in plain.stderr and f"'{column}'" in plain.stderr
    assert plain.stderr.replace("-direct", "").split("session:")[0] == \
        engine.stderr.replace("-engine", "").split("session:")[0]
    assert rows_of(mariadb_server, "dm_direct") == [(7, None)]


def test_a_load_mysql_warns_about_goes_the_engines_way(proj, mariadb_server, routes):
    targets(mariadb_server, "id INT PRIMARY KEY, v VARCHAR(5)", "(7, 'kept')")
    plain, engine = both_routes(proj, "long", pg_step("read", "read", table="dm_long"), mode="replace")
    assert routes == [None]
    assert plain.returncode == engine.returncode
    assert rows_of(mariadb_server, "dm_direct") == rows_of(mariadb_server, "dm_engine")


@pytest.mark.parametrize("writer", [{"mode": "upsert", "upsert_keys": ["id"]}, {"table": "dm_missing",
                                                                               "create_table": True}])
def test_what_the_route_does_not_prove_takes_the_engines_route(proj, mariadb_server, routes, writer):
    targets(mariadb_server, TARGET)
    con = mariadb_server.connect(autocommit=True)
    with con.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS dm_missing")
    con.close()
    step = mysql_step("write", "write", **{"table": "dm_direct", **writer})
    result = proj.run(str(proj.pipeline([pg_step("read", "read", table="dm_src"), step], name="not-proven")))
    assert result.returncode == 0, result.stderr
    assert routes == [None]
    assert len(rows_of(mariadb_server, str(step["config"]["table"]))) == 5


def test_ctrl_c_in_the_middle_of_the_relay_keeps_the_target(proj, postgres_server, mariadb_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS dm_big")
        pg.execute("CREATE TABLE dm_big AS SELECT g AS id, repeat('x', 40) AS v FROM generate_series(1, 2000000) g")
    targets(mariadb_server, "id INT PRIMARY KEY, v VARCHAR(40)", "(-1, 'kept')")
    path = proj.pipeline([pg_step("read", "read", table="dm_big"),
                          mysql_step("write", "write", table="dm_direct", mode="replace")], name="big-mysql")
    process = subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root,
                               env=clean_env(**proj.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watcher = mariadb_server.connect(autocommit=True)

    def loading() -> bool:
        with watcher.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'LOAD DATA%%'")
            return bool(cursor.fetchone()[0])

    stdout, stderr = interrupt_when(process, loading, "the load never began")
    assert process.returncode == 130, stderr
    assert "read  interrupted" in stdout
    deadline = time.monotonic() + 120  # the dropped link's transaction is rolled back, its DELETE with it
    while loading():
        assert time.monotonic() < deadline, "the load went on after the link dropped"
        time.sleep(0.05)
    watcher.close()
    assert rows_of(mariadb_server, "dm_direct") == [(-1, "kept")]

"""What a database writer holds to when two runs meet or a sample runs (issue 25): two concurrent
`replace` runs of one table leave one run's rows, never both (PostgreSQL and MariaDB, two real
`osiris run` processes); `--sample` advances no PostgreSQL sequence or identity and no MariaDB
AUTO_INCREMENT; and `--sample` takes every table name a full run takes (60 characters on MySQL).

The two runs are made to overlap by a gate, not a clock: the target's insert trigger waits for a
lock the test holds (an advisory lock on PostgreSQL, a named lock on MariaDB). The test lets go
once the database shows both runs waiting."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step
from tests.support import clean_env

ROWS = 500
NAMES = {"id": "names", "component": "duckdb.processor", "mode": "transform", "needs": ["read"],
         "config": {"query": "SELECT name FROM df_read"}}  # the rows without their id: a sequence numbers them
DEADLINE_S = 120.0  # a generous limit on waiting for an observable event, not a measurement


@pytest.fixture
def proj(tmp_path: Path, postgres_server: Any, mariadb_server: Any) -> RunProject:
    project = RunProject(tmp_path / "project", postgres=postgres_server, mariadb=mariadb_server)
    (project.root / "rows.csv").write_text("id,name\n" + "".join(f"{i},row-{i}\n" for i in range(ROWS)))
    return project


def start(proj: RunProject, path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root,
                            env=clean_env(**proj.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(condition: Any, runs: list[subprocess.Popen[str]], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        if condition():
            return
        for run in runs:
            assert run.poll() is None, f"a run ended before {what}: {run.communicate()}"
        time.sleep(0.05)
    raise AssertionError(f"not within {DEADLINE_S:.0f} s: {what}")


def finish(runs: list[subprocess.Popen[str]]) -> list[tuple[int, str]]:
    return [(run.wait(timeout=DEADLINE_S), run.communicate()[1]) for run in runs]


def test_two_postgres_replace_runs_at_once_leave_one_runs_rows(proj: RunProject, postgres_server: Any) -> None:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as gate:
        gate.execute("DROP TABLE IF EXISTS cc_target")
        gate.execute("CREATE TABLE cc_target (id int, name text)")  # no key: nothing else stops duplicates
        gate.execute("CREATE OR REPLACE FUNCTION cc_gate() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN PERFORM pg_advisory_lock(4242); PERFORM pg_advisory_unlock(4242); RETURN NULL; END $$")
        gate.execute("CREATE TRIGGER cc_gate BEFORE INSERT ON cc_target FOR EACH STATEMENT EXECUTE FUNCTION cc_gate()")
        gate.execute("SELECT pg_advisory_lock(4242)")
        steps = [csv_step("read", "read", "rows.csv"), pg_step("write", "write", table="cc_target", write_mode="replace")]
        path, other = proj.pipeline(steps), proj.pipeline(steps, name="test-run-2")  # one run of a pipeline at a time
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'osiris' AND wait_event_type = 'Lock'"
        first = start(proj, path)
        wait_for(lambda: gate.execute(waiting).fetchone() == (1,), [first], "the first run waits at the gate")
        second = start(proj, other)
        wait_for(lambda: gate.execute(waiting).fetchone() == (2,), [first, second], "the second run waits too")
        gate.execute("SELECT pg_advisory_unlock(4242)")
        outcomes = finish([first, second])
        assert [code for code, _ in outcomes] == [0, 0], outcomes
        assert gate.execute("SELECT count(*), count(DISTINCT id) FROM cc_target").fetchone() == (ROWS, ROWS)
        gate.execute("DROP TABLE cc_target")


def test_two_mariadb_replace_runs_at_once_leave_one_runs_rows(proj: RunProject, mariadb_server: Any) -> None:
    gate = mariadb_server.connect(autocommit=True)
    with gate.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS cc_target")
        cursor.execute("CREATE TABLE cc_target (id INT, name VARCHAR(20)) ENGINE=InnoDB")
        cursor.execute("CREATE TRIGGER cc_gate BEFORE INSERT ON cc_target FOR EACH ROW "
                       "SET @gate = GET_LOCK('cc-gate', 100) + RELEASE_LOCK('cc-gate')")
        cursor.execute("SELECT GET_LOCK('cc-gate', 10)")
        steps = [csv_step("read", "read", "rows.csv"), mysql_step("write", "write", table="cc_target", mode="replace")]
        path, other = proj.pipeline(steps), proj.pipeline(steps, name="test-run-2")  # one run of a pipeline at a time

        def waiting() -> int:
            cursor.execute("SELECT count(*) FROM information_schema.PROCESSLIST WHERE STATE = 'User lock'")
            return int(cursor.fetchone()[0])

        first = start(proj, path)
        wait_for(lambda: waiting() == 1, [first], "the first run waits at the gate")
        second = start(proj, other)
        wait_for(lambda: waiting() == 2, [first, second], "the second run waits too")
        cursor.execute("SELECT RELEASE_LOCK('cc-gate')")
        outcomes = finish([first, second])
        assert [code for code, _ in outcomes] == [0, 0], outcomes
        cursor.execute("SELECT count(*), count(DISTINCT id) FROM cc_target")
        assert cursor.fetchone() == (ROWS, ROWS)
        cursor.execute("DROP TABLE cc_target")
    gate.close()


def test_a_postgres_sample_advances_no_sequence_or_identity(proj: RunProject, postgres_server: Any) -> None:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS sq_serial, sq_identity")
        pg.execute("CREATE TABLE sq_serial (id serial PRIMARY KEY, name text UNIQUE, n bigserial)")
        pg.execute("CREATE TABLE sq_identity (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text UNIQUE)")
        pg.execute("INSERT INTO sq_serial (name) VALUES ('kept')")
        pg.execute("INSERT INTO sq_identity (name) VALUES ('kept')")
        sequences = ("SELECT last_value, is_called FROM sq_serial_id_seq UNION ALL SELECT last_value, is_called "
                     "FROM sq_serial_n_seq UNION ALL SELECT last_value, is_called FROM sq_identity_id_seq")
        before = pg.execute(sequences).fetchall()
        for mode in ("append", "replace", "upsert"):
            keys = {"primary_key": "name"} if mode == "upsert" else {}
            path = proj.pipeline([csv_step("read", "read", "rows.csv"), NAMES,
                                  {**pg_step("serial", "write", table="sq_serial", write_mode=mode, **keys),
                                   "needs": ["names"]},
                                  {**pg_step("ident", "write", table="sq_identity", write_mode=mode, **keys),
                                   "needs": ["names"]}], name=f"sample-{mode}")
            result = proj.run(str(path), "--sample", "25")
            assert result.returncode == 0, result.stderr
            assert pg.execute(sequences).fetchall() == before, mode
        assert pg.execute("SELECT id, name, n FROM sq_serial").fetchall() == [(1, "kept", 1)]
        assert pg.execute("INSERT INTO sq_identity (name) VALUES ('next') RETURNING id").fetchone() == (2,)


def test_a_mariadb_sample_leaves_auto_increment_and_takes_a_60_character_table_name(
        proj: RunProject, mariadb_server: Any) -> None:
    table = "t" * 60
    maria = mariadb_server.connect(autocommit=True)
    with maria.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {table}")
        cursor.execute(f"CREATE TABLE {table} (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20))")
        cursor.execute(f"INSERT INTO {table} (name) VALUES ('kept')")

        def next_id() -> int:
            cursor.execute("SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop' "
                           "AND TABLE_NAME = %s", (table,))
            return int(cursor.fetchone()[0])

        before = next_id()
        path = proj.pipeline([csv_step("read", "read", "rows.csv"),
                              NAMES, mysql_step("write", "write", table=table)])
        result = proj.run(str(path), "--sample", "25")
        assert result.returncode == 0, result.stderr
        assert next_id() == before
        cursor.execute(f"SELECT id, name FROM {table}")
        assert cursor.fetchall() == ((1, "kept"),)
        assert proj.run(str(path)).returncode == 0  # and the full run takes the same name
        cursor.execute(f"SELECT count(*) FROM {table}")
        assert cursor.fetchone() == (ROWS + 1,)
        cursor.execute(f"DROP TABLE {table}")
    maria.close()

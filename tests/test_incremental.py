"""Incremental reads (docs/run-again.md) on real PostgreSQL and MariaDB: a second run reads exactly
the rows added or changed since the first, the target (an upsert) equals the source after each run,
a failed run leaves the state where it was, `--full-refresh` reads everything, and the filter is a
bound parameter (a cursor value that is SQL stays data)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.run_helpers import RunProject, mysql_step, pg_step

STATE = Path(".osiris") / "state" / "orders-sync.json"


def rows_read(proj: RunProject, step_id: str = "read") -> int:
    artifacts = proj.last_session() / "artifacts"
    run = json.loads(next(p for p in (artifacts / "run.json", artifacts / "dry_run.json") if p.exists()).read_text())
    return next(s["rows_out"] for s in run["steps"] if s["id"] == step_id)


class Postgres:
    def __init__(self, server: Any) -> None:
        self.conn = psycopg.connect(server.dsn(), autocommit=True)

    def run(self, sql: str) -> None:
        self.conn.execute(sql)

    def rows(self, table: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.conn.execute(f"SELECT id, note, changed FROM {table} ORDER BY id").fetchall()]

    def steps(self, **incremental: Any) -> list[dict[str, Any]]:
        return [pg_step("read", "read", query="SELECT id, note, changed FROM inc_source", incremental=incremental),
                pg_step("write", "write", table="inc_target", write_mode="upsert", primary_key=["id"])]


class Maria:
    def __init__(self, server: Any) -> None:
        self.conn = server.connect(autocommit=True)

    def run(self, sql: str) -> None:
        with self.conn.cursor() as cursor:
            cursor.execute(sql)

    def rows(self, table: str) -> list[tuple[Any, ...]]:
        with self.conn.cursor() as cursor:
            cursor.execute(f"SELECT id, note, changed FROM {table} ORDER BY id")
            return [tuple(r) for r in cursor.fetchall()]

    def steps(self, **incremental: Any) -> list[dict[str, Any]]:
        return [mysql_step("read", "read", query="SELECT id, note, changed FROM inc_source", incremental=incremental),
                mysql_step("write", "write", table="inc_target", mode="upsert", upsert_keys=["id"])]


@pytest.fixture(params=["postgres", "mariadb"])
def database(request: Any, tmp_path: Path) -> Iterator[tuple[Any, RunProject]]:
    yield from source_and_target(request, tmp_path)


def source_and_target(request: Any, tmp_path: Path) -> Iterator[tuple[Any, RunProject]]:
    """`inc_source` with three rows and an empty `inc_target` in the database of `request.param`
    (tests/test_spark_incremental.py too)."""
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
    db.run("DROP TABLE IF EXISTS inc_source")
    db.run("DROP TABLE IF EXISTS inc_target")
    db.run(f"CREATE TABLE inc_source (id int PRIMARY KEY, note varchar(40), changed {changed} NOT NULL)")
    db.run(f"CREATE TABLE inc_target (id int PRIMARY KEY, note varchar(40), changed {changed} NOT NULL)")
    db.run("INSERT INTO inc_source VALUES (1, 'a%b', '2026-01-01 10:00:00.000001'), "
           "(2, 'two', '2026-01-01 10:00:00.000002'), (3, 'three', '2026-01-02 00:00:00')")
    yield db, proj
    for table in ("inc_source", "inc_target", "inc_gone", "inc_canary"):
        db.run(f"DROP TABLE IF EXISTS {table}")


def test_a_second_run_reads_exactly_what_changed_and_a_failed_run_keeps_the_state(database):
    db, proj = database
    path = proj.pipeline(db.steps(cursor="changed"), name="orders-sync")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 3 and db.rows("inc_target") == db.rows("inc_source")
    state = json.loads((proj.root / STATE).read_text())
    assert state == {"steps": {"read": {"cursor": "changed", "value": "2026-01-02T00:00:00"}}}

    result = proj.run(str(path))  # nothing new
    assert result.returncode == 0 and rows_read(proj) == 0
    assert json.loads((proj.root / STATE).read_text()) == state

    db.run("INSERT INTO inc_source VALUES (4, 'four', '2026-01-03 00:00:00.5')")
    db.run("UPDATE inc_source SET note = 'two again', changed = '2026-01-03 00:00:01' WHERE id = 2")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 2 and db.rows("inc_target") == db.rows("inc_source")
    state = json.loads((proj.root / STATE).read_text())
    assert state["steps"]["read"]["value"] == "2026-01-03T00:00:01"

    db.run("INSERT INTO inc_source VALUES (5, 'five', '2026-01-04 00:00:00')")
    db.run("ALTER TABLE inc_target RENAME TO inc_gone")  # the writer fails
    failed = proj.run(str(path))
    assert failed.returncode == 6
    assert json.loads((proj.root / STATE).read_text()) == state  # the state stayed
    db.run("ALTER TABLE inc_gone RENAME TO inc_target")
    result = proj.run(str(path), "--sample", "10")
    assert result.returncode == 0 and rows_read(proj) == 1  # the sample reads what is next...
    assert json.loads((proj.root / STATE).read_text()) == state  # ...and keeps nothing
    result = proj.run(str(path))
    assert result.returncode == 0 and rows_read(proj) == 1  # the row the failed run did not write
    assert db.rows("inc_target") == db.rows("inc_source")

    db.run("DELETE FROM inc_target WHERE id < 3")
    result = proj.run(str(path), "--full-refresh")
    assert result.returncode == 0 and rows_read(proj) == 5
    assert db.rows("inc_target") == db.rows("inc_source")


def test_initial_and_the_state_commands(database):
    from tests.inprocess import run_inprocess
    from tests.support import clean_env

    db, proj = database
    path = proj.pipeline(db.steps(cursor="id", initial=1), name="orders-sync")
    assert proj.run(str(path)).returncode == 0
    assert rows_read(proj) == 2  # ids above 1
    shown = run_inprocess("state", "show", str(path), cwd=proj.root, env=clean_env())
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == "STEP  CURSOR  VALUE\nread  id      3\n"
    reset = run_inprocess("state", "reset", "orders-sync", cwd=proj.root, env=clean_env())
    assert reset.returncode == 0 and not (proj.root / STATE).exists()
    assert "state of 'orders-sync' reset: the next run reads from each step's initial value" in reset.stdout
    assert proj.run(str(path)).returncode == 0 and rows_read(proj) == 2


def test_the_cursor_value_is_bound_never_written_into_the_sql(database):
    the_cursor_value_stays_data(*database)


def the_cursor_value_stays_data(db: Any, proj: RunProject) -> None:
    db.run("CREATE TABLE IF NOT EXISTS inc_canary (id int)")
    path = proj.pipeline(db.steps(cursor="note", initial="x' OR 1=1; DROP TABLE inc_canary; --"), name="orders-sync")
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 0  # no note is greater than "x'..."
    db.run("DROP TABLE inc_canary")  # still there


def test_validation_knows_the_field_and_the_cursor_column():
    from tests.validate_helpers import validator

    text = ('oml_version: "0.1.0"\nname: orders-sync\nsteps:\n  - id: read\n    component: mysql.extractor\n'
            '    mode: read\n    config:\n      connection: "@mysql.default"\n      query: "SELECT id, changed FROM t"\n'
            '      incremental: {cursor: %s}\n')
    assert [i.code for i in validator().validate(text % "changed").issues] == []
    [issue] = validator().validate(text % "chnged").issues
    assert (issue.code, issue.path, issue.hint) == ("OML406", "/steps/0/config/incremental/cursor",
                                                   "did you mean 'changed'? columns: id, changed")
    assert [i.code for i in validator().validate(text % "{}").issues] == ["OML305"]  # a cursor is a column name


def test_a_csv_file_is_read_after_its_cursor_and_a_missing_cursor_is_named(tmp_path: Path):
    from tests.run_helpers import csv_step

    proj = RunProject(tmp_path / "project")
    source = proj.root / "orders.csv"
    source.write_text("id,changed\n1,2026-01-01 10:00:00\n2,2026-01-02 10:00:00\n")
    path = proj.pipeline([csv_step("read", "read", "orders.csv", incremental={"cursor": "changed"}),
                          csv_step("write", "write", "out.csv")], name="orders-sync")
    assert proj.run(str(path)).returncode == 0 and rows_read(proj) == 2
    source.write_text("id,changed\n1,2026-01-01 10:00:00\n2,2026-01-02 10:00:00\n3,2026-01-03 10:00:00\n")
    assert proj.run(str(path)).returncode == 0 and rows_read(proj) == 1
    assert (proj.root / "out.csv").read_text() == "id,changed\n3,2026-01-03 10:00:00\n"
    assert json.loads((proj.root / STATE).read_text())["steps"]["read"]["value"] == "2026-01-03T10:00:00"
    steps = [csv_step("read", "read", "orders.csv", incremental={"cursor": "chnged", "initial": "x"}),
             csv_step("write", "write", "out.csv")]
    _, stderr = proj.run_failing(steps, name="orders-sync")
    assert "OML502 step 'read': column \"chnged\" does not exist in orders.csv\n" in stderr
    assert "    hint: columns of orders.csv: id, changed (did you mean 'changed'?)\n" in stderr
    del steps[0]["config"]["incremental"]["initial"]  # the first read takes every row: the cursor is still needed
    _, stderr = proj.run_failing(steps, name="orders-sync")
    assert ("OML502 step 'read': column \"chnged\" does not exist in the step's rows (its incremental cursor)"
            in stderr)


class _Orders:
    """A local HTTP API: /orders returns the records updated after `updated_since` (every one without
    it); GraphQL's /graphql the same through the variable `since`. Each request's parameters are kept."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs, urlsplit

        self.records = [{"id": 1, "updated": "2026-01-01T10:00:00"}, {"id": 2, "updated": "2026-01-02T10:00:00"}]
        self.asked: list[Any] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, since: Any, wrap: bool) -> None:
                rows = [r for r in api.records if since is None or r["updated"] > since]
                body = json.dumps({"data": {"orders": rows}} if wrap else rows).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                api.asked.append(query)
                self._answer(query.get("updated_since"), wrap=False)

            def do_POST(self) -> None:  # noqa: N802
                variables = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["variables"]
                api.asked.append(variables)
                self._answer(variables.get("since"), wrap=True)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def the_api_is_asked_for_what_changed(proj: RunProject, kind: str) -> None:
    """Three runs of an incremental read of a local API by the `kind` extractor (rest or graphql): the
    first reads every record, the second sends the saved value and reads the new one, the third reads
    nothing new and keeps the state (the Spark engine's test runs it too)."""
    from tests.run_helpers import csv_step

    api = _Orders()
    if kind == "rest":
        read = {"id": "read", "component": "rest.extractor", "mode": "read",
                "config": {"base_url": api.url, "endpoint": "/orders",
                           "incremental": {"cursor": "updated", "param": "updated_since"}}}
    else:
        read = {"id": "read", "component": "graphql.extractor", "mode": "read",
                "config": {"endpoint": f"{api.url}/graphql", "data_path": "data.orders",
                           "query": "query($since: String) { orders(since: $since) { id updated } }",
                           "incremental": {"cursor": "updated", "param": "since"}}}
    path = proj.pipeline([read, csv_step("write", "write", "out.csv")], name="orders-sync")
    try:
        result = proj.run(str(path))
        assert result.returncode == 0, result.stderr
        assert rows_read(proj) == 2
        api.records.append({"id": 3, "updated": "2026-01-03T10:00:00"})
        result = proj.run(str(path))
        assert result.returncode == 0, result.stderr
        assert rows_read(proj) == 1
        name = "updated_since" if kind == "rest" else "since"
        assert [a.get(name) for a in api.asked] == [None, "2026-01-02T10:00:00"]
        assert (proj.root / "out.csv").read_text() == "id,updated\n3,2026-01-03 10:00:00\n"
        state = (proj.root / STATE).read_bytes()
        result = proj.run(str(path))  # nothing new: an empty answer has no cursor column, and needs none
        assert result.returncode == 0, result.stderr
        assert rows_read(proj) == 0 and (proj.root / STATE).read_bytes() == state
    finally:
        api.server.shutdown()


@pytest.mark.parametrize("kind", ["rest", "graphql"])
def test_an_api_is_asked_for_what_changed_through_its_param(tmp_path: Path, kind: str):
    the_api_is_asked_for_what_changed(RunProject(tmp_path / "project"), kind)

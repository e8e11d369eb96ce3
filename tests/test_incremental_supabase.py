"""An incremental read of supabase.extractor (docs/run-again.md), end to end through `osiris run`
against the PostgREST-COMPATIBLE STAND-IN of tests/servers/postgrest.py (the real PostgREST cannot
be installed here; the stand-in binds each filter value as a parameter of the real PostgreSQL 15):
the cursor is sent as the filter `<cursor>=gt.<value>`, a second run reads exactly the rows added
or changed, the upserted target equals the source, a failed run leaves the state, and a value
that is SQL stays a value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg

from tests.run_helpers import RunProject
from tests.servers.postgrest import PostgrestStandIn
from tests.test_incremental import rows_read
from tests.test_run_api_end_to_end import proj, standin, supabase_step, use_connections  # noqa: F401  (fixtures)

STATE = Path(".osiris") / "state" / "users-sync.json"
SETUP = """
DROP TABLE IF EXISTS inc_users, inc_users_copy, inc_canary;
CREATE TABLE inc_users (id int PRIMARY KEY, name text NOT NULL, changed timestamptz NOT NULL);
INSERT INTO inc_users SELECT g, 'user' || g, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute'
  FROM generate_series(1, 25) g;
CREATE TABLE inc_users_copy (id int PRIMARY KEY, name text NOT NULL, changed timestamptz NOT NULL);
CREATE TABLE inc_canary (id int);
"""


def sql(sb: PostgrestStandIn, statement: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(sb.dsn) as con:
        cursor = con.execute(statement)
        return cursor.fetchall() if cursor.description else []


def test_a_second_run_reads_what_changed_through_a_bound_filter(proj: RunProject, standin: PostgrestStandIn) -> None:
    sql(standin, SETUP)
    use_connections(proj, {"supabase": {"sb": {"url": standin.url, "key": "${SUPABASE_KEY}"}}})
    steps = [supabase_step("read", "read", standin, table="inc_users", limit=10, incremental={"cursor": "changed"}),
             supabase_step("write", "write", standin, table="inc_users_copy", write_mode="upsert", primary_key="id")]
    path = proj.pipeline(steps, name="users-sync")
    standin.requests.clear()
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 25
    first = [r.query for r in standin.requests if r.method == "GET" and r.path == "/rest/v1/inc_users"]
    assert first[0] == {"select": "*", "order": "changed.asc", "limit": "10", "offset": "0"}  # the first run: all
    state = json.loads((proj.root / STATE).read_text())
    assert state == {"steps": {"read": {"cursor": "changed", "value": "2026-01-01T00:25:00+00:00"}}}
    result = proj.run(str(path))  # nothing new: an empty read, the table's columns, the state kept
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 0 and json.loads((proj.root / STATE).read_text()) == state

    sql(standin, "INSERT INTO inc_users VALUES (26, 'user26', '2026-01-02 00:00:00+00')")
    sql(standin, "UPDATE inc_users SET name = 'two again', changed = '2026-01-02 00:00:01+00' WHERE id = 2")
    standin.requests.clear()
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 2
    second = next(r.query for r in standin.requests if r.method == "GET" and r.path == "/rest/v1/inc_users")
    assert second == {"select": "*", "changed": "gt.2026-01-01T00:25:00+00:00", "order": "changed.asc",
                      "limit": "10", "offset": "0"}
    assert sql(standin, "SELECT * FROM inc_users_copy ORDER BY id") == sql(standin, "SELECT * FROM inc_users ORDER BY id")
    state = json.loads((proj.root / STATE).read_text())
    assert state["steps"]["read"]["value"] == "2026-01-02T00:00:01+00:00"

    sql(standin, "INSERT INTO inc_users VALUES (27, 'user27', '2026-01-03 00:00:00+00')")
    sql(standin, "ALTER TABLE inc_users_copy RENAME TO inc_users_gone")  # the writer fails
    assert proj.run(str(path)).returncode == 6
    assert json.loads((proj.root / STATE).read_text()) == state  # the state stayed
    sql(standin, "ALTER TABLE inc_users_gone RENAME TO inc_users_copy")
    assert proj.run(str(path)).returncode == 0 and rows_read(proj) == 1
    assert sql(standin, "SELECT * FROM inc_users_copy ORDER BY id") == sql(standin, "SELECT * FROM inc_users ORDER BY id")


def test_the_cursor_value_is_a_value_never_sql(proj: RunProject, standin: PostgrestStandIn) -> None:
    sql(standin, SETUP)
    use_connections(proj, {"supabase": {"sb": {"url": standin.url, "key": "${SUPABASE_KEY}"}}})
    steps = [supabase_step("read", "read", standin, table="inc_users",
                           incremental={"cursor": "name", "initial": "x' OR 1=1; DROP TABLE inc_canary; --"}),
             supabase_step("write", "write", standin, table="inc_users_copy", write_mode="upsert", primary_key="id")]
    result = proj.run(str(proj.pipeline(steps, name="users-sync")))
    assert result.returncode == 0, result.stderr
    assert rows_read(proj) == 0  # no name is greater than "x'..."
    assert sql(standin, "SELECT count(*) FROM inc_canary") == [(0,)]  # still there

"""The supabase extractor and writer, called in process as the engine calls them, against a
PostgREST-COMPATIBLE STAND-IN (tests/servers/postgrest.py) backed by the real PostgreSQL 15.

The real Supabase / PostgREST cannot be installed on these machines, so the stand-in speaks
PostgREST's wire format for the subset the drivers use; every read and write lands in, and is
checked in, the real PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import duckdb
import pytest

from osiris.run.driver import RuntimeProblem, StepContext, StepOutcome
from osiris.run.drivers import driver_for
from tests.effective_config import effective
from tests.servers.postgrest import KEY, PostgrestStandIn, query_rows, reset, running_standin

SETUP = """
DROP TABLE IF EXISTS users, daily, notes;
CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL, score numeric);
INSERT INTO users SELECT g, 'user' || g, g * 1.5 FROM generate_series(1, 25) g;
CREATE TABLE daily (day date, user_id int, visits int, PRIMARY KEY (day, user_id));
"""


@pytest.fixture(scope="module")
def standin(postgres_server: Any) -> Iterator[PostgrestStandIn]:
    # Its own database: other tests create tables in the shared server's public schema.
    with running_standin(postgres_server.fresh_database("supabase_standin")) as server:
        yield server


@pytest.fixture
def sb(standin: PostgrestStandIn) -> PostgrestStandIn:
    return reset(standin, SETUP)


pg = query_rows


def fingerprint(sb: PostgrestStandIn) -> tuple:
    return pg(sb, "SELECT count(*), md5(string_agg(id || ':' || name || ':' || score, ',' ORDER BY id)) FROM users")[0]


def read(sb: PostgrestStandIn, sample: int | None = None, **config: Any) -> tuple[StepOutcome, list[tuple]]:
    con = duckdb.connect()
    ctx = StepContext("get", "supabase.extractor", "read", effective("supabase.extractor", {"url": sb.url, "key": KEY, **config}),
                      con, "df_get", {},
                      sample=sample, secrets=(KEY,))
    outcome = driver_for("supabase.extractor").run(ctx)
    return outcome, con.execute("SELECT * FROM df_get").fetchall()


def as_discovered(sb: PostgrestStandIn, **fields: Any) -> dict[str, Any]:
    """The stand-in's connection as `osiris discover` hands it to the driver: the extractor's spec defaults merged."""
    return effective("supabase.extractor", {"url": sb.url, "key": KEY, **fields})


def write(sb: PostgrestStandIn, rows_sql: str, sample: int | None = None, **config: Any) -> StepOutcome:
    con = duckdb.connect()
    con.execute(f"CREATE TABLE df_src AS {rows_sql}")
    ctx = StepContext("put", "supabase.writer", "write", effective("supabase.writer", {"url": sb.url, "key": KEY, **config}),
                      con, "df_put",
                      {"src": "df_src"}, sample=sample, secrets=(KEY,))
    return driver_for("supabase.writer").run(ctx)


def fails(call: Any, *args: Any, **kwargs: Any) -> RuntimeProblem:
    with pytest.raises(RuntimeProblem) as caught:
        call(*args, **kwargs)
    assert KEY not in caught.value.message and KEY not in caught.value.hint
    return caught.value


NEW_ROWS = "SELECT i AS id, 'new' || i AS name FROM range(20, 30) t(i)"  # 20..25 exist, 26..29 do not


def test_read_pages_with_limit_and_offset_and_sends_the_key(sb: PostgrestStandIn) -> None:
    outcome, rows = read(sb, table="users", limit=10, order="id.asc")
    assert [r[0] for r in rows] == list(range(1, 26))
    assert outcome.columns == [("id", "BIGINT"), ("name", "VARCHAR"), ("score", "DOUBLE")]
    assert [(r.query["limit"], r.query["offset"]) for r in sb.requests] == [("10", "0"), ("10", "10"), ("10", "20")]
    assert sb.requests[0].headers["apikey"] == KEY
    assert sb.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert sb.requests[0].headers["accept-profile"] == "public"


def test_read_applies_select_filter_and_order(sb: PostgrestStandIn) -> None:
    _, rows = read(sb, table="users", select="id,name", filter={"score": "gt.33"}, order="id.desc")
    assert rows == [(25, "user25"), (24, "user24"), (23, "user23")]


def test_a_sample_asks_for_exactly_n_rows(sb: PostgrestStandIn) -> None:
    outcome, rows = read(sb, sample=12, table="users", limit=10, order="id")
    assert [r[0] for r in rows] == list(range(1, 13))
    assert outcome.rows_out == 12
    assert [(r.query["limit"], r.query["offset"]) for r in sb.requests] == [("10", "0"), ("2", "10")]


def test_an_unknown_table_is_oml501_with_the_closest_name(sb: PostgrestStandIn) -> None:
    problem = fails(read, sb, table="user")
    assert (problem.code, problem.message) == ("OML501", "unknown table 'user' in the schema 'public' "
                                                          "(did you mean 'users'?)")
    assert problem.hint == "Tables in 'public': daily, users."


def test_a_wrong_key_is_oml506_and_never_shown(sb: PostgrestStandIn) -> None:
    wrong = "sb-wrong-key-0123456789abcdef"
    with pytest.raises(RuntimeProblem) as caught:
        read(sb, table="users", key=wrong)
    assert (caught.value.code, caught.value.message) == (
        "OML506", f"authentication failed: GET {sb.url}/rest/v1/users answered 401 Unauthorized")
    assert wrong not in caught.value.hint


def test_append_posts_batches(sb: PostgrestStandIn) -> None:
    outcome = write(sb, "SELECT i AS id, 'added' || i AS name FROM range(100, 110) t(i)", table="users",
                    batch_size=3)
    assert (outcome.rows_in, outcome.rows_out) == (10, 10)
    assert pg(sb, "SELECT count(*) FROM users WHERE name LIKE 'added%'") == [(10,)]
    assert [len(r.body) for r in sb.requests if r.method == "POST"] == [3, 3, 3, 1]


def test_upsert_twice_keeps_the_row_count_and_lands_new_values(sb: PostgrestStandIn) -> None:
    write(sb, NEW_ROWS, table="users", write_mode="upsert", primary_key="id")
    assert pg(sb, "SELECT count(*) FROM users") == [(29,)]
    write(sb, NEW_ROWS.replace("'new'", "'newer'"), table="users", write_mode="upsert", primary_key="id")
    assert pg(sb, "SELECT count(*) FROM users") == [(29,)]
    assert pg(sb, "SELECT name, score FROM users WHERE id IN (19, 20, 29) ORDER BY id") == [
        ("user19", 28.5), ("newer20", 30.0), ("newer29", None)]
    post = [r for r in sb.requests if r.method == "POST"][-1]
    assert post.query == {"on_conflict": "id"}
    assert post.headers["prefer"] == "resolution=merge-duplicates,return=minimal"


def test_upsert_on_a_composite_key(sb: PostgrestStandIn) -> None:
    rows = "SELECT DATE '2024-01-01' + i::int AS day, 7 AS user_id, i AS visits FROM range(3) t(i)"
    write(sb, rows, table="daily", write_mode="upsert", primary_key=["day", "user_id"])
    write(sb, rows.replace("i AS visits", "i * 10 AS visits"), table="daily", write_mode="upsert",
          primary_key=["day", "user_id"])
    assert pg(sb, "SELECT day::text, visits FROM daily ORDER BY day") == [
        ("2024-01-01", 0), ("2024-01-02", 10), ("2024-01-03", 20)]


def test_replace_deletes_every_row_then_inserts(sb: PostgrestStandIn) -> None:
    outcome = write(sb, NEW_ROWS, table="users", write_mode="replace", primary_key="id")
    assert outcome.rows_out == 10
    assert pg(sb, "SELECT min(id), max(id), count(*) FROM users") == [(20, 29, 10)]
    delete = [r for r in sb.requests if r.method == "DELETE"]
    assert [r.query for r in delete] == [{"id": "not.is.null"}]


def test_replace_without_primary_key_is_oml512_and_deletes_nothing(sb: PostgrestStandIn) -> None:
    before = fingerprint(sb)
    problem = fails(write, sb, NEW_ROWS, table="users", write_mode="replace")
    assert (problem.code, problem.message) == ("OML512", "write_mode 'replace' needs primary_key: the key column(s) "
                                                          "of 'users'")
    assert fingerprint(sb) == before


def test_upsert_on_a_key_the_table_lacks_is_oml512(sb: PostgrestStandIn) -> None:
    before = fingerprint(sb)
    problem = fails(write, sb, "SELECT 1 AS uid, 'x' AS name", table="users", write_mode="upsert", primary_key="uid")
    assert (problem.code, problem.message) == ("OML512", "key column 'uid' is not in the table 'users' "
                                                          "(did you mean 'id'?)")
    assert problem.hint == "The table's columns are: id, name, score."
    assert fingerprint(sb) == before


def test_a_composite_key_names_the_column_the_table_lacks(sb: PostgrestStandIn) -> None:
    rows = "SELECT DATE '2024-01-01' AS day, 7 AS uid, 1 AS visits"
    problem = fails(write, sb, rows, table="daily", write_mode="upsert", primary_key=["day", "uid"])
    assert problem.message == "key column 'uid' is not in the table 'daily' (did you mean 'user_id'?)"
    assert problem.hint == "The table's columns are: day, user_id, visits."


def test_the_checks_before_an_upsert_read_no_rows(sb: PostgrestStandIn) -> None:
    write(sb, NEW_ROWS, table="users", write_mode="upsert", primary_key="id")
    assert [(r.path, r.query) for r in sb.requests if r.method == "GET"] == [
        ("/rest/v1/users", {"select": "id", "limit": "0"}), ("/rest/v1/users", {"select": "id,name", "limit": "0"})]


def test_a_key_missing_from_the_input_is_oml512(sb: PostgrestStandIn) -> None:
    problem = fails(write, sb, "SELECT 'x' AS name", table="users", write_mode="upsert", primary_key="id")
    assert (problem.code, problem.message) == ("OML512", "key column 'id' is not in the input of the supabase.writer "
                                                          "step")


def test_writing_to_an_unknown_table_is_oml501(sb: PostgrestStandIn) -> None:
    problem = fails(write, sb, NEW_ROWS, table="userz")
    assert (problem.code, problem.message) == ("OML501", "unknown table 'userz' in the schema 'public' "
                                                          "(did you mean 'users'?)")


def test_a_failed_batch_says_how_many_rows_were_written(sb: PostgrestStandIn) -> None:
    rows = "SELECT i AS id, 'dup' AS name FROM range(30, 33) t(i) UNION ALL SELECT 1, 'dup'"
    problem = fails(write, sb, rows + " ORDER BY 1 DESC", table="users", batch_size=3)
    assert (problem.code, problem.message) == ("OML508", f"HTTP 409 Conflict from POST {sb.url}/rest/v1/users")
    assert problem.hint.endswith("3 rows were written before this batch; the REST API has no transactions, "
                                 "so they stay.")
    assert pg(sb, "SELECT count(*) FROM users") == [(28,)]


@pytest.mark.parametrize("mode", ["append", "upsert", "replace"])
def test_a_sample_write_changes_nothing_and_says_what_it_checked(sb: PostgrestStandIn, mode: str) -> None:
    before = fingerprint(sb)
    outcome = write(sb, NEW_ROWS, sample=5, table="users", write_mode=mode, primary_key="id")
    assert fingerprint(sb) == before
    assert {r.method for r in sb.requests} == {"GET"}
    verb = {"append": "appended to", "upsert": "upserted into", "replace": "written, replacing all rows of"}[mode]
    assert outcome.warnings == [f"sample: nothing was written; 10 rows would be {verb} 'users' "
                                "(table, columns and keys checked)"]
    assert (outcome.rows_in, outcome.rows_out) == (10, 0)


def test_a_sample_write_finds_a_column_the_table_lacks(sb: PostgrestStandIn) -> None:
    problem = fails(write, sb, "SELECT 1 AS id, 'x' AS nickname", sample=5, table="users")
    assert (problem.code, problem.message) == ("OML508", f"HTTP 400 Bad Request from GET {sb.url}/rest/v1/users")
    assert "column users.nickname does not exist" in problem.hint


def test_discover_reads_tables_columns_and_keys_from_the_openapi_root(sb: PostgrestStandIn) -> None:
    tables = driver_for("supabase.extractor").discover(as_discovered(sb), None)
    assert [(t.name, t.primary_key) for t in tables] == [("daily", ["day", "user_id"]), ("users", ["id"])]
    users = tables[1]
    assert [(c.name, c.type, c.nullable) for c in users.columns] == [
        ("id", "integer", False), ("name", "text", False), ("score", "numeric", True)]
    assert [r.path for r in sb.requests] == ["/rest/v1/"]


def test_discover_of_an_unknown_table_is_oml501(sb: PostgrestStandIn) -> None:
    problem = fails(driver_for("supabase.writer").discover, as_discovered(sb), ["dayly"])
    assert problem.message == "unknown table 'dayly' in the schema 'public' (did you mean 'daily'?)"


def test_create_if_missing_without_a_postgres_connection_says_so_and_prints_the_statement(sb: PostgrestStandIn
                                                                                          ) -> None:
    rows = "SELECT 1::BIGINT AS id, 'x' AS name, 2.5::DECIMAL(8,2) AS price, {'a': 1} AS extra, DATE '2024-01-01' AS d"
    problem = fails(write, sb, rows, table="products", write_mode="upsert", primary_key="id", create_if_missing=True)
    assert (problem.code, problem.message) == (
        "OML501", "table 'products' does not exist, and create_if_missing needs the project's Postgres connection "
                  "to create it")
    assert problem.hint == ('add pg_dsn (or host, port, database, user and password) in the step\'s supabase '
                            'connection, or create it in the Supabase SQL editor: CREATE TABLE "public"."products" '
                            '("id" bigint, "name" text, "price" numeric(8,2), "extra" jsonb, "d" date, '
                            'PRIMARY KEY ("id"));')
    assert pg(sb, "SELECT to_regclass('products') IS NULL") == [(True,)]


@pytest.mark.parametrize("status", [401, 403, 404])
def test_discover_falls_back_to_the_known_tables_when_the_openapi_root_is_closed(sb: PostgrestStandIn,
                                                                                 status: int) -> None:
    reset(sb, "CREATE TABLE notes (id int, meta jsonb, note text); "  # SETUP drops it
              "INSERT INTO notes VALUES (1, '{\"a\": 1}', NULL)")
    sb.openapi_open, sb.openapi_closed_status = False, status
    try:
        tables = driver_for("supabase.extractor").discover(as_discovered(sb, tables=["users", "notes"]),
                                                           None)
    finally:
        sb.openapi_open, sb.openapi_closed_status = True, 401
    assert [(t.name, [(c.name, c.type) for c in t.columns]) for t in tables] == [
        ("notes", [("id", "integer"), ("meta", "json"), ("note", "unknown")]),
        ("users", [("id", "integer"), ("name", "string"), ("score", "number")])]
    assert [(r.path, r.query) for r in sb.requests] == [("/rest/v1/", {}),
                                                        ("/rest/v1/users", {"select": "*", "limit": "1"}),
                                                        ("/rest/v1/notes", {"select": "*", "limit": "1"})]


def test_discover_with_a_closed_root_and_no_known_tables_is_oml506(sb: PostgrestStandIn) -> None:
    sb.openapi_open = False
    try:
        problem = fails(driver_for("supabase.extractor").discover, as_discovered(sb), None)
    finally:
        sb.openapi_open = True
    assert problem.message == f"authentication failed: GET {sb.url}/rest/v1/ answered 401 Unauthorized"


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    from osiris.run import http

    recorded: list[float] = []
    monkeypatch.setattr(http, "sleep", recorded.append)
    return recorded


def test_an_append_is_not_retried_after_a_5xx(sb: PostgrestStandIn, waits: list[float]) -> None:
    sb.fail_posts = 1
    problem = fails(write, sb, NEW_ROWS.replace("range(20, 30)", "range(100, 103)"), table="users", retries=3)
    assert (problem.code, problem.message) == ("OML508", f"HTTP 500 Internal Server Error from POST "
                                                          f"{sb.url}/rest/v1/users")
    assert "Not retried: the server may have written the rows already." in problem.hint
    assert [r.method for r in sb.requests].count("POST") == 1
    assert waits == []


def test_an_upsert_is_retried_after_a_5xx(sb: PostgrestStandIn, waits: list[float]) -> None:
    sb.fail_posts = 1
    outcome = write(sb, NEW_ROWS, table="users", write_mode="upsert", primary_key="id", retries=3)
    assert outcome.rows_out == 10
    assert [r.method for r in sb.requests].count("POST") == 2
    assert waits == [1.0]
    assert pg(sb, "SELECT count(*) FROM users") == [(29,)]


def test_without_retries_a_failing_upsert_is_tried_four_times_as_the_spec_says(sb: PostgrestStandIn,
                                                                              waits: list[float]) -> None:
    sb.fail_posts = 10
    try:
        problem = fails(write, sb, NEW_ROWS, table="users", write_mode="upsert", primary_key="id")
    finally:
        sb.fail_posts = 0
    assert problem.message == f"HTTP 500 Internal Server Error from POST {sb.url}/rest/v1/users after 3 retries"
    assert [r.method for r in sb.requests].count("POST") == 4  # retries: 3 is the spec's default
    assert len(waits) == 3


def test_discover_of_an_empty_known_table_behind_a_closed_root_has_no_columns(sb: PostgrestStandIn) -> None:
    sb.openapi_open = False
    try:
        tables = driver_for("supabase.extractor").discover(as_discovered(sb, tables=["daily"]), None)
    finally:
        sb.openapi_open = True
    assert [(t.name, t.columns, t.primary_key) for t in tables] == [("daily", [], [])]


def test_a_server_max_rows_below_limit_still_reads_every_row(sb: PostgrestStandIn) -> None:
    sb.max_rows = 4
    try:
        _, rows = read(sb, table="users", limit=10, order="id")
    finally:
        sb.max_rows = None
    assert [r[0] for r in rows] == list(range(1, 26))
    assert [r.query["offset"] for r in sb.requests] == ["0", "4", "8", "12", "16", "20", "24"]


def test_a_small_table_is_read_in_two_requests(sb: PostgrestStandIn) -> None:
    _, rows = read(sb, table="users", filter={"id": "lte.3"})
    assert len(rows) == 3
    assert [r.query["offset"] for r in sb.requests] == ["0", "3"]  # the second confirms the end
    assert sb.requests[0].query["limit"] == "1000"  # the default page


def test_rows_that_are_not_a_list_are_oml515_naming_the_url(sb: PostgrestStandIn) -> None:
    sb.object_pages = True
    try:
        problem = fails(read, sb, table="users")
    finally:
        sb.object_pages = False
    assert (problem.code, problem.message) == ("OML515", f"invalid API response from {sb.url}/rest/v1/users: "
                                                          "not a list of rows")

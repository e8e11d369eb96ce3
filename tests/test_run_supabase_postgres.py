"""supabase.writer's Postgres path: a connection with `pg_dsn` (or host, database, user, password)
writes through the project's database in one transaction, and creates missing tables.

The database is the real PostgreSQL 15 behind the PostgREST-COMPATIBLE STAND-IN of
tests/servers/postgrest.py (the real Supabase cannot be installed here); every table, type and row
is checked in PostgreSQL itself, and `xmin` shows which transaction wrote each row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import psycopg
import pytest
import yaml

from osiris.run.driver import RuntimeProblem, StepContext, StepOutcome
from osiris.run.drivers import driver_for
from osiris.run.drivers.supabase_postgres import database_fields
from tests.run_helpers import RunProject
from tests.servers.postgrest import KEY, PostgrestStandIn, reset
from tests.effective_config import effective
from tests.test_run_supabase import pg, standin  # noqa: F401 (standin: the module's stand-in fixture)

SETUP = """
DROP TABLE IF EXISTS users, products;
CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL, score numeric);
INSERT INTO users SELECT g, 'user' || g, g * 1.5 FROM generate_series(1, 25) g;
"""
NEW_ROWS = "SELECT i AS id, 'new' || i AS name FROM range(20, 30) t(i)"  # 20..25 exist, 26..29 do not
PRODUCTS = ("SELECT i::BIGINT AS id, 'p' || i AS name, (i + 0.25)::DECIMAL(8,2) AS price, {'a': i} AS extra, "
            "[i, i] AS tags, DATE '2024-01-01' + i::int AS day, i % 2 = 0 AS even, "
            "TIMESTAMP '2024-01-01 10:00:00' AS at FROM range(1, 4) t(i)")


@pytest.fixture
def sb(standin: PostgrestStandIn) -> PostgrestStandIn:
    return reset(standin, SETUP)


def fingerprint(sb: PostgrestStandIn) -> tuple:
    return pg(sb, "SELECT count(*), md5(string_agg(id || ':' || name || ':' || coalesce(score::text, '-'), ','"
                  " ORDER BY id)) FROM users")[0]


def write(sb: PostgrestStandIn, rows_sql: str, sample: int | None = None, **config: Any) -> StepOutcome:
    con = duckdb.connect()
    con.execute(f"CREATE TABLE df_src AS {rows_sql}")
    fields = effective("supabase.writer", {"url": sb.url, "key": KEY, "pg_dsn": sb.dsn, **config})
    ctx = StepContext("put", "supabase.writer", "write", fields, con, "df_put", {"src": "df_src"}, sample=sample,
                      secrets=(KEY,))
    return driver_for("supabase.writer").run(ctx)


def fails(call: Any, *args: Any, **kwargs: Any) -> RuntimeProblem:
    with pytest.raises(RuntimeProblem) as caught:
        call(*args, **kwargs)
    password = psycopg.conninfo.conninfo_to_dict(args[0].dsn)["password"]
    for secret in (KEY, password):
        assert secret not in caught.value.message and secret not in caught.value.hint
    return caught.value


def test_create_if_missing_creates_the_table_with_the_inputs_types_and_writes_the_rows(sb: PostgrestStandIn) -> None:
    outcome = write(sb, PRODUCTS, table="products", write_mode="upsert", primary_key="id", create_if_missing=True)
    assert (outcome.rows_in, outcome.rows_out) == (3, 3)
    assert pg(sb, "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                  "WHERE a.attrelid = 'products'::regclass AND a.attnum > 0 ORDER BY a.attnum") == [
        ("id", "bigint"), ("name", "text"), ("price", "numeric(8,2)"), ("extra", "jsonb"), ("tags", "jsonb"),
        ("day", "date"), ("even", "boolean"), ("at", "timestamp without time zone")]
    assert pg(sb, "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                  "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'products'::regclass AND i.indisprimary") == [
        ("id",)]
    assert pg(sb, "SELECT id, price::text, extra, tags, day::text, even FROM products WHERE id = 2") == [
        (2, "2.25", {"a": 2}, [2, 2], "2024-01-03", True)]
    assert sb.requests == []  # nothing went over REST


def test_a_failed_write_leaves_no_created_table_behind(sb: PostgrestStandIn) -> None:
    problem = fails(write, sb, "SELECT 1 AS id UNION ALL SELECT NULL", table="products", primary_key="id",
                    create_if_missing=True)
    assert problem.code == "OML514"
    assert pg(sb, "SELECT to_regclass('products') IS NULL") == [(True,)]


def test_a_step_may_not_set_pg_dsn_inline() -> None:
    from osiris.registry import load_registry
    from osiris.validate import Validator

    read = {"id": "r", "component": "filesystem.csv_extractor", "mode": "read", "config": {"path": "a.csv"}}
    step = {"id": "w", "component": "supabase.writer", "mode": "write",
            "config": {"connection": "@supabase.sb", "table": "t", "pg_dsn": "postgresql://u:Inline-pw-7@h/db"}}
    text = yaml.safe_dump({"oml_version": "0.1.0", "name": "x", "steps": [read, step]})
    report = Validator(load_registry(), {"supabase": {"sb": {"url": "https://a.supabase.co"}}}).validate(text)
    assert [(i.code, i.message) for i in report.issues if i.severity == "error"] == [
        ("OML310", "secret field 'pg_dsn' is written inline in the pipeline")]


def test_create_if_missing_false_is_oml501_from_the_database(sb: PostgrestStandIn) -> None:
    problem = fails(write, sb, PRODUCTS, table="products")
    assert (problem.code, problem.message) == ("OML501", 'table "products" does not exist')
    assert pg(sb, "SELECT to_regclass('products') IS NULL") == [(True,)]


@pytest.mark.parametrize("mode", ["replace", "upsert"])
def test_twice_each_write_is_one_transaction(sb: PostgrestStandIn, mode: str) -> None:
    write(sb, NEW_ROWS, table="users", write_mode=mode, primary_key="id", batch_size=3)
    write(sb, NEW_ROWS.replace("'new'", "'newer'"), table="users", write_mode=mode, primary_key="id", batch_size=3)
    expected = [(10,)] if mode == "replace" else [(29,)]
    assert pg(sb, "SELECT count(*) FROM users") == expected
    kept = None if mode == "replace" else 30.0  # an upsert keeps the columns the input lacks
    assert pg(sb, "SELECT name, score::float8 FROM users WHERE id IN (20, 29) ORDER BY id") == [
        ("newer20", kept), ("newer29", None)]
    # The second write's ten rows (four batches) carry one transaction id.
    assert pg(sb, "SELECT count(DISTINCT xmin::text) FROM users WHERE name LIKE 'newer%'") == [(1,)]
    if mode == "upsert":
        assert pg(sb, "SELECT name FROM users WHERE id = 19") == [("user19",)]


def test_an_upsert_with_ignore_duplicates_keeps_existing_rows(sb: PostgrestStandIn) -> None:
    write(sb, NEW_ROWS, table="users", write_mode="upsert", primary_key="id", prefer="resolution=ignore-duplicates")
    assert pg(sb, "SELECT count(*) FROM users") == [(29,)]
    assert pg(sb, "SELECT id, name FROM users WHERE id IN (25, 26) ORDER BY id") == [(25, "user25"), (26, "new26")]


@pytest.mark.parametrize("mode", ["append", "replace", "upsert"])
def test_a_failure_mid_write_leaves_the_table_as_it_was(sb: PostgrestStandIn, mode: str) -> None:
    before = fingerprint(sb)
    rows = ("SELECT i AS id, CASE WHEN i = 108 THEN NULL ELSE 'x' || i END AS name FROM range(100, 110) t(i) "
            "ORDER BY i")
    problem = fails(write, sb, rows, table="users", write_mode=mode, primary_key="id", batch_size=2)
    assert problem.code == "OML514"
    assert problem.message.startswith('the target rejected the rows: null value in column "name"')
    assert fingerprint(sb) == before


@pytest.mark.parametrize("mode", ["append", "replace", "upsert"])
def test_a_sample_changes_nothing_and_says_what_it_proved(sb: PostgrestStandIn, mode: str) -> None:
    before = fingerprint(sb)
    rows = NEW_ROWS.replace("range(20, 30)", "range(30, 40)")  # new keys: an append must succeed
    outcome = write(sb, rows, sample=5, table="users", write_mode=mode, primary_key="id")
    assert fingerprint(sb) == before
    verb = {"append": "appended to", "upsert": "upserted into", "replace": "written, replacing all rows of"}[mode]
    assert outcome.warnings == [f"sample: nothing was written; 10 rows would be {verb} 'users' (written in one "
                                "transaction and rolled back: table, columns, keys, types and constraints proven)"]
    assert (outcome.rows_in, outcome.rows_out) == (10, 0)


def test_a_sample_with_create_if_missing_leaves_no_table(sb: PostgrestStandIn) -> None:
    write(sb, PRODUCTS, sample=5, table="products", primary_key="id", create_if_missing=True)
    assert pg(sb, "SELECT to_regclass('products') IS NULL") == [(True,)]


def test_a_sample_finds_a_constraint_the_rest_checks_cannot(sb: PostgrestStandIn) -> None:
    before = fingerprint(sb)
    problem = fails(write, sb, "SELECT 99 AS id, NULL::VARCHAR AS name", sample=5, table="users")
    assert problem.code == "OML514"
    assert fingerprint(sb) == before


def test_http_sql_is_not_supported_in_one_line(sb: PostgrestStandIn) -> None:
    problem = fails(write, sb, PRODUCTS, table="products", create_if_missing=True, ddl_channel="http_sql")
    assert (problem.code, problem.message) == (
        "OML501", "table 'products' does not exist, and ddl_channel 'http_sql' is not supported: Osiris creates "
                  "Supabase tables only through the project's Postgres connection")
    assert problem.hint.startswith("use ddl_channel: auto with pg_dsn (or host, port, database, user and password)")
    assert pg(sb, "SELECT to_regclass('products') IS NULL") == [(True,)]


def test_a_wrong_database_password_is_oml506_and_never_shown(sb: PostgrestStandIn) -> None:
    wrong = sb.dsn.replace("password=", "password=Wrong-") + " "
    with pytest.raises(RuntimeProblem) as caught:
        write(sb, NEW_ROWS, table="users", pg_dsn=wrong)
    assert caught.value.code == "OML506"
    assert "Wrong-" not in caught.value.message + caught.value.hint


def test_a_dsn_that_does_not_parse_is_named_without_its_text(sb: PostgrestStandIn) -> None:
    problem = fails(write, sb, NEW_ROWS, table="users", pg_dsn="host=x password='Unclosed-Secret-9")
    assert (problem.code, problem.message) == (
        "OML521", "pg_dsn of the supabase connection is not a PostgreSQL connection string")
    assert "Unclosed-Secret-9" not in problem.hint


@pytest.mark.parametrize("config, expected", [
    ({"pg_dsn": "postgresql://u:p%40ss@db.x.supabase.co:6543/postgres?sslmode=require"},
     {"host": "db.x.supabase.co", "port": "6543", "database": "postgres", "user": "u", "password": "p@ss",
      "sslmode": "require"}),
    ({"dsn": "host=h dbname=d user=u"}, {"host": "h", "database": "d", "user": "u", "sslmode": "require"}),
    ({"sql_dsn": "host=127.0.0.1 dbname=d user=u"}, {"host": "127.0.0.1", "database": "d", "user": "u"}),
    ({"dsn": "host=h dbname=d user=u sslmode=disable"}, {"host": "h", "database": "d", "user": "u", "sslmode": "disable"}),
    ({"pg_host": "h", "pg_port": 6543, "pg_database": "d", "pg_user": "u", "pg_password": "p", "host": "other"},
     {"host": "h", "port": 6543, "database": "d", "user": "u", "password": "p", "sslmode": "require"}),
    ({"host": "localhost", "database": "d", "user": "u", "password": "p"},
     {"host": "localhost", "database": "d", "user": "u", "password": "p"}),
    ({"host": "h", "database": "d"}, None),
    ({"url": "https://x.supabase.co", "key": KEY}, None),
])
def test_the_database_fields_public_osiris_accepts(config: dict[str, Any], expected: dict[str, Any] | None) -> None:
    assert database_fields(config) == expected


# --- through `osiris run`: what the person sees ----------------------------------------------------

@pytest.fixture
def proj(tmp_path: Path, sb: PostgrestStandIn) -> RunProject:
    project = RunProject(tmp_path / "project")
    password = psycopg.conninfo.conninfo_to_dict(sb.dsn)["password"]
    project.env.update({"SUPABASE_KEY": KEY, "SUPABASE_DB": sb.dsn})
    project.secrets += [KEY, password]
    return project


def use_supabase(proj: RunProject, sb: PostgrestStandIn, **fields: Any) -> None:
    alias = {"url": sb.url, "key": "${SUPABASE_KEY}", **fields}
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"supabase": {"sb": alias}}}),
                                            encoding="utf-8")


def products_pipeline(proj: RunProject) -> Path:
    return proj.pipeline([
        {"id": "make", "component": "duckdb.processor", "mode": "transform",
         "config": {"query": "SELECT 1::BIGINT AS id, 'x' AS name"}},
        {"id": "write", "component": "supabase.writer", "mode": "write", "needs": ["make"],
         "config": {"connection": "@supabase.sb", "table": "products", "write_mode": "upsert", "primary_key": "id",
                    "create_if_missing": True}}])


def test_without_a_postgres_connection_the_run_says_ddl_needs_one(proj: RunProject, sb: PostgrestStandIn) -> None:
    use_supabase(proj, sb)
    path = products_pipeline(proj)
    result = proj.run(str(path))
    assert result.returncode != 0
    assert (f"{path} OML501 step 'write': table 'products' does not exist, and create_if_missing needs the "
            "project's Postgres connection to create it\n") in result.stderr
    assert pg(sb, "SELECT to_regclass('products') IS NULL") == [(True,)]


def test_with_pg_dsn_in_the_connection_the_run_creates_the_table(proj: RunProject, sb: PostgrestStandIn) -> None:
    use_supabase(proj, sb, pg_dsn="${SUPABASE_DB}")
    result = proj.run(str(products_pipeline(proj)))
    assert result.returncode == 0, result.stderr
    assert pg(sb, "SELECT id, name FROM products") == [(1, "x")]

"""The PostgreSQL drivers' edges against a real PostgreSQL 15, from what mutation testing left
unpinned: the DuckDB type of each PostgreSQL column type, and the OML5xx line of each kind of
failure a person meets (connection, SQL, types)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.run_helpers import RunProject, pg_step
from tests.test_run_postgres import pg  # noqa: F401  (the fixture)

TYPES = ("flag boolean, big bigint, small smallint, whole integer, ident oid, r real, d double precision, "
         "day date, at_time time, at timestamp, at_tz timestamptz, u uuid, price numeric(8,2), "
         "widest numeric(38,4), too_wide numeric(39,2), any_numeric numeric, t text, j jsonb")
DUCKDB_TYPES = [
    ("flag", "BOOLEAN"), ("big", "BIGINT"), ("small", "SMALLINT"), ("whole", "INTEGER"), ("ident", "BIGINT"),
    ("r", "FLOAT"), ("d", "DOUBLE"), ("day", "DATE"), ("at_time", "TIME"), ("at", "TIMESTAMP"),
    ("at_tz", "TIMESTAMP WITH TIME ZONE"), ("u", "UUID"), ("price", "DECIMAL(8,2)"), ("widest", "DECIMAL(38,4)"),
    ("too_wide", "DECIMAL(3,2)"), ("any_numeric", "DECIMAL(2,1)"),  # wide or unconstrained numerics: the DECIMAL
    ("t", "VARCHAR"), ("j", "JSON")]                                    # that holds the values read (issue 35)


@pytest.fixture
def proj(tmp_path: Path, postgres_server, pg) -> RunProject:  # noqa: F811
    pg.execute("DROP TABLE IF EXISTS typed")
    return RunProject(tmp_path / "project", postgres=postgres_server)


def test_each_postgres_column_type_reads_as_its_duckdb_type(proj, pg):  # noqa: F811
    pg.execute(f"CREATE TABLE typed ({TYPES})")
    pg.execute("INSERT INTO typed VALUES (true, 1, 2, 3, 4, 1.5, 2.5, '2024-01-02', '03:04:05', '2024-01-02 03:04:05', "
               "'2024-01-02 03:04:05+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1.25, 1.5, 2.5, 3.5, 'x', '{}')")
    result = proj.run(str(proj.pipeline([pg_step("read", "read", table="typed")])))
    assert result.returncode == 0, result.stderr
    assert proj.step_columns("read") == DUCKDB_TYPES


def test_any_other_database_error_is_the_sql_rejected(proj):
    path, stderr = proj.run_failing([pg_step("read", "read", query="SELECT no_such_function(1) AS x")])
    assert (f"{path} OML503 step 'read': the database rejected the SQL: function no_such_function(integer) "
            "does not exist\n") in stderr


def test_a_write_to_a_missing_table_is_oml501_and_creates_nothing(proj, pg):
    path, stderr = proj.run_failing([proj.csv_rows("id,t\n1,a\n"), pg_step("write", "write", table="typed")])
    assert f"{path} OML501 step 'write': table \"typed\" does not exist\n" in stderr
    assert pg.execute("SELECT to_regclass('public.typed')").fetchone() == (None,)


def test_a_write_of_a_column_the_table_lacks_is_oml502_and_writes_nothing(proj, pg):
    pg.execute("CREATE TABLE typed (id integer, t text)")
    path, stderr = proj.run_failing([proj.csv_rows("id,tt\n1,a\n"), pg_step("write", "write", table="typed")])
    assert f"{path} OML502 step 'write': column \"tt\" does not exist in public.typed\n" in stderr
    assert pg.execute("SELECT count(*) FROM typed").fetchone() == (0,)


def test_an_invalid_column_reference_outside_an_upsert_is_the_sql_rejected(proj, pg):
    pg.execute("CREATE TABLE typed (id integer, t text)")
    path, stderr = proj.run_failing([pg_step("read", "read", query="SELECT DISTINCT id FROM typed ORDER BY t")])
    assert (f"{path} OML503 step 'read': the database rejected the SQL: for SELECT DISTINCT, ORDER BY expressions "
            "must appear in select list") in stderr


def test_a_wrong_column_of_a_read_table_names_the_tables_columns(proj, pg):
    pg.execute("CREATE TABLE typed (id integer, email text)")
    path, stderr = proj.run_failing([pg_step("read", "read", table="typed", columns=["id", "emial"])])
    assert (f"{path} OML502 step 'read': column \"emial\" does not exist\n"
            "    hint: columns the database knows: email, id (did you mean 'email'?)\n") in stderr


def test_an_operator_between_wrong_types_is_a_type_problem(proj, pg):
    pg.execute("CREATE TABLE typed (id integer, t text)")
    path, stderr = proj.run_failing([pg_step("read", "read", query="SELECT t + 1 AS x FROM typed")])
    assert (f"{path} OML504 step 'read': a value does not fit its column's type: operator does not exist: "
            "text + integer") in stderr


def add_alias(proj: RunProject, alias: str, drop: tuple[str, ...] = (), **fields: object) -> None:
    """connections.postgres.ALIAS: the default connection without `drop` and with `fields` changed."""
    settings_file = proj.root / ".osiris.yaml"
    settings = yaml.safe_load(settings_file.read_text(encoding="utf-8"))
    default = settings["connections"]["postgres"]["default"]
    settings["connections"]["postgres"][alias] = {**{k: v for k, v in default.items() if k not in drop}, **fields}
    settings_file.write_text(yaml.safe_dump(settings), encoding="utf-8")


def test_an_unknown_database_is_a_connection_problem_naming_it(proj, postgres_server):
    add_alias(proj, "nodb", database="no_such_db")
    path, stderr = proj.run_failing([pg_step("read", "read", table="typed", connection="@postgres.nodb")])
    assert (f"{path} OML505 step 'read': cannot connect to postgres at {postgres_server.host}:{postgres_server.port}: "
            "the database 'no_such_db' does not exist\n") in stderr


def test_a_connection_without_a_port_is_tried_at_5432(proj):
    add_alias(proj, "portless", drop=("port",), host="no-such-host.invalid")
    path, stderr = proj.run_failing([pg_step("read", "read", table="typed", connection="@postgres.portless")])
    assert f"{path} OML505 step 'read': cannot connect to postgres at no-such-host.invalid:5432: unknown host\n" in stderr

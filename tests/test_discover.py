"""`osiris discover`: a CSV file sniffed with DuckDB, real PostgreSQL and MariaDB through the runtime's
drivers, the catalog files it writes (no secrets, 0600), --refresh, --list, --json and its errors."""

from __future__ import annotations

import json
import re
import stat
from datetime import datetime, timedelta, UTC
from pathlib import Path
from typing import Any

import pytest
import yaml

from osiris.catalog import Catalog, write_catalog
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py
from tests.support import clean_env

STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".osiris.yaml").write_text("llm: {provider: demo}\n")
    return project


def discover(root: Path, *args: str, **env: str) -> Any:
    return run_osiris("discover", *args, cwd=root, env=clean_env(**env))


def catalog_file(root: Path, name: str) -> dict[str, Any]:
    return json.loads((root / ".osiris" / "catalog" / f"{name}.json").read_text())


def configure(root: Path, family: str, server: Any, password: str = "${DB_PASSWORD}") -> None:
    fields = {**server.connection(), "password": password}
    (root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {family: {"default": fields}}}))


# --- CSV files -------------------------------------------------------------------------------------

def test_a_csv_file_becomes_a_catalog_with_duckdb_types(root: Path) -> None:
    (root / "data").mkdir()
    (root / "data" / "orders.csv").write_text("id,email,total,placed\n1,a@x.io,9.5,2026-01-02\n2,,12,2026-01-03\n")
    done = discover(root, "data/orders.csv")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == ".osiris/catalog/csv.orders.json: 1 table (orders)\n"
    written = catalog_file(root, "csv.orders")
    assert STAMP.match(written.pop("discovered_at"))
    assert written == {"connection": "data/orders.csv", "family": "csv", "tables": {"orders": {
        "columns": [{"name": "id", "type": "BIGINT", "nullable": True},
                    {"name": "email", "type": "VARCHAR", "nullable": True},
                    {"name": "total", "type": "DOUBLE", "nullable": True},
                    {"name": "placed", "type": "DATE", "nullable": True}],
        "primary_key": []}}}
    path = root / ".osiris" / "catalog" / "csv.orders.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_an_existing_catalog_is_kept_until_refresh(root: Path) -> None:
    csv = root / "people.csv"
    csv.write_text("id,name\n1,Ada\n")
    assert discover(root, "people.csv").returncode == 0
    csv.write_text("id,name,age\n1,Ada,36\n")
    again = discover(root, "people.csv")
    assert again.returncode == 0
    assert again.stderr.startswith("osiris: the catalog csv.people exists (1 table, discovered ")
    assert again.stderr.endswith(" ago); use --refresh to read it again\n")
    assert [c["name"] for c in catalog_file(root, "csv.people")["tables"]["people"]["columns"]] == ["id", "name"]
    refreshed = discover(root, "people.csv", "--refresh", "--json")
    assert refreshed.returncode == 0
    shown = json.loads(refreshed.stdout)
    assert (shown["catalog"], shown["path"]) == ("csv.people", ".osiris/catalog/csv.people.json")
    assert [c["name"] for c in shown["tables"]["people"]["columns"]] == ["id", "name", "age"]
    assert shown["tables"] == catalog_file(root, "csv.people")["tables"]


def test_list_shows_each_catalog_its_tables_and_age(root: Path) -> None:
    old = (datetime.now(UTC) - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    write_catalog(root, Catalog("mysql.default", "mysql", "@mysql.default", old,
                                {"a": {"columns": [], "primary_key": []}, "b": {"columns": [], "primary_key": []}}))
    (root / "x.csv").write_text("k\n1\n")
    assert discover(root, "x.csv").returncode == 0
    listed = discover(root, "--list")
    assert listed.returncode == 0
    assert listed.stdout.splitlines() == [
        "CATALOG        SOURCE          TABLES  AGE",
        "csv.x          x.csv           1       less than a minute",
        "mysql.default  @mysql.default  2       30 days (stale)",
    ]
    as_json = json.loads(discover(root, "--list", "--json").stdout)["catalogs"]
    assert [(c["name"], c["tables"], c["stale"]) for c in as_json] == [("csv.x", 1, False), ("mysql.default", 2, True)]
    assert as_json[1]["discovered_at"] == old


def test_list_without_catalogs_says_how_to_make_one(root: Path) -> None:
    listed = discover(root, "--list")
    assert (listed.returncode, listed.stdout) == (0, "")
    assert listed.stderr == "no catalogs yet: run osiris discover @family.alias or osiris discover FILE.csv\n"


@pytest.mark.parametrize("args, message", [
    ((), "osiris: error: name a connection (@family.alias) or a CSV file, or use --list\n"),
    (("@mysql.default",), "osiris: error: connection '@mysql.default' is not configured "
                          "(add connections.mysql.default to .osiris.yaml)\n"),
    (("@mysql",), "osiris: error: '@mysql' is not a connection reference; write it as @family.alias, "
                  "e.g. @mysql.default\n"),
    (("missing.csv",), "osiris: error: cannot read missing.csv: no such file\n"),
    (("--list", "@mysql.default"), "osiris: error: --list takes no connection or file\n"),
])
def test_usage_errors_are_one_line_and_exit_2(root: Path, args: tuple[str, ...], message: str) -> None:
    done = discover(root, *args)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)


def test_an_unset_environment_reference_is_a_usage_error(root: Path) -> None:
    (root / ".osiris.yaml").write_text(
        "connections:\n  mysql:\n    default: {host: h, database: d, user: u, password: \"${NOT_SET_PW}\"}\n")
    done = discover(root, "@mysql.default")
    # no `keyring set` advice: the tests' keyring is unusable, as `osiris auth status` would say (issue 30)
    assert (done.returncode, done.stderr) == (2, "osiris: error: connection '@mysql.default' field 'password' "
                                                 "refers to ${NOT_SET_PW}, which is not set; set the environment "
                                                 "variable NOT_SET_PW in the shell that runs osiris (its value is "
                                                 "never written anywhere); this machine has no usable system keyring "
                                                 "to store it in\n")


def test_a_file_duckdb_cannot_read_exits_6(root: Path) -> None:
    (root / "bin.csv").write_bytes(b"\x00\x01\x02\xff\xfe")
    done = discover(root, "bin.csv")
    assert done.returncode == 6
    assert done.stderr.startswith("osiris: error: cannot read bin.csv as CSV: ")
    assert len(done.stderr.splitlines()) == 1
    assert not (root / ".osiris" / "catalog" / "csv.bin.json").exists()


# --- real databases, through the runtime's drivers ---------------------------------------------------

def _assert_no_secret(root: Path, done: Any, password: str) -> None:
    assert password not in done.stdout + done.stderr
    for path in (root / ".osiris").rglob("*"):
        if path.is_file():
            assert password not in path.read_text(errors="replace"), path


def test_discover_postgres_tables_columns_types_and_keys(root: Path, postgres_server: Any) -> None:
    import psycopg

    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS d13_orders, d13_customers")
        con.execute("CREATE TABLE d13_customers (id integer PRIMARY KEY, email varchar(255) NOT NULL, active boolean)")
        con.execute("CREATE TABLE d13_orders (id integer, line integer, total numeric(10,2), PRIMARY KEY (id, line))")
    configure(root, "postgres", postgres_server)
    done = discover(root, "@postgres.default", "d13_customers", "d13_orders", DB_PASSWORD=postgres_server.password)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ".osiris/catalog/postgres.default.json: 2 tables (d13_customers, d13_orders)\n"
    written = catalog_file(root, "postgres.default")
    assert (written["connection"], written["family"]) == ("@postgres.default", "postgres")
    customers = written["tables"]["d13_customers"]
    assert [(c["name"], c["nullable"]) for c in customers["columns"]] == [("id", False), ("email", False), ("active", True)]
    assert "int" in customers["columns"][0]["type"].lower() and "char" in customers["columns"][1]["type"].lower()
    assert customers["primary_key"] == ["id"]
    assert written["tables"]["d13_orders"]["primary_key"] == ["id", "line"]
    _assert_no_secret(root, done, postgres_server.password)


def test_discover_postgres_keeps_enum_values_and_defaults_and_the_prompt_shows_them(root: Path,
                                                                                    postgres_server: Any) -> None:
    """Issue 41: a request that says "use the column's default" or filters on an enum gets the facts."""
    import psycopg

    from osiris.catalog import list_catalogs
    from osiris.prompt.schema import schema_section

    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS d41_tickets")
        con.execute("DROP TYPE IF EXISTS d41_mood")
        con.execute("CREATE TYPE d41_mood AS ENUM ('happy', 'sad', 'so-so')")
        con.execute("CREATE TABLE d41_tickets (id integer PRIMARY KEY, mood d41_mood NOT NULL DEFAULT 'happy', "
                    "status text DEFAULT 'new', note text)")
    configure(root, "postgres", postgres_server)
    done = discover(root, "@postgres.default", "d41_tickets", DB_PASSWORD=postgres_server.password)
    assert done.returncode == 0, done.stderr
    columns = catalog_file(root, "postgres.default")["tables"]["d41_tickets"]["columns"]
    assert columns == [
        {"name": "id", "type": "integer", "nullable": False},
        {"name": "mood", "type": "d41_mood", "nullable": False, "default": "'happy'::d41_mood",
         "values": ["happy", "sad", "so-so"]},
        {"name": "status", "type": "text", "nullable": True, "default": "'new'::text"},
        {"name": "note", "type": "text", "nullable": True}]
    section = schema_section("the d41_tickets with their mood", list_catalogs(root), 500)
    assert ("  d41_tickets(id integer PK, mood d41_mood [happy|sad|so-so] default 'happy'::d41_mood, status text "
            "default 'new'::text, note text)") in section


def test_discover_mariadb_keeps_enum_values_and_defaults(root: Path, mariadb_server: Any) -> None:
    mariadb_server.execute("DROP TABLE IF EXISTS d41_books",
                           "CREATE TABLE d41_books (id INT PRIMARY KEY, kind ENUM('paper','ebook') NOT NULL DEFAULT "
                           "'paper', pages INT DEFAULT 100, title VARCHAR(50))")
    configure(root, "mysql", mariadb_server)
    done = discover(root, "@mysql.default", "d41_books", DB_PASSWORD=mariadb_server.password)
    assert done.returncode == 0, done.stderr
    columns = {c["name"]: c for c in catalog_file(root, "mysql.default")["tables"]["d41_books"]["columns"]}
    assert columns["kind"]["type"] == "enum('paper','ebook')"  # MySQL's own type names its values
    assert (columns["kind"]["default"], columns["pages"]["default"]) in (("'paper'", "100"), ("paper", "100"))
    assert "default" not in columns["title"] and "default" not in columns["id"]  # NULL or none: no default


def test_discover_postgres_with_a_wrong_password_exits_6_without_the_password(root: Path, postgres_server: Any) -> None:
    configure(root, "postgres", postgres_server)
    wrong = "Wrong-Planted-Pw-8812"
    done = discover(root, "@postgres.default", DB_PASSWORD=wrong)
    assert done.returncode == 6
    assert done.stderr.startswith("osiris: error: cannot discover @postgres.default: ")
    assert len(done.stderr.splitlines()) == 1
    _assert_no_secret(root, done, wrong)
    assert not (root / ".osiris" / "catalog").exists()


def test_discover_mariadb_then_validate_against_the_catalog(root: Path, mariadb_server: Any) -> None:
    mariadb_server.execute("DROP TABLE IF EXISTS d13_customers",
                           "CREATE TABLE d13_customers (id INT PRIMARY KEY, email VARCHAR(255) NOT NULL, active TINYINT(1))")
    configure(root, "mysql", mariadb_server)
    done = discover(root, "@mysql.default", "d13_customers", DB_PASSWORD=mariadb_server.password)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ".osiris/catalog/mysql.default.json: 1 table (d13_customers)\n"
    table = catalog_file(root, "mysql.default")["tables"]["d13_customers"]
    assert [c["name"] for c in table["columns"]] == ["id", "email", "active"]
    assert table["primary_key"] == ["id"]
    assert "varchar" in table["columns"][1]["type"].lower()
    _assert_no_secret(root, done, mariadb_server.password)

    (root / "p.yaml").write_text(
        'oml_version: "0.1.0"\nname: emails\nsteps:\n  - id: extract\n    component: mysql.extractor\n'
        '    mode: read\n    config:\n      connection: "@mysql.default"\n'
        '      query: SELECT id, emial FROM d13_customers\n')
    checked = run_osiris("validate", "p.yaml", cwd=root, env=clean_env())
    assert checked.returncode == 1
    assert checked.stdout.splitlines()[0] == (
        "p.yaml:9:25 OML406 column 'emial' is not a column of d13_customers (the catalog of @mysql.default)")


def test_discover_mariadb_refresh_and_adding_tables(root: Path, mariadb_server: Any) -> None:
    sql = mariadb_server.execute

    sql("DROP TABLE IF EXISTS d13_a", "DROP TABLE IF EXISTS d13_b",
        "CREATE TABLE d13_a (id INT)", "CREATE TABLE d13_b (id INT)")
    configure(root, "mysql", mariadb_server)
    env = {"DB_PASSWORD": mariadb_server.password}
    assert discover(root, "@mysql.default", "d13_a", **env).returncode == 0
    sql("ALTER TABLE d13_a ADD COLUMN note TEXT")
    kept = discover(root, "@mysql.default", "d13_a", **env)
    assert kept.returncode == 0 and "use --refresh" in kept.stderr
    added = discover(root, "@mysql.default", "d13_b", "d13_nope", **env)
    assert added.returncode == 0
    assert added.stderr == "osiris: warning: table 'd13_nope' was not found on @mysql.default\n"
    tables = catalog_file(root, "mysql.default")["tables"]
    assert sorted(tables) == ["d13_a", "d13_b"]
    assert [c["name"] for c in tables["d13_a"]["columns"]] == ["id"]
    assert discover(root, "@mysql.default", "d13_a", "--refresh", **env).returncode == 0
    assert [c["name"] for c in catalog_file(root, "mysql.default")["tables"]["d13_a"]["columns"]] == ["id", "note"]

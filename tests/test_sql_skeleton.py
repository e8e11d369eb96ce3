"""The SQL driver skeleton (osiris/run/drivers/sql_base.py) and the family facts: a new SQL
database is one driver module and its specs (tests/families/sqlite.py and its two specs, planted
here as a person would add them); the registry, the validator and discover learn it from there.
Then the problems every SQL driver shares, in the words that fit the command and the failure."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml

import osiris.run.drivers as drivers
from osiris.registry import builtin_components_dir
from tests.inprocess import run_inprocess
from tests.run_helpers import RunProject, mysql_step, pg_step
from tests.support import clean_env

FAMILIES = Path(__file__).parent / "families"


def test_every_built_in_component_runs_and_every_runnable_component_has_a_spec():
    names = {path.parent.name for path in builtin_components_dir().glob("*/spec.yaml")}
    assert drivers.components() == sorted(names)
    assert {f.name for f in drivers.families().values()} == {n.split(".")[0] for n in names}


def test_a_family_declares_its_facts_once():
    mysql, rest, graphql = drivers.family("mysql"), drivers.family("rest"), drivers.family("graphql")
    assert (mysql.title, mysql.dialect, mysql.kind, mysql.discoverable, mysql.words, mysql.discovers) == (
        "MySQL", "mysql", "database", True, ("mariadb",), "tables")
    assert (rest.kind, rest.discoverable, rest.dialect, rest.discovers) == ("api", True, None, "endpoints")
    assert (graphql.kind, graphql.discoverable, graphql.discovers) == ("api", True, "fields")
    assert drivers.discovers_endpoints("rest") and not drivers.discovers_endpoints("mysql")
    assert drivers.family("sql_base") is None and drivers.family("nope") is None


@pytest.fixture
def sqlite_family(monkeypatch, tmp_path):
    """tests/families on the drivers' path, as if sqlite.py were in osiris/run/drivers/."""
    monkeypatch.setattr(drivers, "__path__", [*drivers.__path__, str(FAMILIES)])
    drivers.families.cache_clear()
    yield
    drivers.families.cache_clear()
    import sys
    sys.modules.pop("osiris.run.drivers.sqlite", None)


def sqlite_project(root: Path) -> Path:
    root.mkdir(parents=True)
    settings = {"components": {"paths": [str(FAMILIES / "components")]},
                "connections": {"sqlite": {"default": {"database": "shop.db"}}}}
    (root / ".osiris.yaml").write_text(yaml.safe_dump(settings))
    with sqlite3.connect(root / "shop.db") as con:
        con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT)")
        con.executemany("INSERT INTO customers VALUES (?, ?)", [(1, "a@x"), (2, "b@x"), (3, "c@x")])
    return root


def test_a_new_sql_family_is_one_driver_module_and_its_specs(sqlite_family, tmp_path):
    root = sqlite_project(tmp_path / "project")
    pipeline = root / "copy.yaml"
    steps = [{"id": "read", "component": "sqlite.extractor", "mode": "read",
              "config": {"connection": "@sqlite.default", "query": "SELECT id, email FROM customers WHERE id > 1"}},
             {"id": "write", "component": "sqlite.writer", "mode": "write",
              "config": {"connection": "@sqlite.default", "table": "copied", "create_if_missing": True}}]
    pipeline.write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "copy", "steps": steps}, sort_keys=False))
    result = run_inprocess("run", str(pipeline), cwd=root, env=clean_env())
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(root / "shop.db") as con:
        assert con.execute("SELECT id, email FROM copied ORDER BY id").fetchall() == [("2", "b@x"), ("3", "c@x")]
    # the validator parses its SQL in the dialect its spec marks (x-sql: sqlite): a broken query is OML405
    steps[0]["config"]["query"] = "SELECT id FROM customers WHERE"
    pipeline.write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "copy", "steps": steps}, sort_keys=False))
    checked = run_inprocess("validate", str(pipeline), cwd=root, env=clean_env())
    assert checked.returncode == 1 and "OML405" in checked.stdout + checked.stderr
    # its problems are the skeleton's: an unknown table names the tables it has
    steps[0]["config"]["query"] = "SELECT id FROM custmers"
    pipeline.write_text(yaml.safe_dump({"oml_version": "0.1.0", "name": "copy", "steps": steps}, sort_keys=False))
    failed = run_inprocess("run", str(pipeline), cwd=root, env=clean_env())
    assert f"{pipeline} OML501 step 'read': table \"custmers\" does not exist\n" in failed.stderr
    assert "(did you mean 'customers'?)" in failed.stderr
    # discover reads its tables through the skeleton
    found = run_inprocess("discover", "@sqlite.default", cwd=root, env=clean_env())
    assert found.returncode == 0, found.stderr
    assert found.stdout == ".osiris/catalog/sqlite.default.json: 2 tables (copied, customers)\n"
    # and then validation knows its tables (OML406 from the catalog, before anything runs)
    checked = run_inprocess("validate", str(pipeline), cwd=root, env=clean_env())
    assert "OML406" in checked.stdout + checked.stderr


def test_discover_of_a_family_without_tables_is_a_usage_error(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"duckdb": {"local": {"path": "x.db"}}}}))
    done = run_inprocess("discover", "@duckdb.local", cwd=root, env=clean_env())
    assert (done.returncode, done.stderr) == (
        2, "osiris: error: 'duckdb' connections cannot be discovered: DuckDB has no tables to read\n")


def test_a_refused_connection_during_discover_speaks_of_the_connection_not_a_step(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    connection = {"host": "127.0.0.1", "port": 9, "user": "u", "password": "x", "database": "shop"}
    (root / ".osiris.yaml").write_text(yaml.safe_dump({"connections": {"mysql": {"default": connection}}}))
    done = run_inprocess("discover", "@mysql.default", cwd=root, env=clean_env())
    assert (done.returncode, done.stderr) == (6, (
        "osiris: error: cannot discover @mysql.default: cannot connect to mysql at 127.0.0.1:9: connection refused "
        "(check that the mysql server is running there, and the host, port and database of the connection in "
        ".osiris.yaml)\n"))


# --- the problems every SQL writer shares, on the real servers ---------------------------------------

@pytest.fixture
def both(tmp_path, postgres_server, mariadb_server) -> RunProject:
    import psycopg

    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS sk_checked, sk_report")
        con.execute("CREATE TABLE sk_checked (id int PRIMARY KEY, n int CHECK (n > 0))")
    maria = mariadb_server.connect(autocommit=True)
    with maria.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS sk_checked")
        cursor.execute("DROP TABLE IF EXISTS sk_report")
        cursor.execute("CREATE TABLE sk_checked (id INT PRIMARY KEY, n INT, CONSTRAINT positive CHECK (n > 0))")
    maria.close()
    return RunProject(tmp_path / "project", postgres=postgres_server, mariadb=mariadb_server)


@pytest.mark.parametrize("step, field", [(pg_step, "create_if_missing"), (mysql_step, "create_table")])
def test_a_missing_target_suggests_creating_it_not_a_similar_table(both, step, field):
    path, stderr = both.run_failing([both.csv_rows("id,n\n1,2\n"), step("write", "write", table="sk_report")])
    assert (f"{path} OML501 step 'write': table \"sk_report\" does not exist\n"
            f"    hint: set {field}: true to create it with the input's columns, or correct the table name\n") in stderr
    assert "did you mean" not in stderr


@pytest.mark.parametrize("step", [pg_step, mysql_step])
def test_a_check_violation_suggests_correcting_the_rows_not_an_upsert(both, step):
    path, stderr = both.run_failing([both.csv_rows("id,n\n1,-5\n"), step("write", "write", table="sk_checked")])
    assert f"{path} OML514 step 'write': the target rejected the rows: " in stderr
    assert ("    hint: correct or leave out the rows the constraint refuses, in a transform step; nothing was kept\n"
            in stderr)
    assert "upsert" not in stderr


@pytest.mark.parametrize("step", [pg_step, mysql_step])
def test_a_writer_with_two_inputs_is_refused_before_it_runs(both, step):
    """Validation knows a writer takes one input (OML409, issue 24): nothing runs, exit 1. The
    runtime's OML519 stays as the second lock for a pipeline run without validation."""
    path = both.pipeline([both.csv_rows("id,n\n1,2\n"), {**both.csv_rows("id,n\n1,2\n"), "id": "again"},
                          {**step("write", "write", table="sk_checked"), "needs": ["read", "again"]}], name="failing")
    result = both.run(str(path))
    assert result.returncode == 1
    assert result.stderr.splitlines()[:2] == [
        f"{path}:20:3 OML409 step 'write' writes the rows of one step, but it takes 2: read, again",
        "    hint: add a duckdb.processor step before it with needs: [read, again] that joins or unions df_read, "
        "df_again into one table, and give 'write' needs: [<that step's id>] instead"]

"""Names on every SQL driver (issue 23, item 7): identifiers with `%`, quotes, backticks, spaces and
unicode go through PostgreSQL, MariaDB and a CSV file unchanged, and a mysql step's `schema` is the
database it reads, writes, samples and discovers, whatever the connection's `database`."""

from __future__ import annotations

import psycopg
import pytest
import yaml

from tests.inprocess import run_inprocess
from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step
from tests.support import clean_env

ODD = ["a%b", "a%%b", 'qu"ote', "back`tick", "it's", "sp ace", "ünï 名"]


@pytest.fixture
def proj(tmp_path, postgres_server, mariadb_server) -> RunProject:
    columns = ", ".join(f'"{name.replace(chr(34), chr(34) * 2)}" text' for name in ODD)
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute('DROP TABLE IF EXISTS "odd tablé %", "odd back"')
        con.execute(f'CREATE TABLE "odd tablé %" (id int, {columns})')
        con.execute('INSERT INTO "odd tablé %%" VALUES (1, ' + ", ".join(["%s"] * len(ODD)) + ")",
                    [f"value {i}" for i in range(len(ODD))])
    maria = mariadb_server.connect(autocommit=True)
    with maria.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS `odd tablé %`")
        cursor.execute("DROP DATABASE IF EXISTS analytics")
        cursor.execute("CREATE DATABASE analytics")
        cursor.execute("CREATE TABLE analytics.events (id INT PRIMARY KEY, name VARCHAR(20))")
        cursor.execute("INSERT INTO analytics.events VALUES (1, 'first'), (2, 'second')")
        cursor.execute("CREATE TABLE analytics.target (id INT PRIMARY KEY, name VARCHAR(20))")
    maria.close()
    return RunProject(tmp_path / "project", postgres=postgres_server, mariadb=mariadb_server)


def test_odd_names_go_through_every_sql_driver_and_a_csv_file(proj, postgres_server, mariadb_server):
    there = proj.pipeline([pg_step("read", "read", table="odd tablé %"),
                           mysql_step("maria", "write", table="odd tablé %", create_table=True)], name="there")
    back = proj.pipeline([mysql_step("again", "read", table="odd tablé %"),
                          pg_step("back", "write", table="odd back", create_if_missing=True),
                          {**csv_step("csv", "write", "odd.csv"), "needs": ["again"]}], name="back")
    for path in (there, back):
        result = proj.run(str(path))
        assert result.returncode == 0, result.stderr
    with psycopg.connect(postgres_server.dsn()) as con:
        source = con.execute('SELECT * FROM "odd tablé %"').fetchall()
        back = con.execute('SELECT * FROM "odd back"').fetchall()
        names = [d.name for d in con.execute('SELECT * FROM "odd back" LIMIT 0').description]
    assert (back, names) == (source, ["id", *ODD])
    header = (proj.root / "odd.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == 'id,a%b,a%%b,"qu""ote",back`tick,it\'s,sp ace,ünï 名'


def test_a_mysql_schema_is_the_database_read_written_sampled_and_discovered(proj, mariadb_server):
    read = mysql_step("read", "read", table="events", schema="analytics")
    write = mysql_step("write", "write", table="target", schema="analytics", mode="append")
    path = proj.pipeline([read, write])
    before = proj.run(str(path), "--sample", "1")
    assert before.returncode == 0, before.stderr
    assert "  1   first" in before.stdout
    assert proj.run(str(path)).returncode == 0
    maria = mariadb_server.connect()
    with maria.cursor() as cursor:
        cursor.execute("SELECT * FROM analytics.target ORDER BY id")
        assert cursor.fetchall() == ((1, "first"), (2, "second"))  # the sample wrote nothing; the run wrote both
        cursor.execute("SHOW TABLES FROM shop LIKE 'target'")
        assert cursor.fetchall() == ()
    maria.close()
    settings = yaml.safe_load((proj.root / ".osiris.yaml").read_text())
    settings["connections"]["mysql"]["analytics"] = {**settings["connections"]["mysql"]["default"], "schema": "analytics"}
    (proj.root / ".osiris.yaml").write_text(yaml.safe_dump(settings))
    found = run_inprocess("discover", "@mysql.analytics", cwd=proj.root, env=clean_env(**proj.env))
    assert found.returncode == 0, found.stderr
    assert found.stdout == ".osiris/catalog/mysql.analytics.json: 2 tables (events, target)\n"


def test_a_table_only_in_another_schema_is_unknown_without_it(proj):
    path, stderr = proj.run_failing([mysql_step("read", "read", table="events")])
    assert f"{path} OML501 step 'read': table \"events\" does not exist\n" in stderr

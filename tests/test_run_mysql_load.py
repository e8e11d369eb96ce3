"""The MySQL writer's LOAD DATA LOCAL INFILE path (osiris/run/drivers/mysql_load.py, ADR 0167), on
the real MariaDB (its global time zone +09:00): every value lands as the INSERT path lands it; what
the load cannot prove, or what MySQL would only warn about under LOCAL (a duplicate key, a value cut
to fit), is rolled back and written by the INSERT path, which says what it always said; and a server
that asks for any other file than the one being loaded gets nothing.

Which path wrote a table is read from the server: its `Com_load` counter counts LOAD DATA statements."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.run_helpers import RunProject, csv_step, mysql_step, sql_step
from tests.servers.cleartext import FileAskingStub

VALUES = """SELECT * FROM (VALUES
 (1, 9223372036854775807, 1.50::DECIMAL(10,2), -1234567890123456789012345678.0123456789::DECIMAL(38,10), 'NULL',
  DATE '0001-01-01', TIMESTAMP '2024-01-01 00:00:01.5', TIMESTAMPTZ '2024-06-01 12:07:00.123456+09', 0.1::DOUBLE,
  true, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID, '{"a": [1, "x"]}'::JSON, TIME '24:00:00', INTERVAL '-12:30:00.5'),
 (2, -9223372036854775808, -0.01, 0, '', DATE '9999-12-31', TIMESTAMP '9999-12-31 23:59:59.999999',
  TIMESTAMPTZ '1970-01-01 00:00:01+00', 1e300, false, NULL, '[]', TIME '00:00:00.000001', INTERVAL '838:59:59'),
 (3, 0, NULL, NULL, E'emoji 😀 漢字 CR\\r\\nLF\\n, "q" ;|\\t \\\\N \\\\', NULL, NULL, NULL, -2.5e-300, NULL, NULL, NULL,
  NULL, NULL),
 (4, NULL, 0.00, 0.0000000001, '"start', NULL, NULL, NULL, 5.0, NULL, NULL, 'null', NULL, NULL),
 (5, 7, 2.25, 1, 'end"', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
) AS t(id, big, price, wide, note, day, stamp, instant, ratio, flag, uid, doc, tm, span)"""


@pytest.fixture
def maria(mariadb_server):
    conn = mariadb_server.connect(autocommit=True, init_command="SET time_zone = '+00:00'")
    yield conn
    conn.close()


def sql(conn, statement: str) -> list[tuple[Any, ...]]:
    with conn.cursor() as cursor:
        cursor.execute(statement)
        return list(cursor.fetchall())


def loads(conn) -> int:
    """LOAD DATA statements the server has run."""
    return int(sql(conn, "SHOW GLOBAL STATUS LIKE 'Com_load'")[0][1])


def cells(conn, table: str) -> list[tuple[Any, ...]]:
    names = [row[0] for row in sql(conn, f"SELECT column_name FROM information_schema.columns WHERE table_schema = "
                                         f"'shop' AND table_name = '{table}' ORDER BY ordinal_position")]
    return sql(conn, "SELECT " + ", ".join(f"CAST(`{n}` AS CHAR)" for n in names) + f" FROM {table} ORDER BY id")


@pytest.fixture
def proj(tmp_path: Path, mariadb_server, maria) -> RunProject:
    for table in ("ld_load", "ld_insert", "ld_kinds", "ld_keyed", "ld_narrow", "ld_off"):
        sql(maria, f"DROP TABLE IF EXISTS {table}")
    return RunProject(tmp_path / "project", mariadb=mariadb_server)


def test_a_load_lands_every_value_as_the_insert_path_does(proj, maria):
    before = loads(maria)
    loaded = proj.run(str(proj.pipeline([sql_step("make", VALUES),
                                         mysql_step("write", "write", table="ld_load", create_table=True)], name="load")))
    assert loaded.returncode == 0, loaded.stderr
    assert loads(maria) == before + 1
    inserted = proj.run(str(proj.pipeline([sql_step("make", VALUES), mysql_step(
        "write", "write", table="ld_insert", create_table=True, mode="upsert", upsert_keys=["id"])], name="insert")))
    assert inserted.returncode == 0, inserted.stderr
    assert loads(maria) == before + 1  # an upsert takes the INSERT path
    assert cells(maria, "ld_load") == cells(maria, "ld_insert")
    assert cells(maria, "ld_load")[0][4:8] == ("NULL", "0001-01-01", "2024-01-01 00:00:01.500000",
                                              "2024-06-01 03:07:00.123456")  # the text 'NULL'; an instant in UTC


def test_existing_columns_of_other_types_read_the_loaded_text_as_inserted(proj, maria):
    sql(maria, "CREATE TABLE ld_kinds (id INT PRIMARY KEY, big DECIMAL(30,0), price DOUBLE, flag TINYINT, "
               "day VARCHAR(20), note VARCHAR(200), uid VARCHAR(40), tm VARCHAR(20)) DEFAULT CHARSET=utf8mb4")
    sql(maria, "CREATE TABLE ld_insert LIKE ld_kinds")
    query = "SELECT id, big, price, flag, day, note, uid, tm FROM (" + VALUES + ")"
    before = loads(maria)
    assert proj.run(str(proj.pipeline([sql_step("make", query), mysql_step("write", "write", table="ld_kinds")],
                                      name="kinds"))).returncode == 0
    assert loads(maria) == before + 1
    assert proj.run(str(proj.pipeline([sql_step("make", query), mysql_step(
        "write", "write", table="ld_insert", mode="upsert", upsert_keys=["id"])], name="kinds-insert"))).returncode == 0
    assert cells(maria, "ld_kinds") == cells(maria, "ld_insert")


def test_a_duplicate_key_rolls_the_load_back_and_the_insert_path_refuses_it(proj, maria):
    sql(maria, "CREATE TABLE ld_keyed (id INT PRIMARY KEY, note VARCHAR(20))")
    sql(maria, "INSERT INTO ld_keyed VALUES (1, 'kept')")
    (proj.root / "dup.csv").write_text("id,note\n2,a\n3,b\n3,c\n")
    before = loads(maria)
    path, stderr = proj.run_failing([csv_step("read", "read", "dup.csv"), mysql_step("write", "write", table="ld_keyed")])
    assert loads(maria) == before + 1  # under LOCAL the server only warned: the load was tried, then undone
    assert f"{path} OML514 step 'write': the target rejected the rows: Duplicate entry (value withheld) for key 'PRIMARY'" in stderr
    assert sql(maria, "SELECT * FROM ld_keyed") == [(1, "kept")]


def test_a_value_that_would_be_cut_rolls_the_load_back_and_the_insert_path_refuses_it(proj, maria):
    sql(maria, "CREATE TABLE ld_narrow (id INT PRIMARY KEY, note VARCHAR(3))")
    (proj.root / "long.csv").write_text("id,note\n1,abc\n2,abcdef\n")
    path, stderr = proj.run_failing([csv_step("read", "read", "long.csv"), mysql_step("write", "write", table="ld_narrow")])
    assert f"{path} OML504 step 'write': " in stderr and "Data too long for column 'note'" in stderr
    assert sql(maria, "SELECT count(*) FROM ld_narrow") == [(0,)]


def test_a_server_that_allows_no_local_files_gets_the_rows_by_insert(proj, maria):
    sql(maria, "CREATE TABLE ld_off (id INT PRIMARY KEY, note VARCHAR(20))")
    (proj.root / "rows.csv").write_text("id,note\n1,a\n2,\n")
    sql(maria, "SET GLOBAL local_infile = 0")
    try:
        result = proj.run(str(proj.pipeline([csv_step("read", "read", "rows.csv"),
                                             mysql_step("write", "write", table="ld_off")], name="off")))
    finally:
        sql(maria, "SET GLOBAL local_infile = 1")
    assert result.returncode == 0, result.stderr
    assert sql(maria, "SELECT * FROM ld_off ORDER BY id") == [(1, "a"), (2, None)]


def test_a_server_asking_for_another_file_gets_nothing(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("planted-File-Secret-3307\n")
    proj = RunProject(tmp_path / "project")
    with FileAskingStub(str(secret)) as stub:
        (proj.root / ".osiris.yaml").write_text(
            f"connections:\n  mysql:\n    default: {{host: 127.0.0.1, port: {stub.port}, user: u, password: p, "
            "database: shop}\n")
        (proj.root / "rows.csv").write_text("id\n1\n")
        path, stderr = proj.run_failing([csv_step("read", "read", "rows.csv"), mysql_step("write", "write", table="t")])
    assert stub.connections >= 1
    assert b"planted-File-Secret" not in stub.received
    assert f"{path} OML505 step 'write': cannot connect" in stderr
    assert "the server asked for a file Osiris did not offer; nothing was sent" in stderr and "Traceback" not in stderr

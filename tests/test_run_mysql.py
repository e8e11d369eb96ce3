"""osiris run against a real MariaDB: read (streamed), write (append, replace, upsert twice,
create_table, truncate_before), --sample into a TEMPORARY twin, and the OML5xx problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.effective_config import effective
from tests.run_helpers import RunProject, mysql_step, pg_step


@pytest.fixture
def maria(mariadb_server):
    conn = mariadb_server.connect(autocommit=True)
    yield conn
    conn.close()


def sql(conn, statement: str, *args) -> list[tuple]:
    with conn.cursor() as cursor:
        cursor.execute(statement, args or None)
        return list(cursor.fetchall())


@pytest.fixture
def proj(tmp_path: Path, mariadb_server, maria) -> RunProject:
    for table in ("orders", "orders_copy", "made_here"):
        sql(maria, f"DROP TABLE IF EXISTS {table}")
    sql(maria, "CREATE TABLE orders (id INT PRIMARY KEY, item VARCHAR(50), price DECIMAL(8,2), "
               "placed DATETIME NULL, note TEXT NULL) ENGINE=InnoDB")
    sql(maria, "INSERT INTO orders VALUES (1, 'pen', 1.50, '2024-01-02 03:04:05', ''), (2, 'ink', NULL, NULL, NULL), "
               "(3, 'pad,\"big\"', 12.25, '2024-02-01 00:00:00', 'two\\nlines')")
    sql(maria, "CREATE TABLE orders_copy LIKE orders")
    return RunProject(tmp_path / "project", mariadb=mariadb_server)


def checksum(conn, table: str) -> tuple:
    return sql(conn, f"CHECKSUM TABLE {table}")[0][1], sql(conn, f"SELECT count(*) FROM {table}")[0][0]


def test_mysql_to_mysql_copies_every_value_exactly(proj, maria):
    path = proj.pipeline([mysql_step("read", "read", table="orders", batch_size=100),
                          mysql_step("write", "write", table="orders_copy")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    assert sql(maria, "SELECT * FROM orders_copy ORDER BY id") == sql(maria, "SELECT * FROM orders ORDER BY id")


def test_columns_and_offset_shape_a_table_read(proj, maria):
    """`columns` (a list) and `offset` (a number), read typed (osiris.run.fields), reach the read's SQL."""
    path = proj.pipeline([mysql_step("read", "read", table="orders", columns=["id", "item"], offset=1),
                          mysql_step("write", "write", table="orders_copy")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    copied = sql(maria, "SELECT id, item, price FROM orders_copy ORDER BY id")
    assert len(copied) == 2  # one row skipped (the table has no order the test relies on)
    assert all(price is None for _, _, price in copied)  # only the listed columns were read
    assert {(i, item) for i, item, _ in copied} <= {(1, "pen"), (2, "ink"), (3, 'pad,"big"')}


def test_upsert_twice_keeps_the_row_count_and_lands_new_values(proj, maria):
    path = proj.pipeline([mysql_step("read", "read", query="SELECT id, CONCAT(item, '+') AS item FROM orders"),
                          mysql_step("write", "write", table="orders", mode="upsert", upsert_keys=["id"])])
    assert proj.run(str(path)).returncode == 0
    assert proj.run(str(path)).returncode == 0
    assert sql(maria, "SELECT id, item FROM orders ORDER BY id") == [(1, "pen++"), (2, "ink++"), (3, 'pad,"big"++')]


def test_create_table_and_replace(proj, maria):
    path = proj.pipeline([mysql_step("read", "read", query="SELECT id, item FROM orders WHERE id > 1"),
                          mysql_step("write", "write", table="made_here", create_table=True, mode="replace")])
    assert proj.run(str(path)).returncode == 0
    assert proj.run(str(path)).returncode == 0
    assert sql(maria, "SELECT id, item FROM made_here ORDER BY id") == [(2, "ink"), (3, 'pad,"big"')]


def test_sample_writes_a_temporary_twin_and_leaves_the_target_unchanged(proj, maria):
    before = checksum(maria, "orders")
    path = proj.pipeline([
        mysql_step("read", "read", table="orders"),
        mysql_step("upsert", "write", table="orders", mode="upsert", upsert_keys=["id"], truncate_before=True),
        {**mysql_step("create", "write", table="made_here", create_table=True), "needs": ["read"]}])
    result = proj.run(str(path), "--sample", "2")
    assert result.returncode == 0, result.stderr
    assert checksum(maria, "orders") == before
    assert sql(maria, "SHOW TABLES LIKE 'made_here'") == []
    assert "  1   pen   1.50   2024-01-02 03:04:05" in result.stdout


def test_upsert_without_a_unique_key_in_the_target_is_oml512(proj, maria):
    path = proj.pipeline([mysql_step("read", "read", table="orders"),
                          mysql_step("write", "write", table="orders_copy", mode="upsert", upsert_keys=["item"])])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert (f"{path} OML512 step 'write': the target orders_copy has no primary key or unique index on item\n"
            in result.stderr)


def test_unknown_table_and_column(proj):
    path = proj.pipeline([mysql_step("read", "read", query="SELECT id, itme FROM orders")])
    result = proj.run(str(path))
    assert result.returncode == 6
    assert f"{path} OML502 step 'read': column \"itme\" does not exist\n" in result.stderr
    assert "(did you mean 'item'?)" in result.stderr
    path = proj.pipeline([mysql_step("read", "read", table="order")], name="two")
    result = proj.run(str(path))
    assert f"{path} OML501 step 'read': table \"order\" does not exist\n" in result.stderr
    assert "(did you mean 'orders'?)" in result.stderr


def test_discover_lists_tables_columns_types_and_keys(proj, mariadb_server):
    from osiris.run.drivers import driver_for

    found = driver_for("mysql.writer").discover(effective("mysql.extractor", mariadb_server.connection()), ["orders"])
    assert [(t.name, t.primary_key) for t in found] == [("orders", ["id"])]
    assert [(c.name, c.type, c.nullable) for c in found[0].columns] == [
        ("id", "int(11)", False), ("item", "varchar(50)", True), ("price", "decimal(8,2)", True),
        ("placed", "datetime", True), ("note", "text", True)]


def test_postgres_to_mariadb(tmp_path, mariadb_server, postgres_server, maria):
    import psycopg

    with psycopg.connect(postgres_server.dsn(), autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS items")
        pg.execute("CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(8,2), at timestamp)")
        pg.execute("INSERT INTO items VALUES (1, 'a', 2.50, '2024-05-06 07:08:09'), (2, NULL, NULL, NULL)")
    sql(maria, "DROP TABLE IF EXISTS items")
    proj = RunProject(tmp_path / "both", postgres=postgres_server, mariadb=mariadb_server)
    path = proj.pipeline([pg_step("read", "read", table="items"),
                          mysql_step("write", "write", table="items", create_table=True)])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    import datetime
    import decimal
    assert sql(maria, "SELECT * FROM items ORDER BY id") == [
        (1, "a", decimal.Decimal("2.50"), datetime.datetime(2024, 5, 6, 7, 8, 9)), (2, None, None, None)]


def test_ctrl_c_in_the_middle_of_a_mysql_write_leaves_the_target_unchanged(proj, maria):
    import signal
    import subprocess
    import sys

    from tests.support import clean_env

    with open(proj.root / "many.csv", "w") as out:
        out.write("id,item\n" + "".join(f"{i},item-{i}\n" for i in range(100, 400_100)))
    before, started = checksum(maria, "orders"), rows_inserted(maria)
    path = proj.pipeline([{"id": "read", "component": "filesystem.csv_extractor", "mode": "read",
                           "config": {"path": "many.csv"}},
                          mysql_step("write", "write", table="orders", batch_size=500)])
    process = subprocess.Popen([sys.executable, "-m", "osiris", "run", str(path)], cwd=proj.root,
                               env=clean_env(**proj.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in process.stdout:  # plain display: one line when the writer starts
        if line.startswith("write  running"):
            break
    wait_for_rows_inserted(maria, process, started + 1000)  # two batches in, seen by the server, not a clock
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "write  interrupted" in stdout
    assert checksum(maria, "orders") == before


def rows_inserted(conn) -> int:
    """The server-wide count of rows written to tables, committed or not (MariaDB's Handler_write)."""
    return int(sql(conn, "SHOW GLOBAL STATUS LIKE 'Handler_write'")[0][1])


def wait_for_rows_inserted(conn, process, at_least: int, deadline_s: float = 120.0) -> None:
    """Until the server has inserted `at_least` rows (uncommitted ones too, which no reader sees);
    fails if the run ends first or the deadline passes."""
    import time

    deadline = time.monotonic() + deadline_s  # a generous limit, not a measurement
    while process.poll() is None and time.monotonic() < deadline:
        if rows_inserted(conn) >= at_least:
            return
        time.sleep(0.02)
    assert process.poll() is None, "the run ended before the write could be interrupted"
    raise AssertionError(f"the server had not inserted {at_least} rows within {deadline_s:.0f} s")

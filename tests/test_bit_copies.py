"""PostgreSQL `bit(n)` into an existing MariaDB `BIT(n)` column (issue 35, item 4): PostgreSQL's bit
string text (`0101`) arrives as the same bits, where MariaDB used to refuse it ("Data too long").
On the real PostgreSQL 15 and MariaDB of the suite."""

from __future__ import annotations

import psycopg

from tests.run_helpers import RunProject, mysql_step, pg_step


def test_postgres_bits_land_in_a_mariadb_bit_column(tmp_path, postgres_server, mariadb_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS bc_src; CREATE TABLE bc_src (id int, b1 bit(1), b4 bit(4), v varbit(10));"
                    "INSERT INTO bc_src VALUES (1, '1', '0101', '1111111111'), (2, '0', '0000', '0'), "
                    "(3, NULL, NULL, NULL)")
    maria = mariadb_server.connect(autocommit=True)
    with maria.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bc_dst")
        cursor.execute("CREATE TABLE bc_dst (id INT, b1 BIT(1), b4 BIT(4), v BIT(10))")
    proj = RunProject(tmp_path / "project", postgres=postgres_server, mariadb=mariadb_server)
    path = proj.pipeline([pg_step("read", "read", table="bc_src"), mysql_step("write", "write", table="bc_dst")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stderr
    with maria.cursor() as cursor:
        cursor.execute("SELECT id, BIN(b1), BIN(b4), BIN(v) FROM bc_dst ORDER BY id")
        assert cursor.fetchall() == ((1, "1", "101", "1111111111"), (2, "0", "0", "0"), (3, None, None, None))
    maria.close()

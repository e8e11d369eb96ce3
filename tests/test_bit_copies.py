"""`bit` between PostgreSQL and MariaDB (issue 35, item 4), both ways, into existing columns: PostgreSQL's
bit string text (`0101`) arrives in a MariaDB `BIT(n)` as the same bits, where MariaDB used to refuse
it ("Data too long"); MariaDB's `BIT(n)`, held by the engine as its number, arrives in a PostgreSQL
`bit(n)`/`varbit` as the same bits, where PostgreSQL used to refuse it ("bit string length 1 does
not match"). On the real PostgreSQL 15 and MariaDB of the suite."""

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


def _maria_bits(maria, query: str) -> list[tuple]:
    with maria.cursor() as cursor:
        cursor.execute(query)
        return list(cursor.fetchall())


def test_mariadb_bits_land_in_postgres_bit_and_varbit_columns(tmp_path, postgres_server, mariadb_server):
    """MariaDB BIT(n), held by the engine as its number, arrives in existing bit(n) columns as the same
    n bits (zero-padded) and in varbit columns as the number's bits; NULL stays NULL."""
    maria = mariadb_server.connect(autocommit=True)
    with maria.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS mb_src")
        cursor.execute("CREATE TABLE mb_src (id INT, b1 BIT(1), b4 BIT(4), b8 BIT(8), b64 BIT(64), v BIT(64))")
        cursor.execute("INSERT INTO mb_src VALUES (1, 1, 5, 170, 18446744073709551615, 170), "
                       "(2, 0, 0, 0, 0, 0), (3, NULL, NULL, NULL, NULL, NULL)")
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS mb_dst; CREATE TABLE mb_dst (id int, b1 bit(1), b4 bit(4), b8 bit(8), "
                    "b64 bit(64), v varbit(64))")
    proj = RunProject(tmp_path / "project", postgres=postgres_server, mariadb=mariadb_server)
    path = proj.pipeline([mysql_step("read", "read", table="mb_src"), pg_step("write", "write", table="mb_dst")])
    result = proj.run(str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    expected = _maria_bits(maria, "SELECT id, LPAD(BIN(b1), 1, '0'), LPAD(BIN(b4), 4, '0'), LPAD(BIN(b8), 8, '0'), "
                                  "LPAD(BIN(b64), 64, '0'), BIN(v) FROM mb_src ORDER BY id")
    maria.close()
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        got = con.execute("SELECT id, b1::text, b4::text, b8::text, b64::text, v::text FROM mb_dst ORDER BY id").fetchall()
    assert [tuple(row) for row in got] == [tuple(row) for row in expected]
    assert got[0] == (1, "1", "0101", "10101010", "1" * 64, "10101010")


def test_a_number_wider_than_its_bit_column_is_refused_naming_it(tmp_path, postgres_server, mariadb_server):
    """BIT(8) 170 into bit(4): refused with OML504 naming the column, and nothing written."""
    mariadb_server.execute(
        "DROP TABLE IF EXISTS mb_wide",
        "CREATE TABLE mb_wide (id INT, `flag bits` BIT(8))",
        "INSERT INTO mb_wide VALUES (1, 5), (2, 170)",
    )
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute('DROP TABLE IF EXISTS mb_narrow; CREATE TABLE mb_narrow (id int, "flag bits" bit(4))')
    proj = RunProject(tmp_path / "project", postgres=postgres_server, mariadb=mariadb_server)
    path = proj.pipeline([mysql_step("read", "read", table="mb_wide"), pg_step("write", "write", table="mb_narrow")])
    result = proj.run(str(path))
    assert result.returncode != 0
    assert "OML504" in result.stderr
    assert "column 'flag bits' holds numbers that do not fit in 4 bits" in result.stderr
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        assert con.execute("SELECT count(*) FROM mb_narrow").fetchone() == (0,)

"""MariaDB `BIT(n)` into existing PostgreSQL `bit(n)`/`varbit` columns on the Spark engine (issue 35),
as on DuckDB (tests/test_bit_copies.py): Spark stages the rows in PostgreSQL, where each number
was refused ("column "b1" is of type bit but expression is of type bigint", exit 6); now the
same bits arrive, and a number wider than its column is refused naming it with nothing written.
On a real local Spark and the suite's real PostgreSQL 15 and MariaDB."""

from __future__ import annotations

import psycopg
import pytest

from tests.run_helpers import RunProject, mysql_step, pg_step
from tests.test_spark import on_spark, stage_tables

pytestmark = pytest.mark.xdist_group("spark")

BITS = "id, b1::text, b4::text, b8::text, b64::text, v::text"


def test_mariadb_bits_land_in_postgres_bit_columns_on_spark_as_on_duckdb(tmp_path, postgres_server, mariadb_server):
    maria = mariadb_server.connect(autocommit=True)
    with maria.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS sb_src")
        cursor.execute("CREATE TABLE sb_src (id INT, b1 BIT(1), b4 BIT(4), b8 BIT(8), b64 BIT(64), v BIT(64), "
                       "`wide bits` BIT(8))")
        cursor.execute("INSERT INTO sb_src VALUES (1, 1, 5, 170, 18446744073709551615, 170, 5), "
                       "(2, 0, 0, 0, 0, 0, 170), (3, NULL, NULL, NULL, NULL, NULL, NULL), "
                       "(4, 1, 8, 1, 9223372036854775808, 9223372036854775807, 1)")
    maria.close()
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        for engine in ("duckdb", "spark"):
            con.execute(f"DROP TABLE IF EXISTS sb_dst_{engine}; CREATE TABLE sb_dst_{engine} (id int, b1 bit(1), "
                        "b4 bit(4), b8 bit(8), b64 bit(64), v varbit(64))")
        con.execute('DROP TABLE IF EXISTS sb_narrow; CREATE TABLE sb_narrow (id int, "wide bits" bit(4))')
    proj = on_spark(RunProject(tmp_path / "project", postgres=postgres_server, mariadb=mariadb_server))
    query = "SELECT id, b1, b4, b8, b64, v FROM sb_src"
    for engine in ("duckdb", "spark"):
        path = proj.pipeline([mysql_step("read", "read", query=query),
                              pg_step("write", "write", table=f"sb_dst_{engine}")], name=engine)
        result = proj.run(str(path), "--engine", engine)
        assert result.returncode == 0, result.stdout + result.stderr
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        spark = con.execute(f"SELECT {BITS} FROM sb_dst_spark ORDER BY id").fetchall()
        assert spark == con.execute(f"SELECT {BITS} FROM sb_dst_duckdb ORDER BY id").fetchall()
        assert spark == [(1, "1", "0101", "10101010", "1" * 64, "10101010"),
                         (2, "0", "0000", "00000000", "0" * 64, "0"),
                         (3, None, None, None, None, None),
                         (4, "1", "1000", "00000001", "1" + "0" * 63, "1" * 63)]

    path = proj.pipeline([mysql_step("read", "read", query="SELECT id, `wide bits` FROM sb_src"),
                          pg_step("write", "write", table="sb_narrow")], name="narrow")
    result = proj.run(str(path), "--engine", "spark")
    assert result.returncode == 6, result.stdout + result.stderr
    assert result.stderr.splitlines()[:2] == [
        f"{path} OML504 step 'write': column 'wide bits' holds numbers that do not fit in 4 bits (negative, or "
        "wider) in 1 row, which its PostgreSQL bit column cannot store",
        "    hint: widen the target column, or leave those rows out in a duckdb.processor step; nothing was "
        "written (docs/types.md)"]
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        assert con.execute("SELECT count(*) FROM sb_narrow").fetchone() == (0,)
        assert stage_tables(pg=con) == []

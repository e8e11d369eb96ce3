"""A database reader's query with two columns of one name on the Spark engine (issue 35): refused
with the DuckDB engine's line naming the column (OML540), where MariaDB's probe error or
PostgreSQL's "ambiguous" came through in the database's words. tests/test_query_columns_exact.py
holds the DuckDB engine to the same lines. On a real local Spark and the suite's databases."""

from __future__ import annotations

import psycopg
import pytest

from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step
from tests.test_query_columns_exact import REPEATED_HINT
from tests.test_spark import on_spark

pytestmark = pytest.mark.xdist_group("spark")


def test_two_columns_of_one_name_are_refused_naming_it_on_spark(tmp_path, postgres_server, mariadb_server):
    mariadb_server.execute("DROP TABLE IF EXISTS sq_floats", "CREATE TABLE sq_floats (id INT, f FLOAT)",
                           "INSERT INTO sq_floats VALUES (1, 16777216)")
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS sq_pg; CREATE TABLE sq_pg (id int, amount numeric(8,2)); "
                    "INSERT INTO sq_pg VALUES (1, 2.50)")
    proj = on_spark(RunProject(tmp_path / "project", postgres=postgres_server, mariadb=mariadb_server))
    readers = {"f": mysql_step("read", "read", query="SELECT a.id, a.f, b.f FROM sq_floats a JOIN sq_floats b "
                                                      "ON a.id = b.id"),
               "amount": pg_step("read", "read", query="SELECT a.id, a.amount, b.amount FROM sq_pg a "
                                                       "JOIN sq_pg b USING (id)")}
    for column, reader in readers.items():
        path = proj.pipeline([reader, csv_step("write", "write", "out.csv")], name=column)
        result = proj.run(str(path), "--engine", "spark")
        assert result.returncode == 6, result.stdout + result.stderr
        assert result.stderr.splitlines()[:2] == [
            f"{path} OML540 step 'read': the query's result has two columns named '{column}' (column names ignore "
            "case)", REPEATED_HINT.format(column)]
        assert not (proj.root / "out.csv").exists()

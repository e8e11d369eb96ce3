"""A database reader's query whose columns the engine cannot hold exactly as they come (issue 35):
two columns of one name, which the step's table cannot hold (it stopped the run as an internal
error, exit 5), and a MariaDB FLOAT in a query that cannot be read as a subquery, which arrived
with the text protocol's six digits (16777216 as 16777200, exit 0). Each is refused with one line
naming the column, exit 6, nothing written. On the real MariaDB and PostgreSQL 15 of the suite."""

from __future__ import annotations

import psycopg
import pytest

from tests.run_helpers import RunProject, csv_step, mysql_step, pg_step

REPEATED_HINT = "    hint: give each its own name with AS in the step's query (e.g. b.{0} AS b_{0}); nothing was read"


@pytest.fixture
def maria(mariadb_server):
    """The MariaDB table of the tests (made anew by each test that asks for it)."""
    mariadb_server.execute("DROP TABLE IF EXISTS qc_floats", "CREATE TABLE qc_floats (id INT, f FLOAT, d DOUBLE)",
                           "INSERT INTO qc_floats VALUES (1, 16777216, 2.5), (2, 0.1, 0.1)")


def run_to_csv(proj: RunProject, reader: dict) -> tuple[int, list[str], str]:
    path = proj.pipeline([reader, csv_step("write", "write", "out.csv")])
    result = proj.run(str(path))
    assert "Traceback" not in result.stderr
    return result.returncode, result.stderr.replace(f"{path} ", "").splitlines()[:2], result.stdout


@pytest.mark.parametrize("query, column", [
    ("SELECT a.id, a.f, b.f FROM qc_floats a JOIN qc_floats b ON a.id = b.id", "f"),  # a FLOAT twice
    ("SELECT id, f, f AS F FROM qc_floats", "F"),  # names differing by case only
    ("SELECT id, d, d FROM qc_floats", "d"),  # no FLOAT: it stopped the run all the same
])
def test_a_mariadb_query_with_two_columns_of_one_name_is_refused_naming_it(tmp_path, mariadb_server, maria,
                                                                          query, column):
    proj = RunProject(tmp_path / "project", mariadb=mariadb_server)
    code, lines, stdout = run_to_csv(proj, mysql_step("read", "read", query=query))
    assert code == 6
    assert lines == [f"OML540 step 'read': the query's result has two columns named '{column}' (column names "
                     "ignore case)", REPEATED_HINT.format(column)]
    assert "write  skipped (its input 'read' did not complete)" in stdout
    assert not (proj.root / "out.csv").exists()


def test_a_postgres_query_with_two_columns_of_one_name_is_refused_naming_it(tmp_path, postgres_server):
    """PostgreSQL keeps both names in a subquery; the step's table could not (exit 5 before)."""
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS qc_pg; CREATE TABLE qc_pg (id int, amount numeric(8,2)); "
                    "INSERT INTO qc_pg VALUES (1, 2.50)")
    proj = RunProject(tmp_path / "project", postgres=postgres_server)
    query = "SELECT a.id, a.amount, b.amount FROM qc_pg a JOIN qc_pg b USING (id)"
    code, lines, _ = run_to_csv(proj, pg_step("read", "read", query=query))
    assert code == 6
    assert lines == ["OML540 step 'read': the query's result has two columns named 'amount' (column names ignore "
                     "case)", REPEATED_HINT.format("amount")]
    assert not (proj.root / "out.csv").exists()


@pytest.mark.parametrize("modifier", ["SQL_NO_CACHE", "HIGH_PRIORITY", "SQL_CALC_FOUND_ROWS"])
def test_a_float_in_a_query_that_cannot_be_a_subquery_is_refused_naming_it(tmp_path, mariadb_server, maria,
                                                                          modifier):
    proj = RunProject(tmp_path / "project", mariadb=mariadb_server)
    code, lines, _ = run_to_csv(proj, mysql_step("read", "read", query=f"SELECT {modifier} id, f FROM qc_floats"))
    assert code == 6
    assert lines == [
        "OML504 step 'read': column 'f' is a MySQL FLOAT that this query reads with six digits only (16777216 as "
        "16777200): the query cannot be read as a subquery, where it would be read exactly",
        "    hint: read it as CAST(f AS DOUBLE) in the step's query, or leave out what keeps the query from being "
        "a subquery (SQL_NO_CACHE, HIGH_PRIORITY, SQL_CALC_FOUND_ROWS); nothing was written (docs/types.md)"]
    assert not (proj.root / "out.csv").exists()


def test_the_hints_fixes_read_every_value_exactly(tmp_path, mariadb_server, maria):
    """What the two hints say to do: each column its own name, the FLOAT cast to DOUBLE; and a query
    that cannot be a subquery but holds no FLOAT still reads as before."""
    proj = RunProject(tmp_path / "project", mariadb=mariadb_server)
    query = "SELECT a.id, a.f, b.f AS b_f FROM qc_floats a JOIN qc_floats b ON a.id = b.id ORDER BY a.id"
    code, lines, _ = run_to_csv(proj, mysql_step("read", "read", query=query))
    assert code == 0, lines
    assert (proj.root / "out.csv").read_text() == "id,f,b_f\n1,16777216.0,16777216.0\n2,0.1,0.1\n"
    query = "SELECT SQL_NO_CACHE id, CAST(f AS DOUBLE) AS f, d FROM qc_floats ORDER BY id"
    code, lines, _ = run_to_csv(proj, mysql_step("read", "read", query=query))
    assert code == 0, lines
    assert (proj.root / "out.csv").read_text() == "id,f,d\n1,16777216.0,2.5\n2,0.10000000149011612,0.1\n"

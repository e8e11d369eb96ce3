"""A PostgreSQL `numeric` without a precision, and the numeric results of sum() and avg() of a
numeric(p,s), arrive as the DECIMAL(p,s) that holds every value read (issue 35, item 3): arithmetic
works in a transform, and the join-and-sum of two PostgreSQL tables gives PostgreSQL's own sums.
Values that need more than 38 digits, NaN and infinities keep the column as PostgreSQL's exact text.
On the real PostgreSQL 15 of the suite."""

from __future__ import annotations

from decimal import Decimal

import psycopg
import pytest

from tests.run_helpers import RunProject, csv_step, pg_step, sql_step

SOURCE = """
DROP TABLE IF EXISTS pn_orders, pn_lines, pn_wide CASCADE;
CREATE TABLE pn_orders (id int PRIMARY KEY, customer text, fee numeric);
CREATE TABLE pn_lines (order_id int, amount numeric(12,2), qty numeric);
INSERT INTO pn_orders VALUES (1, 'Ann', 1.5), (2, 'Bob', NULL), (3, 'Ann', 0.25);
INSERT INTO pn_lines VALUES (1, 10.10, 1), (1, 20.20, 2.5), (2, 0.01, 3), (3, 99999999.99, 1), (3, 0.33, 0.001);
CREATE TABLE pn_wide (id int, w numeric, n numeric);
INSERT INTO pn_wide VALUES (1, '123456789012345678901234567890123456789.5', 1), (2, 1, 'NaN');
"""
SUMS = ("SELECT o.customer, sum(l.amount) AS total, avg(l.amount) AS mean, sum(l.qty * l.amount) AS weighted, "
        "coalesce(sum(o.fee), 0) AS fees FROM pn_orders o JOIN pn_lines l ON l.order_id = o.id "
        "GROUP BY o.customer")


@pytest.fixture(scope="module")
def project(tmp_path_factory, postgres_server) -> RunProject:
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as con:
        con.execute(SOURCE)
    return RunProject(tmp_path_factory.mktemp("numeric") / "project", postgres=postgres_server)


def postgres_sums(server) -> list[tuple[str, ...]]:
    with psycopg.connect(server.dsn()) as con:
        rows = con.execute(f"SELECT customer, total::text, mean::text, weighted::text, fees::text FROM ({SUMS}) s "
                           "ORDER BY customer").fetchall()
    return [tuple(row) for row in rows]


def test_a_numeric_without_precision_is_a_decimal_that_sums(project, postgres_server):
    """The issue's case: SUM over a numeric and COALESCE(s, 0) failed on VARCHAR; now they run."""
    path = project.pipeline([
        pg_step("orders", "read", table="pn_orders"), pg_step("lines", "read", table="pn_lines"),
        sql_step("sums", "SELECT o.customer, sum(l.amount) AS total, sum(l.qty * l.amount) AS weighted, "
                         "coalesce(sum(o.fee), 0) AS fees FROM df_orders o JOIN df_lines l ON l.order_id = o.id "
                         "GROUP BY o.customer ORDER BY o.customer", needs=["orders", "lines"]),
        csv_step("out", "write", "sums.csv")], name="join-sum")
    result = project.run(str(path))
    assert result.returncode == 0, result.stderr
    lines = (project.root / "sums.csv").read_text().splitlines()
    assert lines[0] == "customer,total,weighted,fees"
    theirs = {row[0]: (Decimal(row[1]), Decimal(row[3]), Decimal(row[4])) for row in postgres_sums(postgres_server)}
    ours = {customer: tuple(Decimal(v) for v in rest) for customer, *rest in (line.split(",") for line in lines[1:])}
    assert ours == theirs
    assert dict(project.step_columns("orders"))["fee"] == "DECIMAL(3,2)"
    assert dict(project.step_columns("lines"))["qty"] == "DECIMAL(4,3)"


def test_sum_and_avg_in_an_extractors_query_arrive_as_postgres_computed_them(project, postgres_server):
    path = project.pipeline([pg_step("read", "read", query=SUMS + " ORDER BY customer"),
                             sql_step("again", "SELECT customer, total + 0 AS total, mean, weighted, fees "
                                               "FROM input_df", needs=["read"]),
                             csv_step("out", "write", "query.csv")], name="query-sum")
    result = project.run(str(path))
    assert result.returncode == 0, result.stderr
    lines = (project.root / "query.csv").read_text().splitlines()[1:]
    ours = [(name, *map(Decimal, values)) for name, *values in (line.split(",") for line in lines)]
    assert ours == [(name, *map(Decimal, values)) for name, *values in postgres_sums(postgres_server)]
    assert lines == ["Ann,100000030.62,25000007.65500000000000000000,100000060.59033,3.50",  # each column's scale
                     "Bob,0.01,0.01000000000000000000,0.03000,0.00"]                        # is its widest value's
    kinds = dict(project.step_columns("read"))
    assert kinds["total"].startswith("DECIMAL(") and kinds["mean"].startswith("DECIMAL(")


def test_numerics_too_wide_or_not_finite_stay_exact_text(project):
    path = project.pipeline([pg_step("read", "read", table="pn_wide"), csv_step("out", "write", "wide.csv")],
                            name="wide")
    result = project.run(str(path))
    assert result.returncode == 0, result.stderr
    assert (project.root / "wide.csv").read_text() == (
        "id,w,n\n1,123456789012345678901234567890123456789.5,1\n2,1,NaN\n")
    assert dict(project.step_columns("read")) == {"id": "INTEGER", "w": "VARCHAR", "n": "VARCHAR"}


def test_a_created_postgres_table_keeps_numeric_each_value_with_the_columns_scale(project, postgres_server):
    path = project.pipeline([pg_step("read", "read", table="pn_orders"),
                             pg_step("write", "write", table="pn_orders_copy", create_if_missing=True)], name="made")
    assert project.run(str(path)).returncode == 0
    with psycopg.connect(postgres_server.dsn()) as con:
        kind = con.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                           "WHERE attrelid = 'pn_orders_copy'::regclass AND attname = 'fee'").fetchone()
        values = con.execute("SELECT fee::text FROM pn_orders_copy ORDER BY id").fetchall()
        con.execute("DROP TABLE pn_orders_copy")
    assert kind == ("numeric",)
    assert values == [("1.50",), (None,), ("0.25",)]


def test_the_dry_runs_facts_tell_the_model_which_numbers_are_text():
    from osiris.run.duckdb_run import StepResult
    from osiris.sample.facts import step_fact

    step = StepResult("read", "postgres.extractor", "read", status="ok", rows_out=2,
                      columns=[("id", "INTEGER"), ("w", "VARCHAR"), ("fee", "DECIMAL(3,2)")], text_numbers=["w"])
    assert step_fact(step) == (
        "step 'read' (postgres.extractor): 2 rows; columns: id INTEGER, w VARCHAR (numbers as exact text: some need "
        "more than 38 digits, or are NaN; cast to DOUBLE, or compare as text, before arithmetic), fee DECIMAL(3,2)")


def test_a_run_notes_the_numeric_columns_it_keeps_as_text(tmp_path):
    import duckdb

    from osiris.run.step_tables import text_numbers as _text_numbers
    from osiris.run.spool import Column, CsvSpool

    con = duckdb.connect()
    spool = CsvSpool(con, "t", [Column("w", "VARCHAR", note="numeric"), Column("s", "VARCHAR")], tmp_path / "s",
                     10, lambda n: None)
    spool.close()
    assert _text_numbers(con, "t", [("w", "VARCHAR"), ("s", "VARCHAR")]) == ["w"]

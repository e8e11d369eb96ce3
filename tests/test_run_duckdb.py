"""duckdb.processor on a real in-process DuckDB, driven directly: validation stops a misspelt table
or column before `osiris run` gets there, so the runtime's own OML501/OML502/OML503/OML504 lines
(and their hints) are pinned here, with a planted secret that must be masked."""

from __future__ import annotations

import duckdb
import pytest

from osiris.run.driver import RuntimeProblem, StepContext
from osiris.run.drivers.duckdb import DRIVER

PLANTED = "duck-Secret-Planted-81"


def run_query(query: str) -> tuple[StepContext, RuntimeProblem | None]:
    con = duckdb.connect()
    con.execute("CREATE TABLE df_read AS SELECT * FROM (VALUES (1, 'Ann', 2.5), (2, 'Bo', 3.0)) AS t(id, name, score)")
    ctx = StepContext("shape", "duckdb.processor", "transform", {"query": query}, con, "df_shape",
                      {"read": "df_read"}, secrets=(PLANTED,))
    try:
        DRIVER.run(ctx)
    except RuntimeProblem as problem:
        return ctx, problem
    return ctx, None


def test_a_query_runs_and_counts_rows_in_and_out() -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE df_read AS SELECT range AS id FROM range(5)")
    heard: list[int] = []
    ctx = StepContext("shape", "duckdb.processor", "transform", {"query": "SELECT id FROM df_read WHERE id > 2;"},
                      con, "df_shape", {"read": "df_read"}, progress=heard.append)
    outcome = DRIVER.run(ctx)
    assert (outcome.rows_in, outcome.rows_out, heard) == (5, 2, [2])
    assert con.execute("SELECT id FROM df_shape ORDER BY id").fetchall() == [(3,), (4,)]


def test_an_unknown_table_names_the_tables_the_engine_has() -> None:
    """Since issue 42 a table that is none of the step's inputs is refused before DuckDB runs anything
    (the run-time half of OML407/OML408); the hint names the tables the step sees."""
    _, problem = run_query("SELECT * FROM df_raed")
    assert problem is not None
    assert (problem.code, problem.message) == ("OML518", "the SQL reached outside its inputs, and the DuckDB engine's "
                                                         "list refused it: the query reads table 'df_raed', which is "
                                                         "none of its inputs")
    assert problem.hint == "read only the tables this step sees: df_read, input_df"


def test_an_unknown_column_names_the_columns_of_the_inputs() -> None:
    _, problem = run_query("SELECT nmae FROM df_read")
    assert problem is not None
    assert (problem.code, problem.message, problem.value) == ("OML502", 'column "nmae" does not exist', "nmae")
    assert "'name'" in (problem.hint or "")


def test_a_value_that_does_not_convert_is_a_type_problem_with_the_value_withheld() -> None:
    """DuckDB quotes the value it could not convert; since issue 22 no value is told, secret or not:
    the column (when DuckDB names it) and the type are."""
    _, problem = run_query(f"SELECT CAST('{PLANTED}' AS INTEGER) AS n FROM df_read")
    assert problem is not None
    assert (problem.code, problem.message) == (
        "OML504", "a value does not fit its column's type: a column holds a value that does not convert to "
                  "INTEGER; the value is withheld")
    _, problem = run_query("SELECT CAST(name AS INTEGER) AS m FROM df_read")
    assert problem is not None and problem.message == (
        "a value does not fit its column's type: column 'name' holds a value that does not convert to INTEGER; "
        "the value is withheld")


@pytest.mark.parametrize("query", [
    "SELECT 1 FROM df_read GROUP BY",  # a parser error
    "SELECT id FROM df_read GROUP BY name",  # a binder error that is not a missing column
])
def test_other_engine_errors_are_the_sql_rejected(query: str) -> None:
    _, problem = run_query(query)
    assert problem is not None
    assert problem.code == "OML503"
    assert problem.message.startswith("the database rejected the SQL: ")


def test_a_file_read_is_refused_before_duckdb_tries_it() -> None:
    """Until issue 42 this was DuckDB's IO error (OML503); now the list refuses it before any IO."""
    _, problem = run_query("SELECT * FROM read_csv('/nonexistent/osiris/x.csv')")
    assert problem is not None
    assert (problem.code, problem.message) == ("OML518", "the SQL reached outside its inputs, and the DuckDB "
                                                         "engine's list refused it: the query calls read_csv, "
                                                         "which reads files")


def test_a_catalog_error_that_is_not_about_a_table_is_the_sql_rejected() -> None:
    _, problem = run_query("SELECT CAST(id AS no_such_type) AS x FROM df_read")
    assert problem is not None
    assert problem.code == "OML503", problem
    assert "no_such_type" in problem.message


def test_a_function_duckdb_does_not_have_is_refused_by_the_list() -> None:
    """Until issue 42 DuckDB's catalog error (OML503); now off the list, refused before DuckDB looks."""
    _, problem = run_query("SELECT no_such_function(id) FROM df_read")
    assert problem is not None
    assert (problem.code, problem.message) == ("OML518", "the SQL reached outside its inputs, and the DuckDB engine's "
                                                         "list refused it: the query calls no_such_function, which is "
                                                         "not on the DuckDB engine's list of functions a transform may "
                                                         "call")


def test_a_binder_error_that_is_not_a_missing_column_is_the_sql_rejected() -> None:
    _, problem = run_query("SELECT id FROM df_read GROUP BY name")
    assert problem is not None
    assert problem.code == "OML503", problem

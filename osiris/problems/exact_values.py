"""OML504: a value that cannot arrive exactly, or does not fit its column's type or the file's
encoding; nothing is written (docs/types.md lists every such case)."""

from __future__ import annotations

from osiris.problems.base import RuntimeProblem


def type_problem(detail: str) -> RuntimeProblem:
    """OML504: a value does not fit its column's type, in the database's words."""
    return RuntimeProblem(
        "OML504", f"a value does not fit its column's type: {detail}",
        "cast the column in a duckdb.processor step before this one, or change the target column's type")


def value_problem(column: str, what: str, fix: str) -> RuntimeProblem:
    """OML504: values of `column` that cannot arrive exactly (`what` says which and how many);
    nothing was written. docs/types.md lists every such case."""
    return RuntimeProblem("OML504", f"column '{column}' {what}", f"{fix}; nothing was written (docs/types.md)",
                          value=column)


def not_a_datetime_problem(field: str, given: object) -> RuntimeProblem:
    """OML504: a setting that takes an ISO 8601 date and time holds something else."""
    return RuntimeProblem("OML504", f"{field} '{given}' is not an ISO 8601 date and time",
                          "write it like 2024-01-01T00:00:00Z (a time without a zone is taken as UTC)", value=given)


def unencodable_problem(encoding: str, char: str, line: int) -> RuntimeProblem:
    """OML504: a character a CSV writer's encoding cannot hold; nothing was written."""
    return RuntimeProblem(
        "OML504", f"a value does not fit the file's encoding {encoding}: {char!r} (U+{ord(char):04X}) "
                  f"on line {line} of the file",
        "set encoding: utf-8 (the default) or utf-16, or replace the character in a duckdb.processor step "
        "before this one; nothing was written")


def inexact_float_problem(column: str) -> RuntimeProblem:
    """OML504: a MySQL FLOAT the query can only read with the text protocol's six digits, since it
    cannot be read as a derived table, where it would be widened to its exact value."""
    return value_problem(column, "is a MySQL FLOAT that this query reads with six digits only (16777216 as "
                                 "16777200): the query cannot be read as a subquery, where it would be read exactly",
                         f"read it as CAST({column} AS DOUBLE) in the step's query, or leave out what keeps the query "
                         "from being a subquery (SQL_NO_CACHE, HIGH_PRIORITY, SQL_CALC_FOUND_ROWS)")


def unreadable_value_problem(column: str, duckdb_type: str) -> RuntimeProblem:
    """OML504: a value a reader sent that the column's engine type cannot hold (docs/types.md)."""
    kind = duckdb_type.split("(")[0]
    if kind == "DECIMAL":
        return value_problem(column, f"holds NaN or an infinite number, which {duckdb_type} cannot hold",
                             "read it as text (CAST(x AS TEXT)) or as double precision in the step's query")
    if kind in ("DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE"):
        return value_problem(column, f"holds a date before the year 1 (BC), which the engine's {kind} cannot hold",
                             "read it as text (CAST(x AS TEXT)) in the step's query, or leave those rows out")
    return value_problem(column, f"holds a value the engine's {duckdb_type} cannot hold",
                         "read it as text (CAST(x AS TEXT)) in the step's query")

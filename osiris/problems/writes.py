"""OML501, OML512, OML514, OML519: a writer's target, its keys, the rows it refuses and the one
input a writer writes."""

from __future__ import annotations

from osiris.problems.base import RuntimeProblem
from osiris.suggest import listing


def missing_target_problem(table: str, create_field: str) -> RuntimeProblem:
    """OML501: a writer's target does not exist. The hint creates it; it never suggests another,
    similar table, which may be the production one."""
    return RuntimeProblem("OML501", f'table "{table}" does not exist',
                          f"set {create_field}: true to create it with the input's columns, or correct the "
                          "table name", value=table)


def uncreatable_target_problem(table: str, reason: str, fix: str) -> RuntimeProblem:
    """OML501: a writer's target does not exist and this connection cannot create it (`reason`);
    `fix` says what lets it, or the DDL to run by hand."""
    return RuntimeProblem("OML501", f"table '{table}' does not exist, and {reason}", fix, value=table)


def key_problem(keys: list[str], columns: list[str]) -> RuntimeProblem:
    """OML512: upsert keys the rows do not have."""
    return RuntimeProblem(
        "OML512",
        f"the upsert key {', '.join(repr(k) for k in keys)} is not a column of the rows written "
        f"(columns: {listing(columns)})",
        "set the key to columns the rows have, with a primary key or unique index on them in the target")


def keys_needed_problem(mode: str, table: object) -> RuntimeProblem:
    """OML512: a write mode that matches rows by key, on a step that names no key."""
    return RuntimeProblem("OML512", f"write_mode '{mode}' needs primary_key: the key column(s) of '{table}'",
                          "Set primary_key to the column (or list of columns) that identifies a row.")


def key_not_in_input_problem(key: str, component: str, names: list[str]) -> RuntimeProblem:
    """OML512: a key column the step's input does not have."""
    return RuntimeProblem("OML512", f"key column '{key}' is not in the input of the {component} step",
                          f"The input's columns are: {listing(names)}.")


def unique_key_problem(table: str, keys: list[str], field: str) -> RuntimeProblem:
    """OML512: the target has no primary key or unique index on the upsert's key columns."""
    return RuntimeProblem(
        "OML512", f"the target {table} has no primary key or unique index on {', '.join(keys)}",
        f"add a primary key or unique index on the {field} columns, or set {field} to them")


REJECTION_HINTS = {  # the kind of constraint -> what fixes the rows
    "unique": "use an upsert on the key columns, or remove the duplicate rows in a transform step",
    "not_null": "give the column a value in a transform step (COALESCE), or allow NULL in the target",
    "foreign_key": "write the rows they refer to first, or leave out the rows without them in a transform step",
    "check": "correct or leave out the rows the constraint refuses, in a transform step",
}


def rejected_problem(detail: str, constraint: str = "") -> RuntimeProblem:
    """OML514: the target refused the rows (`constraint`: unique, not_null, foreign_key or check)."""
    fix = REJECTION_HINTS.get(constraint, "correct or leave out the offending rows in a transform step")
    return RuntimeProblem("OML514", f"the target rejected the rows: {detail}", f"{fix}; nothing was kept")


def inputs_problem(kind: str, count: int) -> RuntimeProblem:
    """OML519: a writer (`kind`: "writer", "CSV writer") takes exactly one input."""
    return RuntimeProblem("OML519", f"a {kind} writes one input, but this step has {count}",
                          "join or union the inputs in a duckdb.processor step first, and write its result")


def input_without_table_problem(step_id: str) -> RuntimeProblem:
    """OML519: a step takes its rows from a step that leaves none (a writer)."""
    return RuntimeProblem(
        "OML519", f"its input '{step_id}' leaves no table to read (a writer has no output)",
        "name the step whose rows this one takes: needs: [<that step's id>] (docs/run.md, step order)",
        value=step_id)

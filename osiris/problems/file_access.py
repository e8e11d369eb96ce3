"""OML502, OML503, OML510: a step's files, read or written, and a CSV file `osiris discover` reads."""

from __future__ import annotations

from collections.abc import Sequence

from osiris.problems.base import RuntimeProblem
from osiris.suggest import did_you_mean, listing


def file_column_problem(column: str, known: Sequence[str], shown: str) -> RuntimeProblem:
    """OML502: a CSV step names a column (in `columns`, or as its incremental cursor) that the file
    `shown` does not have; the hint lists the file's columns in their order."""
    return RuntimeProblem("OML502", f'column "{column}" does not exist in {shown}',
                          f"columns of {shown}: {listing(list(known))}{did_you_mean(column, list(known))}", value=column)


def repeated_header_problem(shown: str, column: str) -> RuntimeProblem:
    """OML540: a CSV file's header names one column twice, which the step's table cannot hold
    (DuckDB would read the second as `<name>_1`); refused before any row is read."""
    return RuntimeProblem(
        "OML540", f"the header of {shown} names two columns '{column}' (column names ignore case)",
        "give each column its own name in the file's header, or read it with header: false (columns "
        "column0, column1, ...); nothing was read", value=column)


def unknown_dtype_column_problem(shown: str, typed: list[str]) -> RuntimeProblem:
    """OML502: a CSV reader's dtype names a column the file does not have."""
    return RuntimeProblem(
        "OML502", f"dtype names a column {shown} does not have (dtype names: {listing(typed)})",
        "correct the names in dtype to the file's header; without a header (header: false) the columns "
        "are column0, column1, ...")


def unreadable_file_problem(shown: str, detail: str, hint: str, value: object = None) -> RuntimeProblem:
    """OML503: a step's CSV file cannot be read as its config says (`detail`: why, in names and types)."""
    return RuntimeProblem("OML503", f"cannot read {shown} as CSV: {detail}", hint, value=value)


def unwritable_file_problem(shown: object, detail: str) -> RuntimeProblem:
    """OML503: the operating system refused to write a step's file (`detail`: its words)."""
    return RuntimeProblem("OML503", f"cannot write {shown}: {detail}",
                          "check the free space and the permissions of the folder it goes to")


def file_problem(shown: str, hint: str) -> RuntimeProblem:
    """OML510: a file a step reads is not there."""
    return RuntimeProblem("OML510", f"file not found: {shown}", hint, value=shown)


def no_directory_problem(shown: str) -> RuntimeProblem:
    """OML510: a writer's file would go into a folder that is not there, and create_dirs is off."""
    return RuntimeProblem("OML510", f"the directory of {shown} does not exist", "create it, or set create_dirs: true")


def unreadable_csv_problem(shown: str, detail: str) -> RuntimeProblem:
    """`osiris discover FILE.csv` could not read the file (a command's failure, no OML code)."""
    return RuntimeProblem("", f"cannot read {shown} as CSV: {detail}", "check that the file is a CSV file with a header row")

"""Checks on data at run time (docs/run-again.md, "Checks on data"): each check of a step counted
on its rows in the engine's DuckDB, right after the step made them.

A failing error-level check fails its step (OML537), so nothing downstream runs; the engine runs
every step that no writer comes before ahead of the first writer (`checked_first`), so such a
failure comes before any writer commits. A warning-level one is a warning of the step (OML538).
Messages name the step's check and count rows; they never hold a value of the data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from osiris.oml.checks import Check, check_query, read_checks
from osiris.oml.values import Config
from osiris.problems import RuntimeProblem, check_warning, checks_failed_problem
from osiris.text_table import count_rows
from osiris.trust.engine_words import filtered
from osiris.trust.sql import refuse_unlisted

if TYPE_CHECKING:
    import duckdb


def checked_first(steps: Sequence[Config], order: list[str], dependencies: Mapping[str, list[str]]) -> list[str]:
    """`order` with every step that is no writer and needs none (directly or not) moved ahead of the
    writers, keeping the order within each part: a valid order, in which every such step's checks
    run before any writer commits. `order` itself when no step has checks."""
    if not any(isinstance(step.get("checks"), list) and step.get("checks") for step in steps):
        return order
    writers = {str(step["id"]) for step in steps if step.get("mode") == "write"}
    after_a_writer: set[str] = set()
    for step_id in order:
        if step_id in writers or any(d in after_a_writer for d in dependencies.get(step_id, [])):
            after_a_writer.add(step_id)
    return [s for s in order if s not in after_a_writer] + [s for s in order if s in after_a_writer]


def run_checks(con: duckdb.DuckDBPyConnection, table: str, step: Config, rows: int, sample: int | None
               ) -> tuple[RuntimeProblem | None, list[RuntimeProblem]]:
    """The step's checks on `table` (its `rows` rows): the error (OML537, every failing error-level
    check in one line) or None, and the warnings (OML538)."""
    checks, _ = read_checks(step.get("checks"))  # validation refused a malformed list
    columns = [str(row[0]) for row in con.execute(f'DESCRIBE "{table}"').fetchall()]
    failed: list[str] = []
    warnings: list[RuntimeProblem] = []
    for check in checks:
        outcome = _outcome(con, table, check, rows, columns, sample)
        if outcome is None:
            continue
        if check.level == "warning" and not outcome.endswith(_BROKEN):  # a check that cannot run is never a warning
            warnings.append(check_warning(outcome))
        else:
            failed.append(outcome)
    if not failed:
        return None, warnings
    return checks_failed_problem(failed), warnings


CHECK_FAILED = "OML537"
_BROKEN = "; the check cannot run"


def _outcome(con: duckdb.DuckDBPyConnection, table: str, check: Check, rows: int, columns: list[str], sample: int | None) -> str | None:
    """"not_null(email): 2 of 5 rows" for a failing check; None when it passes."""
    missing = [c for c in check.columns if c not in columns]
    if missing:
        return f"{check.label}: the rows have no column '{missing[0]}' (columns: {', '.join(columns)}){_BROKEN}"
    if check.kind == "row_count":
        return _row_count(check, rows, sample)
    if check.kind == "expression":  # the second lock, as for a transform: the exact SQL about to run
        refuse_unlisted(check_query(table, check.expression), "duckdb", [table])
    try:
        bad = _failing_rows(con, table, check)
    except Exception as error:  # DuckDB's: a binder or parser error names columns, others may quote a value
        kind = type(error).__name__
        said = filtered(str(error).splitlines()[0][:200]) if kind in ("BinderException", "ParserException") else kind
        return f"{check.label}: could not be evaluated ({said}){_BROKEN}"
    if not bad:
        return None
    return f"{check.label}: {bad:,} of {rows:,} {_what(check)}"


def _failing_rows(con: duckdb.DuckDBPyConnection, table: str, check: Check) -> int:
    column = _quoted(check.columns[0]) if check.columns else ""
    if check.kind == "not_null":
        found = con.execute(f'SELECT count(*) FROM "{table}" WHERE {column} IS NULL').fetchone()
    elif check.kind == "unique":
        keys = ", ".join(_quoted(c) for c in check.columns)
        found = con.execute(f'SELECT coalesce(sum(n), 0) FROM (SELECT count(*) AS n FROM "{table}" '
                            f"GROUP BY {keys} HAVING count(*) > 1)").fetchone()
    elif check.kind == "accepted_values":
        marks = ", ".join("?" for _ in check.accepted)
        found = con.execute(f'SELECT count(*) FROM "{table}" WHERE {column} IS NOT NULL AND {column} NOT IN ({marks})',
                            list(check.accepted)).fetchone()
    else:
        found = con.execute(check_query(table, check.expression)).fetchone()
    return int(found[0]) if found else 0


def _what(check: Check) -> str:
    return {"not_null": "rows are empty (NULL)", "unique": "rows share their key with another row",
            "accepted_values": "rows hold a value not accepted",
            "expression": f"rows do not satisfy {check.expression!r}"}[check.kind]


def _row_count(check: Check, rows: int, sample: int | None) -> str | None:
    """On a sample, too few rows fail only when the source ran out below the sample's size."""
    if check.minimum is not None and rows < check.minimum and (sample is None or rows < sample):
        return f"row_count: {count_rows(rows)}, at least {check.minimum:,} expected"
    if check.maximum is not None and rows > check.maximum:
        return f"row_count: {count_rows(rows)}, at most {check.maximum:,} expected"
    return None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


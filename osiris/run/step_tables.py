"""A step's tables before and after its driver: its inputs checked and seen as `input_df`, its
result's rows, columns, sample preview and warnings taken from its output table."""

from __future__ import annotations

import re
from typing import Any

from osiris.run.counts import row_count
from osiris.problems import driver_warning, empty_sample_problem
from osiris.run.driver import StepContext, StepOutcome
from osiris.run.problems import input_without_table_problem
from osiris.run.results import RunOptions, StepResult
from osiris.run.spool import quote_ident
from osiris.text_table import count_rows
from osiris.trust.engine_words import current, shown_columns

_JOIN = re.compile(r"\bjoin\b", re.IGNORECASE)


def prepare_inputs(con: Any, ctx: StepContext) -> None:
    """Each input's table checked (a fused read's view was just made: binding it again would sniff
    its file again), and the one input seen as `input_df`."""
    for step_id, table in ctx.input_tables.items():
        if step_id not in ctx.fused_inputs and not has_table(con, table):
            raise input_without_table_problem(step_id)
    con.execute("DROP VIEW IF EXISTS input_df")
    if len(ctx.input_tables) == 1:
        (table,) = ctx.input_tables.values()
        con.execute(f'CREATE VIEW input_df AS SELECT * FROM "{table}"')


def finish_step(result: StepResult, outcome: StepOutcome, con: Any, ctx: StepContext, options: RunOptions) -> None:
    result.status = "ok"
    result.rows_in, result.rows_out = outcome.rows_in, outcome.rows_out
    result.warnings = [driver_warning(w) if isinstance(w, str) else w for w in outcome.warnings]
    # a fused read's view: its columns are known; a writer leaves no table (osiris.run.driver), and
    # asking for one that is not there costs DuckDB's first catalog search, 10-15 ms (docs/performance.md)
    produced = ctx.as_view or (result.mode != "write" and has_table(con, ctx.output_table))
    known = current() if result.mode != "read" else None  # a source's own columns are its schema
    if produced:
        columns = outcome.columns or [
            (str(row[0]), str(row[1])) for row in con.execute(f'DESCRIBE "{ctx.output_table}"').fetchall()]
        names = shown_columns([name for name, _ in columns], known)  # made from data: column_<n>
        result.columns = [(name, kind) for name, (_, kind) in zip(names, columns)]
        as_text = text_numbers(con, ctx.output_table, columns)
        result.text_numbers = [shown for shown, (name, _) in zip(names, columns) if name in as_text]
    if options.sample is not None and produced:
        cursor = con.execute(f'SELECT * FROM "{ctx.output_table}" LIMIT {int(options.preview_rows)}')
        rows = [tuple(options.redact(list(row))) for row in cursor.fetchall()]
        # names as values: a data-made name is column_<n>, a secret echoed as a name is masked
        result.preview = ([str(n) for n in options.redact([*shown_columns([d[0] for d in cursor.description], known)])], rows)
    if options.sample is not None and result.mode == "transform" and produced:
        _warn_empty_join(result, con, ctx)


def text_numbers(con: Any, table: str, columns: list[tuple[str, str]]) -> list[str]:
    """The VARCHAR columns a reader noted as numeric: numbers kept as their exact text (docs/types.md)."""
    from osiris.run.spool import column_notes

    noted = column_notes(con, table)
    return [name for name, kind in columns if kind == "VARCHAR" and noted.get(name) == "numeric"]


def _warn_empty_join(result: StepResult, con: Any, ctx: StepContext) -> None:
    """OML513: on samples, a transform that finds nothing in inputs that have rows is expected often
    enough to be a warning. It speaks of keys only for a join; a filter is told its conditions met
    none of the sampled rows."""
    query = str(ctx.config.get("query", ""))
    joins = bool(_JOIN.search(query))
    if result.rows_out or not (joins or len(ctx.input_tables) > 1):
        return
    counts = {step_id: row_count(con, table)
              for step_id, table in ctx.input_tables.items()}
    if counts and not all(counts.values()):
        return
    described = ", ".join(f"{step_id}: {count_rows(count)}" for step_id, count in counts.items()) or "sampled inputs"
    result.warnings.append(empty_sample_problem(described, joins))


def has_table(con: Any, name: str) -> bool:
    """Whether the engine holds `name`. Asked of the catalog by name, not by listing
    `duckdb_tables()`, whose first call in a process costs tens of milliseconds (docs/performance.md)."""
    from osiris.duckdb_core import duckdb

    try:
        con.execute(f"SELECT 1 FROM {quote_ident(name)} LIMIT 0")
    except duckdb.CatalogException:
        return False
    return True


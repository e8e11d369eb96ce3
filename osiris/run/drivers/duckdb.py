"""duckdb.processor: run the step's SQL on the engine; its result becomes `df_<id>`.

The query reads the tables of the steps it needs (`df_<id>`, and `input_df` when the step has one
input) and calls the functions on the DuckDB allowlist: the exact text is checked before it runs,
and it runs in the engine's sandbox; a query that reaches further is OML518 (docs/security.md).
"""

from __future__ import annotations

import re

from osiris.oml.values import Config
from osiris.run.driver import Family, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.counts import row_count, scanned_rows
from osiris.problems import engine_table_problem, no_engine_count_problem, nothing_to_discover_problem
from osiris.run.problems import (
    masked,
    out_of_memory,
    quoted_name,
    redacted,
    sql_problem,
    type_problem,
    unknown_column_problem,
)
from osiris.run.spool import quote_ident
from osiris.trust.disclosure import conversion_problem
from osiris.trust.sandbox import refused

_TABLE_NAME = re.compile(r"with name (\S+) does not exist")


class DuckDBDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        from osiris.duckdb_core import duckdb

        query = str(ctx.config["query"]).strip().rstrip(";")
        statement = f"CREATE OR REPLACE TABLE {quote_ident(ctx.output_table)} AS {query}"
        fused = {step: table for step, table in ctx.input_tables.items() if step in ctx.fused_inputs}
        try:
            _refuse_unlisted(ctx, statement, query)
            scanned = _run_counting(ctx, statement) if fused else None
            if not fused:
                ctx.con.execute(statement)
        except duckdb.CatalogException as error:
            raise _unknown_table(ctx, error) from None
        except duckdb.BinderException as error:
            raise _unknown_column(ctx, error) from None
        except duckdb.PermissionException as error:
            raise refused(redacted(error, ctx.secrets)) from None
        except (duckdb.ConversionException, duckdb.InvalidInputException) as error:
            raise type_problem(conversion_problem(masked(str(error), ctx.secrets))) from None  # filtered there
        except duckdb.OutOfMemoryException as error:
            raise out_of_memory(error) from None
        except duckdb.Error as error:
            raise sql_problem(redacted(error, ctx.secrets)) from None
        if fused and scanned is None:
            raise no_engine_count_problem()
        rows = row_count(ctx.con, ctx.output_table)
        rows_in = sum(row_count(ctx.con, t) for s, t in ctx.input_tables.items() if s not in fused) + (scanned or 0)
        ctx.progress(rows)
        return StepOutcome(rows_in=rows_in, rows_out=rows)

    def discover(self, config: Config, tables: list[str] | None) -> list[TableInfo]:
        raise nothing_to_discover_problem("duckdb.processor", "discover the connections its inputs read from")


def _run_counting(ctx: StepContext, statement: str) -> int | None:
    """Run `statement` on the engine, which profiles every query when a read is fused into a step:
    the rows its one file scan read, DuckDB's own operator count (osiris.run.fused); None when
    there is no such count."""
    ctx.con.execute(statement)
    return scanned_rows(ctx.con.get_profiling_information() or "")


def _refuse_unlisted(ctx: StepContext, statement: str, query: str) -> None:
    """OML518 unless the exact text about to run is one statement whose query is on the DuckDB lists,
    as sqlglot reads it and as DuckDB itself does (docs/security.md, "SQL allowed by list");
    validation said OML408 first. DuckDB's syntax error is raised as it is (nothing has run)."""
    from osiris.trust.duckdb_sql import unlisted
    from osiris.trust.sql import refuse_unlisted, refused_by_list, step_tables

    if len(ctx.con.extract_statements(statement)) != 1:  # parses only; a ParserException is DuckDB's own
        raise refused_by_list("duckdb", "the SQL holds more than one statement", "write one query")
    tables = step_tables(list(ctx.input_tables.values()))
    refuse_unlisted(query, "duckdb", tables)  # validation's check, with its messages and hints
    reason = unlisted(ctx.con, query, tables)  # DuckDB's own reading, in case sqlglot's differs
    if reason:
        raise refused_by_list("duckdb", reason, f"read only the tables this step sees: {', '.join(tables) or 'none'}")


def _unknown_table(ctx: StepContext, error: Exception) -> RuntimeProblem:
    text = redacted(error, ctx.secrets)
    if "Table" not in text and "table" not in text:
        return sql_problem(text)
    found = _TABLE_NAME.search(text)
    wrong = found.group(1).strip('"') if found else quoted_name(text)
    known = [r[0] for r in ctx.con.execute(
        "SELECT table_name FROM duckdb_tables() UNION SELECT view_name FROM duckdb_views() "
        "WHERE NOT internal").fetchall()]
    return engine_table_problem(wrong, known)


def _unknown_column(ctx: StepContext, error: Exception) -> RuntimeProblem:
    text = redacted(error, ctx.secrets)
    if "not found" not in text:
        return sql_problem(text)
    wrong = quoted_name(text)
    known = [str(row[0]) for table in ctx.input_tables.values()
             for row in ctx.con.execute(f"DESCRIBE {quote_ident(table)}").fetchall()]
    return unknown_column_problem(wrong, known)


DRIVER = DuckDBDriver()
FAMILY = Family("duckdb", "DuckDB", ("duckdb.processor",), kind="engine", dialect="duckdb")

"""Validation for the Spark engine (docs/spark.md): each `duckdb.processor` query is transpiled
from DuckDB's SQL to Spark's with sqlglot, and what will not run the same there is an issue before
anything runs: OML412 (no Spark form, or one that fails there), OML413 (a Spark form known to give
another answer, osiris.run.spark.differences), OML414 (another thing the Spark engine cannot do as
the DuckDB engine does, e.g. a CSV option). Spark's analyser checks the transpiled queries later,
before any job (osiris.run.spark.spark_run).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from osiris.registry.registry import effective_config
from osiris.run.fields import text
from osiris.run.spark.differences import DIFFERENCES, DIFFERS, FAILS
from osiris.validate.issue import Issue, ValidationReport

if TYPE_CHECKING:
    from osiris.oml.config import StepConfig

PROCESSOR = "duckdb.processor"
OTHER = "OML414"
# the readers whose incremental reads the Spark engine filters itself (osiris.run.spark.jdbc, .files), and
# those whose own drivers read for it, as on DuckDB (osiris.run.spark.bridge)
INCREMENTAL = frozenset({"postgres.extractor", "mysql.extractor", "filesystem.csv_extractor", "rest.extractor",
                         "graphql.extractor", "posthog.extractor", "supabase.extractor"})


class NotTranspiled(Exception):
    """sqlglot has no Spark form for the query."""


def spark_sql(query: str) -> str:
    """The Spark SQL of a DuckDB query; NotTranspiled when sqlglot has none."""
    import sqlglot
    from sqlglot.errors import ErrorLevel, SqlglotError

    from osiris.quiet_sqlglot import quiet_sqlglot

    quiet_sqlglot()
    try:
        (converted,) = sqlglot.transpile(query.strip().rstrip(";"), read="duckdb", write="spark",
                                         unsupported_level=ErrorLevel.RAISE)
    except (SqlglotError, ValueError) as error:
        raise NotTranspiled(" ".join(str(error).split())[:200]) from None
    return converted


def spark_report(report: ValidationReport) -> ValidationReport:
    """A valid report with the Spark engine's issues added (their file positions where known)."""
    from dataclasses import replace

    from osiris.validate.sql_position import ValueLocator

    locator = ValueLocator(report.oml_text or "")

    def locate(path: str) -> tuple[int | None, int | None]:
        position = locator.position(path, 0)
        return (position.line, position.column) if position else (None, None)

    issues = spark_issues(report.pipeline or {}, locate, report.step_configs)
    return replace(report, issues=report.issues + issues) if issues else report


def spark_issues(pipeline: Mapping[str, Any], locate: Any = None,
                 step_configs: Mapping[str, StepConfig] | None = None) -> list[Issue]:
    """Every reason a valid pipeline would not run the same on Spark, in step order, each step's
    options read from its effective config (validation's `step_configs`: the spec's defaults merged).

    `locate(path)` gives the (line, column) of a value in the pipeline file, when known."""
    issues: list[Issue] = []
    for index, step in enumerate(pipeline.get("steps") or []):
        config = step.get("config") or {}
        effective = effective_config(step_configs or {}, str(step.get("id")), str(step.get("component")), config) \
            if isinstance(config, Mapping) else config
        for path, message, hint, code in _step_problems(step, effective):
            where = f"/steps/{index}/config/{path}"
            line, column = locate(where) if locate else (None, None)
            issues.append(Issue(code, 4, "error", where, f"step '{step.get('id')}': {message}", hint,
                                line=line, column=column))
        if isinstance(config, dict) and config.get("incremental") and step.get("component") not in INCREMENTAL:
            where = f"/steps/{index}/config/incremental"  # docs/run-again.md
            line, column = locate(where) if locate else (None, None)
            issues.append(Issue("OML414", 4, "error", where, f"step '{step.get('id')}': incremental reads of "
                                f"{step.get('component')} are not available on the Spark engine",
                                "run it on the DuckDB engine (--engine duckdb)", line=line, column=column))
    return issues


def _step_problems(step: Mapping[str, Any], config: Mapping[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    component = str(step.get("component"))
    if component == PROCESSOR and isinstance(config.get("query"), str):
        yield from _query_problems(config["query"])
    elif component == "filesystem.csv_writer":
        yield from _csv_writer_problems(config)
    elif component == "filesystem.csv_extractor":
        yield from _csv_reader_problems(config)


def _query_problems(query: str) -> Iterator[tuple[str, str, str, str]]:
    import sqlglot
    from sqlglot.errors import SqlglotError

    from osiris.quiet_sqlglot import quiet_sqlglot

    quiet_sqlglot()
    try:
        tree = sqlglot.parse_one(query, read="duckdb")
    except SqlglotError:
        return  # OML405 already says it does not parse
    seen: set[str] = set()
    for node in tree.walk():
        for difference in DIFFERENCES:
            if difference.name not in seen and difference.matches(node):
                seen.add(difference.name)
                verb = "does not run on Spark" if difference.code == FAILS else "gives another result on Spark"
                yield ("query", f"{difference.name} {verb}: {difference.why}", difference.hint, difference.code)
    unnamed = _unnamed_columns(tree)
    if unnamed:
        yield ("query", f"the column{'s' if len(unnamed) > 1 else ''} {', '.join(unnamed)} would be named "
                        "differently on Spark (DuckDB and Spark name an expression without AS each their own way)",
               "name every computed column: ... AS name", DIFFERS)
    if not seen:
        try:
            text = spark_sql(query)
        except NotTranspiled as error:
            yield ("query", f"the query has no Spark SQL form: {error}",
                   "rewrite it in plain SQL (SELECT, JOIN, GROUP BY, window functions), or run it on the DuckDB engine",
                   FAILS)
            return
        from sqlglot import exp

        if isinstance(tree, (exp.Query, exp.Pivot)):  # anything else is OML405's
            yield from _unlisted_on_spark(text)


def _unlisted_on_spark(text: str) -> Iterator[tuple[str, str, str, str]]:
    """OML408 for what the Spark form of a query would call off the Spark list (osiris.trust.sql):
    the DuckDB list was checked on the query as written, this is the SQL Spark would run."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    from osiris.trust.sql import outside_reach

    try:
        tree = sqlglot.parse_one(text, read="spark")
    except SqlglotError:
        yield ("query", "the Spark form of the query cannot be checked against the Spark engine's list",
               "rewrite it in plain SQL (SELECT, JOIN, GROUP BY, window functions), or run it on the DuckDB engine",
               "OML408")
        return
    for breach in outside_reach(tree, "spark")[:1]:
        yield ("query", f"on Spark, {breach.message}", breach.hint, "OML408")


def _unnamed_columns(tree: Any) -> list[str]:
    """The output columns of the outermost SELECT that are expressions without AS."""
    from sqlglot import exp

    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None or tree.find(exp.Select) is not select:
        return []
    return [e.sql(dialect="duckdb")[:40] for e in select.expressions
            if not isinstance(e, (exp.Alias, exp.Column, exp.Star)) and not (isinstance(e, exp.Literal) and e.is_number)]


def _csv_writer_problems(config: Mapping[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    quoting = text(config, "quoting").lower()
    if quoting != "minimal":
        yield ("quoting", f"quoting: {quoting} is not available on the Spark engine (its CSV writer cannot keep "
                          "NULL apart from an empty text when it quotes more than it must)",
               "use quoting: minimal (the default), or run this pipeline on the DuckDB engine", OTHER)
    if text(config, "newline").lower() == "crlf":
        yield ("newline", "newline: crlf is not available on the Spark engine (its CSV writer ends lines with LF)",
               "use newline: lf, or run this pipeline on the DuckDB engine", OTHER)


def _csv_reader_problems(config: Mapping[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    if config.get("skip_rows"):
        yield ("skip_rows", "skip_rows is not available on the Spark engine",
               "remove the leading lines from the file, or run this pipeline on the DuckDB engine", OTHER)
    header = config.get("header")
    if isinstance(header, int) and not isinstance(header, bool) and header > 0:
        yield ("header", f"header: {header} (the header on a later row) is not available on the Spark engine",
               "remove the lines above the header from the file, or run this pipeline on the DuckDB engine", OTHER)
    if text(config, "compression") in ("zip", "xz"):
        yield ("compression", f"Spark cannot read {config['compression']} files",
               "use gzip or bz2, or an uncompressed file", OTHER)
    if len(config.get("na_values") or []) > 1:
        yield ("na_values", "the Spark engine reads one NULL marker, not several",
               "give one value in na_values", OTHER)

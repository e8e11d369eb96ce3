"""What Spark does not read or write itself goes through the DuckDB engine's drivers (docs/spark.md).

An API extractor (rest, graphql, posthog, supabase) reads into a DuckDB table, handed to Spark as
Arrow; a writer reads its input from a DuckDB table filled from Spark's rows. The PostgreSQL and
MySQL writers get the rows another way: Spark stages them in the target database and the DuckDB
table is empty, there only to give the columns (osiris.run.spark.jdbc).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from osiris.run.spark import engine_columns
from osiris.run.spool import quote_ident

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from osiris.run.driver import StepContext, StepOutcome
    from osiris.run.spool import Column


def read_through_driver(spark: SparkSession, ctx: StepContext) -> tuple[DataFrame, StepOutcome, list[Column]]:
    """Run the component's own driver into `ctx.con`, then give its table to Spark; and that table's
    columns (the DuckDB engine's, with its reader's notes)."""
    import duckdb  # the package: its relation API hands a table to Arrow (ADR 0206)

    from osiris.run.drivers import driver_for

    outcome = driver_for(ctx.component).run(ctx)
    columns = engine_columns.of_table(ctx.con, ctx.output_table)
    rows = duckdb.sql(f"SELECT * FROM {quote_ident(ctx.output_table)}", connection=ctx.con)
    assert rows is not None  # a SELECT always makes a relation
    table = rows.to_arrow_table()
    ctx.con.execute(f"DROP TABLE IF EXISTS {quote_ident(ctx.output_table)}")
    return _local_times(spark.createDataFrame(table), columns), outcome, columns


def _local_times(frame: DataFrame, columns: list[Column]) -> DataFrame:
    """`frame` with each DuckDB TIMESTAMP (a time without a zone, which Spark made an instant from
    Arrow) as Spark's TIMESTAMP_NTZ again: written, compared and kept as a cursor value as on DuckDB
    (`2026-01-02 10:00:00`, not `...+00`). The session runs in UTC, so the time is unchanged."""
    from pyspark.sql import functions as F

    local = {c.name for c in columns if c.type in ("TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS")}
    if not any(f.name in local and type(f.dataType).__name__ == "TimestampType" for f in frame.schema.fields):
        return frame
    return frame.select(*[F.col(f"`{n.replace('`', '``')}`").cast("timestamp_ntz").alias(n) if n in local
                          else F.col(f"`{n.replace('`', '``')}`") for n in frame.columns])


def write_through_driver(frame: DataFrame, ctx: StepContext, *, staged: list[Column] | None) -> StepOutcome:
    """Run the component's own driver on `frame`'s rows, or, when Spark `staged` them, on an empty
    table of these columns (the DuckDB engine's, which a created target is typed from)."""
    from osiris.run.drivers import driver_for

    (source,) = ctx.input_tables.values()
    if staged is not None:
        engine_columns.create(ctx.con, source, staged)
    else:
        rows = frame.toArrow()
        ctx.con.register("osiris_spark_rows", rows)
        ctx.con.execute(f"CREATE OR REPLACE TABLE {quote_ident(source)} AS SELECT * FROM osiris_spark_rows")
        ctx.con.unregister("osiris_spark_rows")
    try:
        return driver_for(ctx.component).run(ctx)
    finally:
        ctx.con.execute(f"DROP TABLE IF EXISTS {quote_ident(source)}")


def refuse_before_staging(frame: DataFrame, ctx: StepContext, columns: list[Column]) -> None:
    """The database writer's own per-value refusals (docs/types.md), before Spark stages a row: its
    check runs on a DuckDB table holding the refusable columns of the rows it could refuse, typed as
    on the DuckDB engine (`columns`: an interval Spark holds as PostgreSQL's text is an INTERVAL
    there), so that the OML504 line and its row count are that engine's."""
    from osiris.run.drivers import driver_for
    from osiris.run.drivers.sql_types import base, refuse

    dialect = getattr(driver_for(ctx.component), "dialect", None)
    if dialect is None:
        return
    engine = {column.name: column.type for column in columns}
    checked = [found for found in _refusable_columns(frame, engine) if base(found[1]) in dialect.refusals]
    rows = _refusable_rows(frame, checked)
    if rows is None:
        return
    (source,) = ctx.input_tables.values()
    ctx.con.execute(f"CREATE OR REPLACE TABLE {quote_ident(source)} "
                    f"({', '.join(f'{quote_ident(name)} {kind}' for name, kind, _ in checked)})")
    try:
        ctx.con.register("osiris_spark_rows", rows)
        values = ", ".join(_INTERVAL_TEXT.format(quote_ident(name)) if kind == "INTERVAL" else quote_ident(name)
                           for name, kind, _ in checked)
        ctx.con.execute(f"INSERT INTO {quote_ident(source)} SELECT {values} FROM osiris_spark_rows")
        ctx.con.unregister("osiris_spark_rows")
        refuse(ctx, source, [(name, kind) for name, kind, _ in checked], dialect.refusals, dialect.family.title)
    finally:
        ctx.con.execute(f"DROP TABLE IF EXISTS {quote_ident(source)}")


# An interval as Spark holds it: PostgreSQL's text ("-1 years -2 mons +3 days -04:05:06.5", read as the
# PostgreSQL reader reads it) or MySQL's TIME text ("-838:59:59"). One without a letter (years, months,
# days) and with at most two digits of hours is shorter than 100 hours: never refused.
_INTERVAL_TEXT = "TRY_CAST(replace({0}, '+', '') AS INTERVAL)"
_MAYBE_LONG_INTERVAL = r"[A-Za-z]|[0-9]{3,}:"


def _refusable_columns(frame: DataFrame, engine: dict[str, str]) -> list[tuple[str, str, Any]]:
    """(name, the DuckDB engine's type, Spark's test for a value it may refuse) of each column holding
    values some target refuses: NaN or an infinite number, and an interval (infinite dates never
    reach Spark as such)."""
    from pyspark.sql import functions as F

    found = []
    for field in frame.schema.fields:
        kind, column = type(field.dataType).__name__, F.col(f"`{field.name.replace('`', '``')}`")
        if kind in ("DoubleType", "FloatType"):
            infinite = [F.lit(float("inf")), F.lit(float("-inf"))]
            found.append((field.name, "DOUBLE" if kind == "DoubleType" else "FLOAT",
                          F.isnan(column) | column.isin(*infinite)))
        elif kind == "StringType" and engine.get(field.name) == "INTERVAL":
            found.append((field.name, "INTERVAL", column.rlike(_MAYBE_LONG_INTERVAL)))
    return found


def _refusable_rows(frame: DataFrame, checked: list[tuple[str, str, Any]]) -> Any:
    """The `checked` columns of the rows holding a value their target may refuse, as Arrow; None when
    there are none. A staged writer's table in DuckDB holds these rows alone."""
    from functools import reduce

    from pyspark.sql import functions as F

    if not checked:
        return None
    found = frame.where(reduce(lambda a, b: a | b, [test for _, _, test in checked]))
    rows = found.select(*[F.col(f"`{name.replace('`', '``')}`") for name, _, _ in checked]).toArrow()
    return rows if rows.num_rows else None

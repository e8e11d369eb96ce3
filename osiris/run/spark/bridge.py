"""What Spark does not read or write itself goes through the DuckDB engine's drivers (docs/spark.md).

An API extractor (rest, graphql, posthog, supabase) reads into a DuckDB table, handed to Spark as
Arrow; a writer reads its input from a DuckDB table filled from Spark's rows. The PostgreSQL and
MySQL writers get the rows another way: Spark stages them in the target database and the DuckDB
table is empty, there only to give the columns (osiris.run.spark.jdbc).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from osiris.run.spark.types import duckdb_columns
from osiris.run.spool import quote_ident

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from osiris.run.driver import StepContext, StepOutcome


def read_through_driver(spark: SparkSession, ctx: StepContext) -> tuple[DataFrame, StepOutcome]:
    """Run the component's own driver into `ctx.con`, then give its table to Spark."""
    from osiris.run.drivers import driver_for

    outcome = driver_for(ctx.component).run(ctx)
    table = ctx.con.sql(f"SELECT * FROM {quote_ident(ctx.output_table)}").to_arrow_table()
    ctx.con.execute(f"DROP TABLE IF EXISTS {quote_ident(ctx.output_table)}")
    return spark.createDataFrame(table), outcome


def write_through_driver(frame: DataFrame, ctx: StepContext, *, staged: bool) -> StepOutcome:
    """Run the component's own driver on `frame`'s rows (or only its columns, when `staged`)."""
    from osiris.run.drivers import driver_for

    (source,) = ctx.input_tables.values()
    if staged:
        columns = ", ".join(f"{quote_ident(name)} {kind}" for name, kind in duckdb_columns(frame.schema))
        ctx.con.execute(f"CREATE OR REPLACE TABLE {quote_ident(source)} ({columns})")
    else:
        rows = frame.toArrow()
        ctx.con.register("osiris_spark_rows", rows)
        ctx.con.execute(f"CREATE OR REPLACE TABLE {quote_ident(source)} AS SELECT * FROM osiris_spark_rows")
        ctx.con.unregister("osiris_spark_rows")
    try:
        return driver_for(ctx.component).run(ctx)
    finally:
        ctx.con.execute(f"DROP TABLE IF EXISTS {quote_ident(source)}")


def refuse_before_staging(frame: DataFrame, ctx: StepContext) -> None:
    """The database writer's own per-value refusals (docs/types.md), before Spark stages a row: its
    check runs on a DuckDB table holding the rows it could refuse (OML504, naming the column)."""
    from osiris.run.drivers import driver_for
    from osiris.run.drivers.sql_types import refuse

    refusable = _refusable_rows(frame)
    dialect = getattr(driver_for(ctx.component), "dialect", None)
    if refusable is None or dialect is None:
        return
    (source,) = ctx.input_tables.values()
    columns = duckdb_columns(frame.schema)
    ctx.con.execute(f"CREATE OR REPLACE TABLE {quote_ident(source)} "
                    f"({', '.join(f'{quote_ident(name)} {kind}' for name, kind in columns)})")
    try:
        ctx.con.register("osiris_spark_rows", refusable)
        ctx.con.execute(f"INSERT INTO {quote_ident(source)} SELECT * FROM osiris_spark_rows")
        ctx.con.unregister("osiris_spark_rows")
        refuse(ctx, source, columns, dialect.refusals, dialect.family.title)
    finally:
        ctx.con.execute(f"DROP TABLE IF EXISTS {quote_ident(source)}")


def _refusable_rows(frame: DataFrame) -> Any:
    """The rows holding a value some target refuses (NaN or an infinite number: the only such values a
    Spark column can hold; infinite dates and long intervals never reach Spark as such), as Arrow; None
    when there are none. A staged writer's table in DuckDB holds these rows alone."""
    from functools import reduce

    from pyspark.sql import functions as F

    floats = [F.col(f"`{f.name.replace('`', '``')}`") for f in frame.schema.fields
              if type(f.dataType).__name__ in ("DoubleType", "FloatType")]
    if not floats:
        return None
    infinite = [F.lit(float("inf")), F.lit(float("-inf"))]
    found = frame.where(reduce(lambda a, b: a | b, [F.isnan(c) | c.isin(*infinite) for c in floats]))
    rows = found.toArrow()
    return rows if rows.num_rows else None

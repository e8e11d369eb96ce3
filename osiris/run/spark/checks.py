"""Checks on data on the Spark engine (docs/run-again.md, "Checks on data"): the DuckDB engine's
own checks (osiris.run.checks), counted on the step's rows copied out of Spark into a DuckDB of
their own, so that each check gives the same result and the same line on both engines.

That DuckDB holds the rows and nothing else: once they are in, it is cut off from files and
extensions (`enable_external_access = false`), as an expression check is also held to the SQL
allowlist (osiris.run.checks). The rows pass through the driver process as Arrow: a checked
step's rows must fit there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from osiris.run.driver import RuntimeProblem

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def run_checks_on(frame: DataFrame, table: str, step: Mapping[str, Any], rows: int, sample: int | None
                  ) -> tuple[RuntimeProblem | None, list[RuntimeProblem]]:
    """The step's checks on `frame` (its `rows` rows), as osiris.run.checks.run_checks gives them."""
    import duckdb  # the package: Spark hands rows to DuckDB as Arrow, scanned by its Python layer (ADR 0206)

    from osiris.run.checks import run_checks
    from osiris.run.spool import quote_ident

    with duckdb.connect(":memory:") as con:
        con.register("osiris_spark_rows", frame.toArrow())
        con.execute(f"CREATE TABLE {quote_ident(table)} AS SELECT * FROM osiris_spark_rows")
        con.unregister("osiris_spark_rows")
        con.execute("SET enable_external_access = false")
        return run_checks(con, table, step, rows, sample)

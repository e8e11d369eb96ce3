"""An incremental read's watermark on the Spark engine: the highest cursor value it read, kept as
the DuckDB engine keeps it, so the next run starts after it on either engine (docs/run-again.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def watermark(step: Mapping[str, Any], frame: DataFrame, rows: int) -> Any:
    """An incremental read's highest cursor value read, as the DuckDB engine keeps it
    (osiris.run.incremental.state_value); None for another read or no row."""
    import datetime

    from pyspark.sql import functions as F

    from osiris.oml.incremental import incremental_of
    from osiris.run.incremental import state_value
    from osiris.run.problems import unknown_column_problem

    following = incremental_of(step.get("config") or {})
    if following is None or not rows:
        return None
    if following.cursor not in frame.columns:
        raise unknown_column_problem(following.cursor, list(frame.columns), "the step's rows (its incremental cursor)")
    found = frame.agg(F.max(F.col(f"`{following.cursor.replace('`', '``')}`"))).first()
    value = found[0] if found else None
    if type(frame.schema[following.cursor].dataType).__name__ == "TimestampType" and value is not None:
        value = value.astimezone(datetime.UTC)  # PySpark gives an instant as a naive local time
    return state_value(value)

"""Incremental reads at run time (docs/run-again.md): where each incremental step starts, the
highest cursor value it read, and the state a successful full run leaves (osiris.oml.incremental
holds the field and the state file)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from osiris.oml.incremental import incremental_of, read_after

if TYPE_CHECKING:
    from osiris.run.engine import RunResult


def starts(pipeline: Mapping[str, Any], state: Mapping[str, Mapping[str, Any]],
           full_refresh: bool) -> dict[str, tuple[str, Any]]:
    """step id -> (cursor, value read after) for each incremental read that has a value to start from."""
    found: dict[str, tuple[str, Any]] = {}
    for step in pipeline.get("steps") or []:
        incremental = incremental_of(step.get("config") or {}) if step.get("mode") == "read" else None
        if incremental is None:
            continue
        value = read_after(str(step["id"]), incremental, state, full_refresh)
        if value is not None:
            found[str(step["id"])] = (incremental.cursor, value)
    return found


def advanced(pipeline: Mapping[str, Any], state: Mapping[str, Mapping[str, Any]],
             started: Mapping[str, tuple[str, Any]], result: RunResult) -> dict[str, dict[str, Any]]:
    """The state after a run that succeeded: each incremental step at the highest value it read, or
    where it started when it read no row; other steps' entries as they were."""
    steps = {str(k): dict(v) for k, v in state.items()}
    outcomes = {s.step_id: s for s in result.steps}
    for step in pipeline.get("steps") or []:
        incremental = incremental_of(step.get("config") or {}) if step.get("mode") == "read" else None
        step_id = str(step["id"])
        if incremental is None or step_id not in outcomes:
            continue
        value = outcomes[step_id].watermark
        if value is None and step_id in started:
            value = started[step_id][1]
        if value is not None:
            steps[step_id] = {"cursor": incremental.cursor, "value": value}
    return steps


def highest(con: Any, table: str, column: str) -> Any:
    """The highest value of `column` in `table`, as the state keeps it: a whole number as one, other
    values as text the source reads back (`2026-11-27T02:00:00.123456`); None when the
    table has no row."""
    import datetime

    quoted = '"' + column.replace('"', '""') + '"'
    found = con.execute(f'SELECT max({quoted}) FROM "{table}"').fetchone()
    value = found[0] if found else None
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, datetime.datetime):
        return value.isoformat()  # ISO 8601, as APIs write it; PostgreSQL, MySQL and DuckDB read it back
    return str(value)

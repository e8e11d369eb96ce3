"""Incremental reads at run time (docs/run-again.md): whose state each incremental step keeps,
where it starts, the highest cursor value it read, and the state a successful full run leaves
(osiris.oml.incremental holds the field and the state file).

    plan = plan_reads(project_root, pipeline, "orders", params=report.params,
                      step_params=report.step_params, full_refresh=False)
    result = run_pipeline(pipeline, RunOptions(..., read_after=plan.starts), listener)
    if result.ok:
        plan.advance(pipeline, result)        # a full run only: a sample keeps nothing
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.oml.step_graph import dependencies_of, reads_inputs, step_id_of
from osiris.oml.incremental import (
    ParamsKey,
    State,
    incremental_of,
    load_state,
    read_after,
    save_state,
    state_path,
)
from osiris.oml.narrow import config_of, steps_of
from osiris.oml.params import as_text
from osiris.oml.values import Config, Value

if TYPE_CHECKING:
    import duckdb

    from osiris.run.duckdb_run import RunResult


@dataclass
class ReadPlan:
    """Where a run's incremental reads start, and the state they started from."""

    path: Path
    state: State
    keys: dict[str, ParamsKey]  # step id -> the parameter values its state is kept by
    starts: dict[str, tuple[str, Value]]  # step id -> (cursor, value read after)

    def advance(self, pipeline: Config, result: RunResult) -> None:
        """Save the state a full run that succeeded leaves (unchanged: the file is not touched)."""
        after = advanced(pipeline, self.state, self.keys, self.starts, result)
        if after != self.state:
            save_state(self.path, after)


def plan_reads(project_root: Path, pipeline: Config, name: str, *,
               params: Mapping[str, Config] | None, step_params: Mapping[str, Sequence[str]] | None,
               full_refresh: bool) -> ReadPlan:
    """The pipeline's state (`.osiris/state/<name>.json`) and where each incremental read starts.
    Raises ValueError naming the file when it is not Osiris's state, or an entry whose parameter
    values are unknown (osiris.oml.incremental.read_after)."""
    path = state_path(project_root, name)
    state = load_state(path)
    keys = state_keys(pipeline, step_params or {}, params or {})
    return ReadPlan(path, state, keys, starts(pipeline, state, keys, full_refresh, name))


def state_keys(pipeline: Config, step_params: Mapping[str, Sequence[str]],
               params: Mapping[str, Config]) -> dict[str, ParamsKey]:
    """Incremental step id -> the parameter values its state is kept by: those of every parameter
    its own config uses or the config of any step its rows reach (a transform that filters them, a
    writer's target). Another value of one of them is another read (another filter, another
    target), so it starts from its own cursor; a parameter none of them uses does not split it."""
    steps = steps_of(pipeline)
    dependencies = dependencies_of(steps)
    by_id = {step_id_of(s): s for s in steps}
    keys: dict[str, ParamsKey] = {}
    for step in steps:
        step_id = step_id_of(step)
        if step_id is None or step.get("mode") != "read" or incremental_of(config_of(step)) is None:
            continue
        reached, todo = {step_id}, [step_id]
        while todo:
            source = todo.pop()
            for other, needs in dependencies.items():
                if source in needs and other not in reached and reads_inputs(by_id.get(other)):
                    reached.add(other)
                    todo.append(other)
        names = {n for s in reached for n in step_params.get(s, ())}
        keys[step_id] = tuple(sorted((n, as_text(params[n]["value"])) for n in names if n in params))
    return keys


def starts(pipeline: Config, state: State, keys: Mapping[str, ParamsKey],
           full_refresh: bool, name: str = "PIPELINE") -> dict[str, tuple[str, Value]]:
    """step id -> (cursor, value read after) for each incremental read that has a value to start from."""
    found: dict[str, tuple[str, Value]] = {}
    for step in steps_of(pipeline):
        incremental = incremental_of(config_of(step)) if step.get("mode") == "read" else None
        if incremental is None:
            continue
        step_id = str(step["id"])
        value = read_after(step_id, keys.get(step_id, ()), incremental, state, full_refresh, name)
        if value is not None:
            found[step_id] = (incremental.cursor, value)
    return found


def advanced(pipeline: Config, state: State, keys: Mapping[str, ParamsKey],
             started: Mapping[str, tuple[str, Value]], result: RunResult) -> State:
    """The state after a run that succeeded: each incremental step, under its parameter values, at
    the highest value it read, or where it started when it read no row; other entries as they were."""
    after: State = {k: dict(v) for k, v in state.items()}
    outcomes = {s.step_id: s for s in result.steps}
    for step in steps_of(pipeline):
        incremental = incremental_of(config_of(step)) if step.get("mode") == "read" else None
        step_id = str(step["id"])
        if incremental is None or step_id not in outcomes:
            continue
        value: Value = outcomes[step_id].watermark
        if value is None and step_id in started:
            value = started[step_id][1]
        if value is not None:
            after[(step_id, keys.get(step_id, ()))] = {"cursor": incremental.cursor, "value": value}
    return after


def highest(con: duckdb.DuckDBPyConnection, table: str, column: str) -> int | str | None:
    """The highest value of `column` in `table`, as the state keeps it: a whole number as one, other
    values as text the source reads back (`2026-11-27T02:00:00.123456`); None when the
    table has no row."""
    quoted = '"' + column.replace('"', '""') + '"'
    found = con.execute(f'SELECT max({quoted}) FROM "{table}"').fetchone()
    return state_value(found[0] if found else None)


def state_value(value: object) -> int | str | None:
    """A highest cursor value as the state keeps it (`highest`); the Spark engine's too."""
    import datetime

    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, datetime.datetime):
        return value.isoformat()  # ISO 8601, as APIs write it; PostgreSQL, MySQL and DuckDB read it back
    return str(value)

"""A read fused into the transform that consumes it (issue 39, ADR 0202): the CSV file is read by the
transform's own query, once, through a view, instead of into a table of every row first.

    fused = fused_reads(steps, dependencies, options)          # {reader id: transform id}
    done = run_fused(reader, transform, results..., run_one)  # False: run them apart

The read's rows are DuckDB's own count: the `READ_CSV` scan of the transform's profiled query
(osiris.run.counts.scanned_rows). The trail records the read as fused (`fused_into`) with that
count. Whenever the fused pair does not end ok, or DuckDB gave no single count, nothing of it is
kept: the read runs apart, into its table, and the transform after it, as without fusion, so a bad
value is blamed on the step that read it, with the reader's own problem.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from osiris.oml.incremental import incremental_of
from osiris.run.results import RunListener, RunOptions, StepResult

FUSED_READER = "filesystem.csv_extractor"
FUSED_INTO = "duckdb.processor"
# A query that may stop reading early (a LIMIT, a sample) or read its input more than once would
# leave the scan's count short of the file's rows: such a transform reads a materialised table.
_MAY_STOP_EARLY = re.compile(r"\b(limit|sample|tablesample|exists|any|all|some|fetch|qualify)\b", re.IGNORECASE)

RunOne = Callable[[Mapping[str, Any], list[str], StepResult, RunListener], None]


def fused_reads(steps: Mapping[str, Mapping[str, Any]], dependencies: Mapping[str, list[str]],
                options: RunOptions) -> dict[str, str]:
    """{reader: transform} for each CSV read whose only consumer is a duckdb.processor reading it
    alone, on a full run (a sample keeps each step's table for its preview) without a deadline (the
    step that passes it is the one named: the read or the transform, never the two as one)."""
    if options.sample is not None or (options.limit is not None and options.limit.seconds is not None):
        return {}
    consumers: dict[str, list[str]] = {}
    for step_id, needs in dependencies.items():
        for need in needs:
            consumers.setdefault(need, []).append(step_id)
    fused = {}
    for reader, used_by in consumers.items():
        step = steps[reader]
        if len(used_by) != 1 or step.get("component") != FUSED_READER or step.get("checks"):
            continue
        config = step.get("config") or {}
        if config.get("limit") is not None or reader in options.read_after or incremental_of(config) is not None:
            continue
        (transform,) = used_by
        into = steps[transform]
        if (into.get("component") == FUSED_INTO and dependencies[transform] == [reader]
                and not _MAY_STOP_EARLY.search(str((into.get("config") or {}).get("query", "")))):
            fused[reader] = transform
    return fused


class Held:
    """A listener that keeps the events it hears, to tell them later in the order a reader sees;
    with `started`, a step's start is told at once (the live line counts while the query runs)."""

    def __init__(self, started: RunListener | None = None) -> None:
        self.events: list[tuple[str, tuple[Any, ...]]] = []
        self.started = started

    def step_started(self, step: StepResult) -> None:
        if self.started is not None:
            self.started.step_started(step)
        else:
            self.events.append(("step_started", (step,)))

    def step_progress(self, step: StepResult, rows: int) -> None:
        self.events.append(("step_progress", (step, rows)))

    def step_finished(self, step: StepResult) -> None:
        self.events.append(("step_finished", (step,)))

    def tell(self, listener: RunListener) -> None:
        for name, args in self.events:
            getattr(listener, name)(*args)


def run_fused(reader: Mapping[str, Any], transform: Mapping[str, Any], read: StepResult, made: StepResult,
              listener: RunListener, run_one: RunOne, drop: Callable[[str], None]) -> bool:
    """Run `reader` as a view and `transform` over it; True when both ended ok (their events then
    told to `listener`, the read's first, its rows DuckDB's count; the read's start is told at once).
    False when they did not: their views and tables are dropped (`drop`), for the engine to run them
    apart (the read's start is not told again)."""
    held_read, held_made = Held(started=listener), Held()
    try:
        run_one(reader, [], read, held_read)
        if read.status == "ok":
            run_one(transform, [read.step_id], made, held_made)
    except KeyboardInterrupt:  # Ctrl-C, a signal, a cancel: the run ends here, and says where
        held_read.tell(listener)
        held_made.tell(listener)
        raise
    if read.status != "ok" or made.status != "ok":
        for result in (made, read):
            drop(result.step_id)
        return False
    read.rows_in = read.rows_out = made.rows_in
    read.fused_into = made.step_id
    held_read.tell(listener)
    held_made.tell(listener)
    return True

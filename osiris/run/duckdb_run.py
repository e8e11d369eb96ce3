"""The engine: run a validated pipeline's steps in dependency order on an embedded DuckDB.

    result = run_pipeline(pipeline, RunOptions(connections=..., env=os.environ, base_dir=Path.cwd()),
                          listener)

Each step's output is the DuckDB table `df_<id>`; a step with exactly one input also sees it as the
view `input_df`. The DuckDB database lives in memory on `run.threads` threads, capped at `run.memory_limit`:
beyond it, DuckDB spills table blocks, sorts and joins to the run's scratch directory, so memory
stays flat however many rows a run moves (ADR 0200). The scratch directory
(`.osiris/tmp/run-<id>/`) is the only place DuckDB may read or write: the engine locks it in
before any step runs, and each step is checked against the project's trust boundary before its
driver is called (docs/security.md). The directory is deleted when the run ends. DuckDB starts
when a step first uses it: a plain copy (a read straight into a writer) may take a direct route
past it, with the same bytes written (osiris.run.direct, ADR 0165).

The parts: osiris.run.results (options and results), osiris.run.duckdb_engine (the DuckDB),
osiris.run.step_run (one step), osiris.run.step_copy (a plain copy's direct route).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from typing import Any

from osiris.oml.step_graph import dependencies_of, run_order, table_name
from osiris.oml.incremental import incremental_of
from osiris.run import duckdb_engine
from osiris.run.checks import CHECK_FAILED, checked_first
from osiris.run.deadline import RunLimit, not_started
from osiris.run.duckdb_engine import Engine
from osiris.run.interrupts import Interrupts
from osiris.run.results import RunListener, RunOptions, RunResult, StepResult, pending_result
from osiris.run.step_copy import run_copy
from osiris.run.step_run import RunState, run_step
from osiris.run.spool import quote_ident
from osiris.catalog.store import catalog_names
from osiris.trust.engine_words import Known, knowing
from osiris.trust.sandbox import scratch_dir

__all__ = ["RunListener", "RunOptions", "RunResult", "StepResult", "run_pipeline"]


def run_pipeline(pipeline: Mapping[str, Any], options: RunOptions, listener: RunListener) -> RunResult:
    """Run every step whose inputs succeeded. Ctrl-C, SIGTERM or SIGHUP stops at once, after the
    current step's driver has rolled back (osiris.run.interrupts); the result then marks the run
    interrupted."""
    from osiris.run.direct import plain_copies
    from osiris.run.fused import fused_reads

    steps = {str(step["id"]): step for step in pipeline["steps"]}
    dependencies = dependencies_of(pipeline["steps"])
    results = {step_id: pending_result(step) for step_id, step in steps.items()}
    copies = {reader: writer for reader, writer in plain_copies(pipeline["steps"], dependencies, options.sample).items()
              if not steps[reader].get("checks") and reader not in options.read_after
              and incremental_of(steps[reader].get("config") or {}) is None}  # rows counted, cursor read in the engine
    fused = fused_reads(steps, dependencies, options)  # counted from DuckDB's profile (ADR 0202)
    stop = Interrupts()  # Ctrl-C, SIGTERM and SIGHUP alike
    scratch = scratch_dir(options.trust.project)
    con: Any = Engine(scratch, duckdb_engine.SCRATCH_CAP_MB if options.sample is not None else None,
                      threads=options.threads, memory_mb=options.memory_limit_mb, profiled=bool(fused))  # on first use
    known = Known.of(pipeline, options.connections, catalog_names(options.trust.project))
    state = RunState(stop, options.limit or RunLimit(), known)
    limit = state.limit
    limit.on_stop(con.interrupt)
    limit.start()
    halted: list[str] = []  # the step whose error-level check failed (osiris.run.checks)
    try:
        for step_id in checked_first(pipeline["steps"], run_order(pipeline["steps"]), dependencies):
            result = results[step_id]
            if result.status != "pending":
                continue  # its reader already did it, on a direct route
            if limit.reason is not None:
                not_started(result, limit, results.values())
                listener.step_finished(result)
                continue
            blocked = [n for n in dependencies[step_id] if results[n].status != "ok"] + halted
            if blocked:
                result.status, result.skipped_because = "skipped", blocked[0]
                result.halted = blocked[0] not in dependencies[step_id]
                listener.step_finished(result)
                continue
            writer, transform = copies.get(step_id), fused.get(step_id)
            with knowing(state.known):  # what the step's engine texts may repeat (docs/security.md)
                if transform and _run_fused(steps[step_id], steps[transform], results, con, options, listener,
                                            scratch, state):
                    state.learn(results[step_id])
                    continue
                result = results[step_id]  # pending again when the fused pair must run apart
                if limit.reason is not None:
                    not_started(result, limit, results.values())
                    listener.step_finished(result)
                    continue
                if not (writer and run_copy(steps[step_id], steps[writer], result, results[writer], options,
                                             listener, scratch)):
                    run_step(steps[step_id], dependencies[step_id], result, con, options, listener, scratch,
                              state, announce=not writer and not transform)  # a fused try told its start
            state.learn(result)
            if result.problem is not None and result.problem.code == CHECK_FAILED:
                halted = [step_id]  # the rows are wrong: nothing after this step runs, no writer commits
    except KeyboardInterrupt:
        return RunResult(list(results.values()), interrupted=True)
    finally:
        limit.close()
        stop.restore()
        con.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return RunResult(list(results.values()))


def _run_fused(reader: Mapping[str, Any], transform: Mapping[str, Any], results: dict[str, StepResult], con: Any,
               options: RunOptions, listener: RunListener, scratch: Any, state: RunState) -> bool:
    """The read and its transform as one query (osiris.run.fused); False, with both results pending
    again, when they must run apart."""
    from osiris.run.fused import run_fused

    read_id, made_id = str(reader["id"]), str(transform["id"])

    def run_one(step: Mapping[str, Any], inputs: list[str], result: StepResult, heard: RunListener) -> None:
        run_step(step, inputs, result, con, options, heard, scratch, state, fused=(read_id,))

    def drop(step_id: str) -> None:
        name = quote_ident(table_name(step_id))
        con.execute(f"DROP VIEW IF EXISTS {name}" if step_id == read_id else f"DROP TABLE IF EXISTS {name}")

    if run_fused(reader, transform, results[read_id], results[made_id], listener, run_one, drop):
        return True
    results[read_id], results[made_id] = pending_result(reader), pending_result(transform)
    return False

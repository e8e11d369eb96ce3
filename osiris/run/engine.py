"""The engine: run a validated pipeline's steps in dependency order on an embedded DuckDB.

    result = run_pipeline(pipeline, RunOptions(connections=..., env=os.environ, base_dir=Path.cwd()),
                          listener)

Each step's output is the DuckDB table `df_<id>`; a step with exactly one input also sees it as the
view `input_df`. The DuckDB database lives in memory on one thread, capped at `ENGINE_MEMORY_MB`:
beyond it, DuckDB spills table blocks, sorts and joins to the run's scratch directory, so memory
stays flat however many rows a run moves (ADR 0095, ADR 0170). The scratch directory
(`.osiris/tmp/run-<id>/`) is the only place DuckDB may read or write: the engine locks it in
before any step runs, and each step is checked against the project's trust boundary before its
driver is called (docs/security.md). The directory is deleted when the run ends. DuckDB starts
when a step first uses it: a plain copy (a read straight into a writer) may take a direct route
past it, with the same bytes written (osiris.run.direct, ADR 0165).
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from osiris.errors import where_raised
from osiris.oml.graph import dependencies_of, input_tables, run_order, table_name
from osiris.oml.incremental import incremental_of
from osiris.run.checks import CHECK_FAILED, checked_first, run_checks
from osiris.run.connections import Connections, resolve_step_config
from osiris.run.counts import row_count
from osiris.run.deadline import RunLimit, not_started
from osiris.run.driver import RuntimeProblem, StepContext, StepOutcome
from osiris.run.incremental import highest
from osiris.run.interrupts import Interrupts
from osiris.run.problems import (
    deadline_problem,
    input_without_table_problem,
    masked,
    out_of_memory,
    redacted,
    unknown_column_problem,
)
from osiris.run.targets import WriteTarget, write_target
from osiris.text_table import count_rows
from osiris.trust.boundary import Boundary
from osiris.catalog.store import catalog_names
from osiris.trust.engine_words import Known, current, knowing, shown_columns
from osiris.trust.sandbox import lock_down, scratch_dir

if TYPE_CHECKING:
    from osiris.oml.config import StepConfig

SAMPLE_PREVIEW_ROWS = 5
ENGINE_THREADS = 1  # each DuckDB thread sorts and writes about 122,880 rows at a time: one keeps the cap flat
ENGINE_MEMORY_MB = 256  # DuckDB's cap; beyond it, tables, sorts and joins spill (ADR 0170, docs/performance.md)
SCRATCH_CAP_MB = 1024  # a sample run's spill cap (max_temp_directory_size); beyond it OML533 (docs/security.md)
_JOIN = re.compile(r"\bjoin\b", re.IGNORECASE)


@dataclass
class RunOptions:
    connections: Connections
    env: Mapping[str, str]
    base_dir: Path  # the project directory: relative file paths start here, and files stay inside it
    sample: int | None = None
    sample_dir: Path | None = None  # sample CSV output is kept here (sessions.save_samples); None: not kept
    secret_fields: Callable[[str], set[str]] = lambda component: set()
    preview_rows: int = SAMPLE_PREVIEW_ROWS
    boundary: Boundary | None = None  # None: the project's own, with the built-in specs' endpoint fields
    redact: Callable[[Any], Any] = lambda value: value  # sample preview rows pass through it
    limit: RunLimit | None = None  # the run's deadline and stop button (osiris.run.deadline); None: none

    # step id -> (cursor column, value) for an incremental read (osiris.oml.incremental); none: every row
    read_after: Mapping[str, tuple[str, Any]] = field(default_factory=dict)

    @property
    def trust(self) -> Boundary:
        return self.boundary or Boundary(self.base_dir)
    step_configs: Mapping[str, StepConfig] = field(default_factory=dict)  # from validation: spec defaults


@dataclass
class StepResult:
    step_id: str
    component: str
    mode: str
    status: str = "pending"  # ok | failed | skipped | interrupted
    rows_in: int = 0
    rows_out: int = 0
    duration_ms: float = 0.0
    columns: list[tuple[str, str]] = field(default_factory=list)
    text_numbers: list[str] = field(default_factory=list)  # columns holding numbers as their exact text
    warnings: list[RuntimeProblem] = field(default_factory=list)
    problem: RuntimeProblem | None = None
    skipped_because: str | None = None
    preview: tuple[list[str], list[tuple[Any, ...]]] | None = None  # sample rows, for the display
    target: WriteTarget | None = None  # a writer's table or file (osiris.run.targets)
    watermark: Any = None  # an incremental read's highest cursor value read (None: no row)


@dataclass
class RunResult:
    steps: list[StepResult]
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return not self.interrupted and all(step.status == "ok" for step in self.steps)


class RunListener(Protocol):
    def step_started(self, step: StepResult) -> None: ...
    def step_progress(self, step: StepResult, rows: int) -> None: ...
    def step_finished(self, step: StepResult) -> None: ...


def run_pipeline(pipeline: Mapping[str, Any], options: RunOptions, listener: RunListener) -> RunResult:
    """Run every step whose inputs succeeded. Ctrl-C, SIGTERM or SIGHUP stops at once, after the
    current step's driver has rolled back (osiris.run.interrupts); the result then marks the run
    interrupted."""
    from osiris.run.direct import plain_copies

    steps = {str(step["id"]): step for step in pipeline["steps"]}
    dependencies = dependencies_of(pipeline["steps"])
    results = {step_id: _pending(step) for step_id, step in steps.items()}
    copies = {reader: writer for reader, writer in plain_copies(pipeline["steps"], dependencies, options.sample).items()
              if not steps[reader].get("checks") and reader not in options.read_after
              and incremental_of(steps[reader].get("config") or {}) is None}  # rows counted, cursor read in the engine
    stop = Interrupts()  # Ctrl-C, SIGTERM and SIGHUP alike
    scratch = scratch_dir(options.trust.project)
    con: Any = _Engine(scratch, SCRATCH_CAP_MB if options.sample is not None else None)  # starts on first use
    known = Known.of(pipeline, options.connections, catalog_names(options.trust.project))
    state = _RunState(stop, options.limit or RunLimit(), known)
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
                listener.step_finished(result)
                continue
            writer = copies.get(step_id)
            with knowing(state.known):  # what the step's engine texts may repeat (docs/security.md)
                if not (writer and _run_copy(steps[step_id], steps[writer], result, results[writer], options,
                                             listener, scratch)):
                    _run_step(steps[step_id], dependencies[step_id], result, con, options, listener, scratch,
                              state, announce=not writer)
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


@dataclass
class _RunState:
    """What stops a step (a signal: Ctrl-C, SIGTERM, SIGHUP; the run's limit: deadline, cancel), and
    the words its engine texts may repeat: the pipeline's, the settings', and the sources' columns."""

    signals: Interrupts
    limit: RunLimit
    known: Known

    def learn(self, result: StepResult) -> None:
        """A source's columns are schema names: later steps may name them."""
        if result.mode == "read" and result.status == "ok":
            self.known = self.known.more([name for name, _ in result.columns])

    def problem(self, failed: RuntimeProblem) -> RuntimeProblem:
        """The step's problem, or OML532 when its failure is the deadline's interrupt.
        KeyboardInterrupt when a signal or a cancel stopped it."""
        if self.signals.pressed or self.limit.reason == "cancelled":
            raise KeyboardInterrupt
        return deadline_problem(self.limit.seconds, self.limit.setting) if self.limit.expired else failed


class _Engine:
    """The run's DuckDB, started on first use: in memory (no WAL to write), on one thread, capped at
    `ENGINE_MEMORY_MB`, spilling beyond it to the scratch directory (at most `scratch_cap_mb` of it,
    on a sample run), and locked into that directory before any step may use it. A run whose every
    step is a plain copy on a direct route (osiris.run.direct) never imports it."""

    def __init__(self, scratch: Path, scratch_cap_mb: int | None = None) -> None:
        self.scratch = scratch
        self.scratch_cap_mb = scratch_cap_mb
        self.con: Any = None

    def __getattr__(self, name: str) -> Any:
        if self.con is None:
            import duckdb

            self.con = duckdb.connect(":memory:")
            self.con.execute(f"SET temp_directory = '{self.scratch / 'spill'}'")
            self.con.execute(f"SET threads = {ENGINE_THREADS}")
            self.con.execute(f"SET memory_limit = '{ENGINE_MEMORY_MB}MB'")
            if self.scratch_cap_mb is not None:
                self.con.execute(f"SET max_temp_directory_size = '{self.scratch_cap_mb}MB'")
            lock_down(self.con, self.scratch)
        return getattr(self.con, name)

    def interrupt(self) -> None:
        """Interrupt the running query, if DuckDB has started (from the deadline's thread)."""
        if self.con is not None:
            self.con.interrupt()

    def close(self) -> None:
        if self.con is not None:
            from osiris.run.drivers.sql_common import stop_exports

            stop_exports()  # a writer stopped half-way (Ctrl-C) may have left DuckDB writing into a pipe
            self.con.close()


def _pending(step: Mapping[str, Any]) -> StepResult:
    return StepResult(str(step["id"]), str(step["component"]), str(step.get("mode", "")), target=write_target(step))


def _run_step(step: Mapping[str, Any], inputs: list[str], result: StepResult, con: Any,
              options: RunOptions, listener: RunListener, scratch: Path, stop: _RunState, announce: bool = True) -> None:
    from osiris.run.drivers import driver_for

    if announce:
        listener.step_started(result)
    started = time.perf_counter()
    secrets: tuple[str, ...] = ()
    try:
        ctx, secrets = _context(step, inputs, result, con, options, listener, scratch)
        _prepare_inputs(con, ctx)
        outcome = driver_for(result.component).run(ctx)
        _finish(result, outcome, con, ctx, options)
        if step.get("checks") and _has_table(con, ctx.output_table):
            failed, warnings = run_checks(con, ctx.output_table, step, result.rows_out, options.sample)
            result.warnings += warnings
            if failed is not None:
                result.status, result.problem = "failed", failed
        following = incremental_of(step.get("config") or {})
        if following is not None and result.status == "ok" and _has_table(con, ctx.output_table):
            names = [name for name, _ in result.columns]
            if following.cursor in names:
                result.watermark = highest(con, ctx.output_table, following.cursor)
            else:  # the first run, unfiltered, still needs the cursor to move on from
                result.status, result.problem = "failed", unknown_column_problem(
                    following.cursor, names, "the step's rows (its incremental cursor)")
    except KeyboardInterrupt:
        _interrupted(result, started, listener)
        raise
    except (RuntimeProblem, Exception) as error:  # a library error no driver mapped: still the step's, redacted
        failed = error if isinstance(error, RuntimeProblem) else _unmapped(error, result.component, secrets)
        try:
            result.status, result.problem = "failed", _clean(stop.problem(failed), secrets)
        except KeyboardInterrupt:
            _interrupted(result, started, listener)
            raise KeyboardInterrupt from None
    result.duration_ms = _since(started)
    listener.step_finished(result)


def _context(step: Mapping[str, Any], inputs: list[str], result: StepResult, con: Any, options: RunOptions,
             listener: RunListener, scratch: Path) -> tuple[StepContext, tuple[str, ...]]:
    """A step's context, with its connection's secrets resolved and the step checked against the
    trust boundary (a RuntimeProblem when it breaches it); the secrets, for redaction."""
    own = step.get("config") or {}
    resolved = resolve_step_config(own, options.connections, options.env, options.secret_fields(result.component))
    config, secrets = resolved.config, resolved.secrets
    try:
        options.trust.check_step(result.component, own, resolved.connection)
    except RuntimeProblem as problem:
        raise _clean(problem, secrets) from None
    if result.step_id in options.step_configs:  # the spec's defaults under what the step and connection say
        config = options.step_configs[result.step_id].merged(config)
    return StepContext(
        step_id=result.step_id, component=result.component, mode=result.mode,
        config=config, con=con, output_table=table_name(result.step_id),
        input_tables=input_tables(step, inputs), sample=options.sample, work_dir=scratch,
        progress=lambda rows: listener.step_progress(result, rows), secrets=secrets,
        scratch_dir=scratch, sample_dir=options.sample_dir,
        files=options.trust.step_files(own, resolved.connection),
        read_after=options.read_after.get(result.step_id), project_dir=options.base_dir), secrets


def _run_copy(reader_step: Mapping[str, Any], writer_step: Mapping[str, Any], reader: StepResult,
              writer: StepResult, options: RunOptions, listener: RunListener, scratch: Path) -> bool:
    """A plain copy on its direct route (osiris.run.direct), reported as its two steps; False when the
    route declined before anything was kept: the steps then run through the engine."""
    from osiris.run import direct

    try:
        reader_ctx, reader_secrets = _context(reader_step, [], reader, None, options, listener, scratch)
        writer_ctx, writer_secrets = _context(writer_step, [reader.step_id], writer, None, options, listener, scratch)
    except RuntimeProblem:
        return False  # the engine's route reports it
    listener.step_started(reader)
    started = time.perf_counter()
    failure: direct.Failed | None = None
    try:
        copied = direct.copy(reader_ctx, writer_ctx)
    except KeyboardInterrupt:
        _interrupted(reader, started, listener)
        raise
    except direct.Failed as failed:
        copied, failure = None, failed
    except Exception as error:  # a library error the route did not map: the reader's
        copied, failure = None, direct.Failed(reader.step_id, _unmapped(error, reader.component, reader_secrets))
    if copied is None and failure is None:
        return False
    reader.duration_ms = _since(started)
    if failure is not None and failure.step == reader.step_id:
        reader.status, reader.problem = "failed", _clean(failure.problem, reader_secrets)
        listener.step_finished(reader)
        return True  # the writer is skipped: its input failed
    rows = copied.rows if copied else 0
    reader.status, reader.rows_in, reader.rows_out = "ok", rows, rows
    reader.columns = copied.columns if copied else []
    listener.step_finished(reader)
    listener.step_started(writer)
    if failure is not None:
        writer.status, writer.problem = "failed", _clean(failure.problem, writer_secrets)
    else:
        writer.status, writer.rows_in, writer.rows_out = "ok", rows, rows
    listener.step_finished(writer)
    return True


def _interrupted(result: StepResult, started: float, listener: RunListener) -> None:
    result.status = "interrupted"
    result.duration_ms = _since(started)
    listener.step_finished(result)


def _prepare_inputs(con: Any, ctx: StepContext) -> None:
    for step_id, table in ctx.input_tables.items():
        if not _has_table(con, table):
            raise input_without_table_problem(step_id)
    con.execute("DROP VIEW IF EXISTS input_df")
    if len(ctx.input_tables) == 1:
        (table,) = ctx.input_tables.values()
        con.execute(f'CREATE VIEW input_df AS SELECT * FROM "{table}"')


def _finish(result: StepResult, outcome: StepOutcome, con: Any, ctx: StepContext, options: RunOptions) -> None:
    result.status = "ok"
    result.rows_in, result.rows_out = outcome.rows_in, outcome.rows_out
    result.warnings = [RuntimeProblem("OML513", w, "") if isinstance(w, str) else w for w in outcome.warnings]
    produced = _has_table(con, ctx.output_table)
    known = current() if result.mode != "read" else None  # a source's own columns are its schema
    if produced:
        columns = outcome.columns or [
            (str(row[0]), str(row[1])) for row in con.execute(f'DESCRIBE "{ctx.output_table}"').fetchall()]
        names = shown_columns([name for name, _ in columns], known)  # made from data: column_<n>
        result.columns = [(name, kind) for name, (_, kind) in zip(names, columns)]
        as_text = _text_numbers(con, ctx.output_table, columns)
        result.text_numbers = [shown for shown, (name, _) in zip(names, columns) if name in as_text]
    if options.sample is not None and produced:
        cursor = con.execute(f'SELECT * FROM "{ctx.output_table}" LIMIT {int(options.preview_rows)}')
        rows = [tuple(options.redact(list(row))) for row in cursor.fetchall()]
        # names as values: a data-made name is column_<n>, a secret echoed as a name is masked
        result.preview = (list(options.redact(shown_columns([d[0] for d in cursor.description], known))), rows)
    if options.sample is not None and result.mode == "transform" and produced:
        _warn_empty_join(result, con, ctx)


def _text_numbers(con: Any, table: str, columns: list[tuple[str, str]]) -> list[str]:
    """The VARCHAR columns a reader noted as numeric: numbers kept as their exact text (docs/types.md)."""
    from osiris.run.spool import column_notes

    noted = column_notes(con, table)
    return [name for name, kind in columns if kind == "VARCHAR" and noted.get(name) == "numeric"]


def _warn_empty_join(result: StepResult, con: Any, ctx: StepContext) -> None:
    """OML513: on samples, a transform that finds nothing in inputs that have rows is expected often
    enough to be a warning. It speaks of keys only for a join; a filter is told its conditions met
    none of the sampled rows."""
    query = str(ctx.config.get("query", ""))
    joins = bool(_JOIN.search(query))
    if result.rows_out or not (joins or len(ctx.input_tables) > 1):
        return
    counts = {step_id: row_count(con, table)
              for step_id, table in ctx.input_tables.items()}
    if counts and not all(counts.values()):
        return
    described = ", ".join(f"{step_id}: {count_rows(count)}" for step_id, count in counts.items()) or "sampled inputs"
    if joins:
        result.warnings.append(RuntimeProblem(
            "OML513", f"the transform returned no rows from sampled inputs ({described}); "
                      "the samples may share no keys",
            "sample more rows (--sample 1000), or filter the driving table's query so that the samples match"))
        return
    result.warnings.append(RuntimeProblem(
        "OML513", f"the transform returned no rows from sampled inputs ({described}); "
                  "none of the sampled rows met its conditions",
        "sample more rows (--sample 1000); if the full run should keep rows, check the values its conditions "
        "compare with"))


def _has_table(con: Any, name: str) -> bool:
    found = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]).fetchone()
    return bool(found and found[0])


def _unmapped(error: Exception, component: str, secrets: tuple[str, ...]) -> RuntimeProblem:
    """An error no driver mapped: out of memory (OML526) and the operating system's errors (a full
    disk: OML503, its plain words) are the environment's; anything else is a bug in Osiris (OML105,
    exit 5), told by the exception's type and the last line of Osiris it passed, never its text."""
    duckdb = sys.modules.get("duckdb")  # a driver's write ran out of the engine's memory (ADR 0170)
    if duckdb is not None and isinstance(error, duckdb.OutOfMemoryException):
        return out_of_memory(error)
    if isinstance(error, OSError):
        return RuntimeProblem("OML503", f"the {component} driver stopped: {redacted(error.strerror or error, secrets)}",
                              "check the free space, the permissions and the paths this step uses")
    return RuntimeProblem("OML105", f"the {component} driver stopped at an internal error ({where_raised(error)})",
                          "this is a bug in Osiris, not in the pipeline: please report it with this line")


def _clean(problem: RuntimeProblem, secrets: tuple[str, ...]) -> RuntimeProblem:
    """Drivers redact and withhold values; this is the second lock on the door."""
    return RuntimeProblem(problem.code, masked(problem.message, secrets), masked(problem.hint, secrets),
                          value=problem.value)


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)

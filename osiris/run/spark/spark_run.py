"""Run a validated pipeline on Apache Spark: the same plan, steps and results as the DuckDB engine
(osiris.run.duckdb_run), with each step's rows a Spark DataFrame and temp view `df_<id>` (`input_df`
for a step's single input).

Two passes. First every step is planned without running a Spark job: reads become lazy
DataFrames (JDBC learns the columns from the database; a CSV file's are sniffed by DuckDB; an API
is read through its driver), and every transform is transpiled and put to Spark's analyser. If any
step fails there, no job runs at all. Then the steps run in order: each read and transform is
materialised once (cached, counted), so that its rows are counted and a failure blames the step
that failed, and the writes write.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from osiris.registry.registry import effective_config
from osiris.run.connections import resolve_step_config
from osiris.problems import spark_inputs_problem, spark_transform_problem
from osiris.run.driver import RuntimeProblem, StepContext, StepOutcome
from osiris.run.deadline import RunLimit, not_started
from osiris.run.results import RunListener, RunOptions, RunResult, StepResult, pending_result
from osiris.run.step_failure import clean, since
from osiris.run.interrupts import Interrupts
from osiris.run.checks import CHECK_FAILED, checked_first
from osiris.run.problems import deadline_problem, input_without_table_problem
from osiris.run.spark import bridge, engine_columns, errors, files, jdbc
from osiris.run.spark.checks import run_checks_on
from osiris.oml.step_graph import dependencies_of, input_tables, reads_inputs, run_order, table_name
from osiris.run.spark.transpile import PROCESSOR, spark_sql
from osiris.run.spark.types import duckdb_columns
from osiris.run.spark.watermark import watermark
from osiris.run.spool import Column
from osiris.catalog.store import catalog_names
from osiris.trust.engine_words import Known, current, knowing, shown_columns

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from osiris.settings.model import SparkSettings
    from osiris.trust.paths import Files


STUCK_TASK_GRACE_SECONDS = 3.0


@dataclass
class _Step:
    """One step as planned: its resolved config, and its rows once planned."""

    raw: Mapping[str, Any]
    result: StepResult
    inputs: list[str]
    config: dict[str, Any] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    files: Files | None = None  # where its files may be (osiris.trust, docs/security.md)
    frame: DataFrame | None = None
    outcome: StepOutcome | None = None  # a read done by its own driver (an API) while planning
    explain: jdbc.Explain | None = None  # a JDBC read's OML504 line for a value Spark cannot hold
    problem: RuntimeProblem | None = None
    columns: list[Column] | None = None  # the DuckDB engine's columns for its rows (osiris.run.spark.engine_columns)


def run_on_spark(pipeline: Mapping[str, Any], options: RunOptions, settings: SparkSettings,
                 listener: RunListener) -> RunResult:
    """Plan, then run, every step on Spark; the result has the DuckDB engine's shape."""
    import duckdb  # the package: Spark hands rows to DuckDB as Arrow, scanned by its Python layer (ADR 0206)

    dependencies = dependencies_of(pipeline["steps"])
    steps = {str(s["id"]): _Step(s, pending_result(s), dependencies[str(s["id"])]) for s in pipeline["steps"]}
    # every step no writer comes before runs first: its checks before any writer commits (osiris.run.checks)
    order = [steps[step_id] for step_id in checked_first(pipeline["steps"], run_order(pipeline["steps"]),
                                                         dependencies)]
    scratch = Path(tempfile.mkdtemp(prefix="osiris-spark-"))
    side = duckdb.connect(":memory:")  # for the drivers Spark hands rows to (osiris.run.spark.bridge)
    runner = _Runner(options, side, scratch, listener)
    # what its engine texts may repeat (docs/security.md, "What an engine says")
    runner.known = Known.of(pipeline, options.connections, catalog_names(options.trust.project))
    stop = Interrupts()  # SIGTERM and SIGHUP stop it as Ctrl-C does
    limit = runner.limit
    limit.on_stop(runner.cancel_jobs)  # at the deadline, Spark's jobs are cancelled (docs/security.md)
    limit.start()
    try:
        spark = _session(settings, order) if not _missing_drivers(settings, order) else None
        stop.restore()  # a new SparkContext put in its own Ctrl-C handler, which fails calling the JVM
        stop = Interrupts()  # from inside the signal: Ctrl-C is the run's again (abandon ends the jobs)
        if spark is not None:
            runner.spark = spark
            for step in order:
                with knowing(runner.known):
                    runner.plan(step, steps)
            planned = not any(step.problem for step in order)
            for step in order:
                with knowing(runner.known):
                    runner.run(step, steps, planned)
        else:
            for step in order:
                runner.run(step, steps, planned=False)
    except KeyboardInterrupt:
        runner.abandon()
        return RunResult([s.result for s in steps.values()], interrupted=True)
    finally:
        limit.close()
        stop.restore()
        if limit.reason is not None:
            runner.end_stuck_tasks()
        runner.release()
        side.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return RunResult([s.result for s in steps.values()])


def _missing_drivers(settings: SparkSettings, order: list[_Step]) -> bool:
    """OML527 on each database step whose JDBC driver jar the session would lack (Spark's own error
    comes only when a job runs, as a ClassNotFoundException); True when there is one."""
    from osiris.run.spark.session import missing_jar

    for step in order:
        family = jdbc.family_of(step.result.component)
        jar = missing_jar(family, settings) if family else None
        if jar is not None:
            step.problem = errors.missing_driver_problem(family or "", jar)
    return any(step.problem for step in order)


def _session(settings: SparkSettings, order: list[_Step]) -> SparkSession | None:
    """The Spark session; when it cannot start, the first step carries OML527."""
    from osiris.run.spark.session import spark_session

    try:
        return spark_session(settings)
    except Exception as error:  # no Java, a master that cannot be reached: one OML527 line
        if order:
            order[0].problem = errors.engine_problem(error)
        return None


class _Runner:
    def __init__(self, options: RunOptions, side: Any, scratch: Path, listener: RunListener) -> None:
        self.options, self.side, self.scratch, self.listener = options, side, scratch, listener
        self.spark: Any = None
        self.cached: list[DataFrame] = []
        self.views: set[str] = set()  # the temp views the run made (listing them would run a Spark job)
        self.limit = options.limit or RunLimit()
        self.known = Known()
        self.halted: list[str] = []  # the step whose error-level check failed: nothing after it runs

    def cancel_jobs(self) -> None:
        """Cancel every Spark job of the run (the deadline's thread calls it)."""
        if self.spark is not None:
            self.spark.sparkContext.cancelAllJobs()

    # --- the plan: no Spark job ---------------------------------------------------------------

    def plan(self, step: _Step, steps: dict[str, _Step]) -> None:
        writers = [n for n in step.inputs if steps[n].result.mode == "write"] if reads_inputs(step.raw) else []
        if writers:
            step.problem = input_without_table_problem(writers[0])
        if step.problem or any(steps[n].problem for n in step.inputs):
            return  # it fails, or is skipped, when the steps run
        try:
            own = step.raw.get("config") or {}
            resolved = resolve_step_config(own, self.options.connections, self.options.env,
                                           self.options.secret_fields(step.result.component))
            step.config, step.secrets = resolved.config, resolved.secrets
            self.options.trust.check_step(step.result.component, own, resolved.connection)  # OML518
            step.files = self.options.trust.step_files(own, resolved.connection)
            step.config = effective_config(self.options.step_configs, step.result.step_id, step.result.component,
                                           step.config)  # the spec's defaults, as on DuckDB
            if step.result.mode == "read":
                step.frame = self._read(step)
            elif step.result.mode == "transform":
                step.frame = self._transform(step, steps)
        except RuntimeProblem as problem:
            step.problem = problem
        except Exception as error:  # a Spark or Java error: mapped and redacted, never raw
            step.problem = errors.problem_from(error, jdbc.family_of(step.result.component) or "", step.config,
                                               step.secrets)

    def _read(self, step: _Step) -> DataFrame:
        component, sample = step.result.component, self.options.sample
        family = jdbc.family_of(component)
        after = self.options.read_after.get(step.result.step_id)  # an incremental read (docs/run-again.md)
        if family is not None:
            frame, read = jdbc.read(self.spark, family, step.config, sample,
                                    self.spark.sparkContext.defaultParallelism, after)
            step.explain, found = read.explain, read.columns
        elif component == "filesystem.csv_extractor":
            frame, sniffed = files.read_csv(self.spark, step.config, step.files or self.options.trust.files({}),
                                            sample, self.scratch, after)
            found = [Column(name, kind) for name, kind in sniffed]
        else:
            frame, step.outcome, found = bridge.read_through_driver(self.spark, self._context(step))
        step.columns = engine_columns.matched(found, frame.schema)
        return frame

    def _transform(self, step: _Step, steps: dict[str, _Step]) -> DataFrame:
        from pyspark.errors import AnalysisException

        if step.result.component != PROCESSOR:
            raise spark_transform_problem(PROCESSOR, step.result.component)
        for step_id in step.inputs:
            self._view(steps[step_id], table_name(step_id))
        self.spark.catalog.dropTempView("input_df")
        if len(step.inputs) == 1:
            self._view(steps[step.inputs[0]], "input_df")
        query = str(step.config["query"])
        text = _checked_spark_sql(query, [table_name(n) for n in step.inputs])
        try:
            frame: DataFrame = self.spark.sql(text)
        except AnalysisException as error:
            views = sorted(self.views)
            columns = [c for n in step.inputs for c in steps[n].frame.columns]  # type: ignore[union-attr]
            raise errors.analysis_problem(error, views, columns) from None
        inputs = {table_name(n): steps[n].columns or [] for n in step.inputs}
        step.columns = engine_columns.of_transform(query, inputs, frame.schema, self.scratch)
        return frame

    def _view(self, step: _Step, name: str) -> None:
        step.frame.createOrReplaceTempView(name)  # type: ignore[union-attr]
        self.views.add(name)

    # --- the run -------------------------------------------------------------------------------

    def run(self, step: _Step, steps: dict[str, _Step], planned: bool) -> None:
        blocked = [n for n in step.inputs if steps[n].result.status != "ok"] + self.halted
        result = step.result
        if self.limit.reason is not None:
            not_started(result, self.limit, [s.result for s in steps.values()])
            self.listener.step_finished(result)
            return
        if step.problem is None and (blocked or not planned):
            result.status = "skipped"
            result.skipped_because = blocked[0] if blocked else next(s for s in steps.values() if s.problem).result.step_id
            result.halted = result.skipped_because not in step.inputs
            self.listener.step_finished(result)
            return
        self.listener.step_started(result)
        started = time.perf_counter()
        try:
            if step.problem is not None:
                raise step.problem
            self._execute(step, steps)
            result.status = "ok"
        except KeyboardInterrupt:
            result.status, result.duration_ms = "interrupted", since(started)
            self.listener.step_finished(result)
            raise
        except RuntimeProblem as problem:
            result.status, result.problem = "failed", clean(problem, step.secrets)
        except Exception as error:  # a Spark or Java error: mapped and redacted, never raw
            result.status = "failed"
            explained = step.explain(error) if step.explain else None  # a value the read refused
            result.problem = explained or errors.problem_from(error, jdbc.family_of(result.component) or "",
                                                              step.config, step.secrets)
        if self.limit.reason == "cancelled":
            raise KeyboardInterrupt
        if self.limit.expired and result.status == "failed":
            result.problem = deadline_problem(self.limit.seconds, self.limit.setting)
        result.duration_ms = since(started)
        if result.problem is not None and result.problem.code == CHECK_FAILED:
            self.halted = [result.step_id]  # the rows are wrong: nothing after this step runs, no writer commits
        self.listener.step_finished(result)

    def _execute(self, step: _Step, steps: dict[str, _Step]) -> None:
        result = step.result
        if result.mode == "write":
            result.rows_in = result.rows_out = self._write(step, steps)
            return
        frame = step.frame.persist()  # type: ignore[union-attr]
        self.cached.append(frame)
        rows = frame.count()
        step.frame = frame
        result.rows_out = rows
        result.rows_in = step.outcome.rows_in if step.outcome else (
            rows if result.mode == "read" else sum(steps[n].result.rows_out for n in step.inputs))
        columns = duckdb_columns(frame.schema)
        if result.mode == "read":  # a source's own columns are its schema; later steps may name them
            self.known = self.known.more([name for name, _ in columns])
            result.watermark = watermark(step.raw, frame, rows)
        known = current() if result.mode != "read" else None
        names = shown_columns([name for name, _ in columns], known)  # made from data: column_<n>
        result.columns = [(name, kind) for name, (_, kind) in zip(names, columns)]
        if self.options.sample is not None:
            preview = frame.limit(int(self.options.preview_rows)).collect()
            result.preview = ([str(n) for n in self.options.redact([*shown_columns(list(frame.columns), known)])],
                              [tuple(self.options.redact(list(row))) for row in preview])
        self.listener.step_progress(result, rows)
        if step.raw.get("checks"):  # the DuckDB engine's checks, on these rows (osiris.run.spark.checks)
            failed, warnings = run_checks_on(frame, table_name(result.step_id), step.raw, rows, self.options.sample)
            result.warnings += warnings
            if failed is not None:
                raise failed

    def _write(self, step: _Step, steps: dict[str, _Step]) -> int:
        if len(step.inputs) != 1:
            raise spark_inputs_problem(len(step.inputs))
        (source,) = step.inputs
        frame = steps[source].frame
        if frame is None:
            raise input_without_table_problem(source)
        rows = steps[source].result.rows_out
        component, family = step.result.component, jdbc.family_of(step.result.component)
        if component == "filesystem.csv_writer":
            where, sample = step.files or self.options.trust.files({}), self.options.sample is not None
            target = files.csv_target(step.config, step.result.step_id, where, sample=sample,
                                      sample_dir=self.options.sample_dir, scratch=self.scratch)
            files.write_csv(frame, step.config, target, self.scratch, None if sample else where,
                            engine_columns.types(steps[source].columns))
        elif family is not None:
            columns = steps[source].columns or engine_columns.of_spark(frame.schema)
            bridge.refuse_before_staging(frame, self._context(step), columns)
            staged = jdbc.stage_name(family, step.config)
            try:
                jdbc.stage(frame, family, step.config, staged, engine_columns.types(columns))
                bridge.write_through_driver(frame, self._context(step, staged), staged=columns)
            except KeyboardInterrupt:
                self.abandon()  # the JVM's tasks would hold the scratch table until they end
                raise
            finally:
                jdbc.drop(family, step.config, staged)
        else:
            rows = bridge.write_through_driver(frame, self._context(step), staged=None).rows_out
        self.listener.step_progress(step.result, rows)
        return rows

    def _context(self, step: _Step, staged: str | None = None) -> StepContext:
        result = step.result
        return StepContext(
            step_id=result.step_id, component=result.component, mode=result.mode, config=step.config,
            con=self.side, output_table=table_name(result.step_id),
            input_tables=input_tables(step.raw, step.inputs), sample=self.options.sample,
            work_dir=self.scratch, progress=lambda rows: self.listener.step_progress(result, rows),
            secrets=step.secrets, scratch_dir=self.scratch, sample_dir=self.options.sample_dir, files=step.files,
            staged_table=staged, project_dir=self.options.base_dir,
            read_after=self.options.read_after.get(result.step_id) if result.mode == "read" else None)

    def abandon(self) -> None:
        """Ctrl-C: stop Spark's jobs now by ending its JVM (osiris.run.spark.session.abandon)."""
        from osiris.run.spark.session import abandon

        if self.spark is not None:
            self.spark = None
            self.cached = []
            abandon()

    def end_stuck_tasks(self) -> None:
        """After the run was stopped: a task its cancelled job left running would hold an executor
        core, and the next run in this process (chat, MCP) would wait behind it forever. Give it
        `STUCK_TASK_GRACE_SECONDS` to end; if it does not, end the JVM (the next run starts a new one)."""
        from osiris.run.spark.session import running_tasks

        if self.spark is None:
            return
        waited_until = time.monotonic() + STUCK_TASK_GRACE_SECONDS
        while running_tasks(self.spark) and time.monotonic() < waited_until:
            time.sleep(0.1)
        if running_tasks(self.spark):
            self.abandon()

    def release(self) -> None:
        """Free the cached rows and the run's views; the session stays for the next run."""
        for frame in self.cached:
            frame.unpersist()
        if self.spark is not None:
            for name in self.views:
                self.spark.catalog.dropTempView(name)


def _checked_spark_sql(query: str, inputs: list[str]) -> str:
    """The Spark SQL of a transform, held to both lists before Spark sees it (OML518; validation says
    OML408 first): the DuckDB list on the query as written, the Spark list on the exact text Spark
    will run. The session itself knows only the Spark list's functions (osiris.run.spark.session)."""
    from osiris.trust.sql import refuse_unlisted, step_tables

    tables = step_tables(inputs)
    refuse_unlisted(query, "duckdb", tables)
    text = spark_sql(query)
    refuse_unlisted(text, "spark", tables)
    return text



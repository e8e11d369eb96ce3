"""One step through the engine: its context (connection resolved, trust boundary checked), its
driver, its checks and incremental cursor, and its failure told as one problem."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osiris.oml.step_graph import input_tables, table_name
from osiris.oml.incremental import incremental_of
from osiris.registry.registry import effective_config
from osiris.run.checks import run_checks
from osiris.run.connections import resolve_step_config
from osiris.run.deadline import RunLimit
from osiris.run.driver import RuntimeProblem, StepContext
from osiris.run.incremental import highest
from osiris.run.interrupts import Interrupts
from osiris.run.problems import deadline_problem, unknown_column_problem
from osiris.run.results import RunListener, RunOptions, StepResult
from osiris.run.step_failure import clean, interrupted, since, unmapped
from osiris.run.step_tables import finish_step, has_table, prepare_inputs
from osiris.trust.engine_words import Known


@dataclass
class RunState:
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


def run_step(step: Mapping[str, Any], inputs: list[str], result: StepResult, con: Any,
              options: RunOptions, listener: RunListener, scratch: Path, stop: RunState, announce: bool = True,
              fused: tuple[str, ...] = ()) -> None:
    """Run one step; `fused` (osiris.run.fused): the step's own id for a read fused into its
    transform (it leaves a view), or, for that transform, the ids of the reads fused into it."""
    from osiris.run.drivers import driver_for

    if announce:
        listener.step_started(result)
    started = time.perf_counter()
    secrets: tuple[str, ...] = ()
    try:
        ctx, secrets = step_context(step, inputs, result, con, options, listener, scratch)
        ctx.as_view, ctx.fused_inputs = result.step_id in fused, tuple(s for s in fused if s != result.step_id)
        prepare_inputs(con, ctx)
        outcome = driver_for(result.component).run(ctx)
        finish_step(result, outcome, con, ctx, options)
        if step.get("checks") and has_table(con, ctx.output_table):
            failed, warnings = run_checks(con, ctx.output_table, step, result.rows_out, options.sample)
            result.warnings += warnings
            if failed is not None:
                result.status, result.problem = "failed", failed
        following = incremental_of(step.get("config") or {})
        if following is not None and result.status == "ok" and has_table(con, ctx.output_table):
            names = [name for name, _ in result.columns]
            if following.cursor in names:
                result.watermark = highest(con, ctx.output_table, following.cursor)
            elif result.rows_out:  # rows need the cursor to move on from (an API's empty answer has no columns)
                result.status, result.problem = "failed", unknown_column_problem(
                    following.cursor, names, "the step's rows (its incremental cursor)")
    except KeyboardInterrupt:
        interrupted(result, started, listener)
        raise
    except (RuntimeProblem, Exception) as error:  # a library error no driver mapped: still the step's, redacted
        failed = error if isinstance(error, RuntimeProblem) else unmapped(error, result.component, secrets)
        try:
            result.status, result.problem = "failed", clean(stop.problem(failed), secrets)
        except KeyboardInterrupt:
            interrupted(result, started, listener)
            raise KeyboardInterrupt from None
    result.duration_ms = since(started)
    listener.step_finished(result)


def step_context(step: Mapping[str, Any], inputs: list[str], result: StepResult, con: Any, options: RunOptions,
             listener: RunListener, scratch: Path) -> tuple[StepContext, tuple[str, ...]]:
    """A step's context, with its connection's secrets resolved and the step checked against the
    trust boundary (a RuntimeProblem when it breaches it); the secrets, for redaction."""
    own = step.get("config") or {}
    resolved = resolve_step_config(own, options.connections, options.env, options.secret_fields(result.component))
    config, secrets = resolved.config, resolved.secrets
    try:
        options.trust.check_step(result.component, own, resolved.connection)
    except RuntimeProblem as problem:
        raise clean(problem, secrets) from None
    config = effective_config(options.step_configs, result.step_id, result.component, config)
    return StepContext(
        step_id=result.step_id, component=result.component, mode=result.mode,
        config=config, con=con, output_table=table_name(result.step_id),
        input_tables=input_tables(step, inputs), sample=options.sample, work_dir=scratch,
        progress=lambda rows: listener.step_progress(result, rows), secrets=secrets,
        scratch_dir=scratch, sample_dir=options.sample_dir,
        files=options.trust.step_files(own, resolved.connection),
        read_after=options.read_after.get(result.step_id), project_dir=options.base_dir), secrets



"""A run recorded in a session of its own, as `osiris run` makes it: the session, the run trail, the
run options from the settings, then the engine. `osiris run` and the MCP server's `run_sample` and
`run` tools (docs/mcp.md) both start runs here, so whatever a run may reach is decided in one place.

    recorded = run_recorded(effective, registry, redactor, pipeline, pipeline_path="p.yaml",
                            sample=10, listener=display)
    run_as_json(recorded, pipeline="p.yaml", sample=10)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from contextlib import AbstractContextManager

    from osiris.oml.config import StepConfig
    from osiris.oml.values import Config, Value
    from osiris.registry import Registry
    from osiris.run.deadline import RunLimit
    from osiris.run.driver import RuntimeProblem
    from osiris.run.duckdb_run import RunListener, RunResult, StepResult
    from osiris.run.lock import Held
    from osiris.run.run_trail import RunTrail
    from osiris.secrets.redact import Redactor
    from osiris.session.store import Session
    from osiris.settings.loader import EffectiveSettings


@dataclass
class RecordedRun:
    """A finished run and the session that holds its trail; `status` is the trail's word for it."""

    session: Session
    status: str  # succeeded | failed | interrupted
    result: RunResult
    trail: RunTrail


def run_recorded(effective: EffectiveSettings, registry: Registry, redactor: Redactor,
                 pipeline: Config, *, pipeline_path: str, pipeline_sha256: str, sample: int | None,
                 listener: RunListener, step_configs: Mapping[str, StepConfig] | None = None,
                 engine: str = "duckdb", params: Mapping[str, Config] | None = None,
                 step_params: Mapping[str, Sequence[str]] | None = None, wait: bool = False,
                 waiting: Callable[[str], None] = lambda line: None, full_refresh: bool = False,
                 limit: RunLimit | None = None) -> RecordedRun:
    """Run a validated `pipeline` in a new session (command `run`); `listener` sees every step too.
    `pipeline_sha256` is that of the pipeline's bytes as read (what `sha256sum` prints);
    `step_configs`, the validation report's, give each step its effective config (docs/architecture.md).
    With `sample`, extractors read that many rows and writes are proven, then undone (docs/run.md).
    The run stays inside the project's trust boundary (docs/security.md); sample CSV output is kept
    in the session only with `sessions.save_samples: true`. `engine` "spark" runs it on Apache Spark
    at `run.spark.master` (docs/spark.md). The run ends by its deadline (`run_limit`); `limit`, when
    given, is the caller's, so that it can stop the run (an MCP call cancelled). `params`, the report's `{name: {value, source}}`, are
    recorded in the trail (`run_start`, run.json): parameters are not secrets (docs/run-again.md).
    A full run (not `sample`) holds the pipeline's lock (osiris.run.lock): another run of it raises
    PipelineBusy, or with `wait` is waited for (`waiting` gets the line that says so). Incremental
    reads start where the pipeline's state for these parameter values says (`step_params`, the
    report's, say which parameters each step uses; `full_refresh`: from their `initial`), a sample
    run too, and the state advances only after a full run that succeeded (osiris.run.incremental)."""
    from contextlib import nullcontext

    from osiris.run.lock import pipeline_lock

    name = str(pipeline.get("name") or "")
    lock: AbstractContextManager[Held | None] = (
        pipeline_lock(effective.project_root, name or Path(pipeline_path).stem, wait=wait, waiting=waiting)
        if sample is None else nullcontext())
    with lock as held:
        return _run_recorded(effective, registry, redactor, pipeline, pipeline_path=pipeline_path,
                             pipeline_sha256=pipeline_sha256, sample=sample, listener=listener,
                             step_configs=step_configs, engine=engine, params=params, step_params=step_params,
                             full_refresh=full_refresh, limit=limit,
                             note=held.note if held is not None else lambda session: None)


def _run_recorded(effective: EffectiveSettings, registry: Registry, redactor: Redactor,
                  pipeline: Config, *, pipeline_path: str, pipeline_sha256: str, sample: int | None,
                  listener: RunListener, step_configs: Mapping[str, StepConfig] | None, engine: str,
                  params: Mapping[str, Config] | None, step_params: Mapping[str, Sequence[str]] | None,
                  full_refresh: bool, limit: RunLimit | None,
                  note: Callable[[str], None]) -> RecordedRun:
    from osiris.run.display import Listeners
    from osiris.run.duckdb_run import RunOptions, run_pipeline
    from osiris.settings.resources import engine_resources
    from osiris.run.run_trail import RunTrail
    from osiris.session import Session
    from osiris.trust.boundary import Boundary

    from osiris.errors import UsageError
    from osiris.oml.narrow import steps_of
    from osiris.run.incremental import plan_reads

    try:
        reads = plan_reads(effective.project_root, pipeline, str(pipeline.get("name") or Path(pipeline_path).stem),
                           params=params, step_params=step_params, full_refresh=full_refresh)
    except ValueError as error:
        raise UsageError(str(error)) from None
    root = effective.resolve_path(effective.settings.sessions.dir)
    session = Session.create(root, provider="none", model="none", redactor=redactor,
                             settings=effective.to_dict(), command="run")
    note(session.id)
    trail = RunTrail(session, pipeline_path=pipeline_path, sample=sample,
                     save_samples=effective.settings.sessions.save_samples,
                     pipeline_name=str(pipeline.get("name") or ""), pipeline_sha256=pipeline_sha256,
                     params=dict(params or {}))
    keep = sample is not None and effective.settings.sessions.save_samples  # sample CSV output, in the session
    threads, memory_mb = engine_resources(effective.settings.run)
    options = RunOptions(
        connections=effective.settings.connections, env=effective.env, base_dir=effective.project_root,
        sample=sample, sample_dir=session.path / "artifacts" if keep else None,
        secret_fields=lambda component: {p.strip("/") for p in registry.secret_fields(component)},
        step_configs=step_configs or {},
        boundary=Boundary.of(effective, registry, pipeline=Path(pipeline_path).resolve()), redact=redactor.data,
        read_after=reads.starts, limit=limit or run_limit(effective, sample), threads=threads,
        memory_limit_mb=memory_mb)
    trail.start(len(steps_of(pipeline)))
    if engine == "spark":
        from osiris.run.spark.spark_run import run_on_spark

        result = run_on_spark(pipeline, options, effective.settings.run.spark, Listeners(trail, listener))
    else:
        result = run_pipeline(pipeline, options, Listeners(trail, listener))
    if result.ok and sample is None:  # every writer committed: the state moves on (either engine)
        reads.advance(pipeline, result)
    return RecordedRun(session, trail.finish(result), result, trail)


def run_limit(effective: EffectiveSettings, sample: int | None) -> RunLimit:
    """A run's deadline from the settings: `validation.dry_run_timeout_seconds` for a sample run,
    `run.timeout_seconds` (none by default) for a full one (docs/security.md, "Every run ends")."""
    from osiris.run.deadline import RunLimit

    if sample is not None:
        return RunLimit(effective.settings.validation.dry_run_timeout_seconds, "validation.dry_run_timeout_seconds")
    return RunLimit(effective.settings.run.timeout_seconds, "run.timeout_seconds")


def run_problems(result: RunResult) -> list[tuple[StepResult, RuntimeProblem, str]]:
    """Every warning and failure of the run, step by step, each with its severity: what stderr
    shows and what `--json` lists as `problems`, in the same order."""
    return [(step, problem, severity) for step in result.steps
            for problem, severity in [(w, "warning") for w in step.warnings] + (
                [(step.problem, "error")] if step.problem else [])]


class RunJson(TypedDict):
    """What `osiris run --json` prints (docs/run.md)."""

    pipeline: str
    pipeline_name: str | None
    pipeline_sha256: str | None
    status: str
    sample: int | None
    session: str
    problems: list[dict[str, Value]]
    steps: list[dict[str, Value]]


def run_as_json(recorded: RecordedRun, *, pipeline: str, sample: int | None, redactor: Redactor) -> dict[str, object]:
    """What `osiris run --json` prints (docs/run.md): the status, the session, the problems and each
    step's rows, columns and types; never a row value. Redacted: a `RunJson` whose texts are masked
    (and a number that echoes a known secret, so its values are objects)."""
    from osiris.run.run_trail import step_target

    def issue(problem: RuntimeProblem) -> dict[str, Value]:
        return {"code": problem.code, "message": problem.message, "hint": problem.hint}

    result, trail = recorded.result, recorded.trail
    shown: RunJson = {
        "pipeline": pipeline, "pipeline_name": trail.pipeline_name, "pipeline_sha256": trail.pipeline_sha256,
        "status": recorded.status, "sample": sample, "session": str(recorded.session.path),
        "problems": [{"step": step.step_id, "severity": severity, **issue(problem)}
                     for step, problem, severity in run_problems(result)],
        "steps": [{
            "id": s.step_id, "component": s.component, "status": s.status, "rows_in": s.rows_in,
            "rows_out": s.rows_out, "duration_ms": s.duration_ms,
            "columns": [{"name": n, "type": t} for n, t in s.columns],
            "problem": issue(s.problem) if s.problem else None,
            "warnings": [issue(w) for w in s.warnings],
            "skipped_because": s.skipped_because,
            **({"halted": True} if s.halted else {}),  # skipped_because is not an input: the run stopped there
            **({"fused_into": s.fused_into} if s.fused_into else {}),  # a read its transform ran (ADR 0202)
            "target": step_target(s, sample),
        } for s in result.steps],
    }
    return redactor.data(shown)

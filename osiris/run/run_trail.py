"""The run trail: `run_start`, `step_start`, `step_complete`, `step_failed`, `run_end` events and a
per-run `run.json` (or `dry_run.json` for `--sample`) in the session directory.

The trail says what ran (the pipeline's path, name and sha256) and what was written where (each
writer's table or file, write mode and rows; docs/sessions.md, "Run sessions"). Everything goes
through the session's Redactor. Row values are kept only with `sessions.save_samples: true`;
otherwise the trail holds counts, columns and types.
"""

from __future__ import annotations

from collections.abc import Sequence

from osiris.oml.values import Config, Value
from osiris.run.duckdb_run import RunResult, StepResult
from osiris.run.targets import target_record
from osiris.session import Session, events
from osiris.session.reader import RUN_FILE, SAMPLE_RUN_FILE


class RunTrail:
    """A RunListener that records each step in the session as it happens."""

    def __init__(self, session: Session, *, pipeline_path: str, sample: int | None, save_samples: bool,
                 pipeline_name: str | None = None, pipeline_sha256: str | None = None,
                 params: dict[str, Config] | None = None) -> None:
        self.session = session
        self.sample = sample
        self.save_samples = save_samples
        self.pipeline_path = pipeline_path
        self.pipeline_name = pipeline_name
        self.pipeline_sha256 = pipeline_sha256
        self.params = params or {}  # name -> {value, source}; not secrets (docs/run-again.md)

    def start(self, steps: int) -> None:
        self.session.emit(events.RunStart(pipeline=self.pipeline_path, pipeline_name=self.pipeline_name,
                                          pipeline_sha256=self.pipeline_sha256, steps=steps, sample=self.sample,
                                          params=self.params or events.OMITTED))

    def step_started(self, step: StepResult) -> None:
        self.session.emit(events.StepStart(step_id=step.step_id, component=step.component, mode=step.mode))

    def step_progress(self, step: StepResult, rows: int) -> None:
        pass  # progress is for the display; the trail keeps what each step finished with

    def step_finished(self, step: StepResult) -> None:
        if step.status == "ok":
            target = step_target(step, self.sample)
            self.session.emit(events.StepComplete(step_id=step.step_id, rows_in=step.rows_in,
                                                  rows_out=step.rows_out, duration_ms=step.duration_ms,
                                                  target=events.OMITTED if target is None else target))
            for warning in step.warnings:
                self.session.emit(events.StepWarning(step_id=step.step_id, code=warning.code, message=warning.message))
        elif step.status == "failed" and step.problem is not None:
            self.session.emit(events.StepFailed(step_id=step.step_id, code=step.problem.code,
                                                message=step.problem.message, hint=step.problem.hint,
                                                duration_ms=step.duration_ms))
        elif step.status == "skipped":
            self.session.emit(events.StepSkipped(step_id=step.step_id, because=step.skipped_because))
        elif step.status == "interrupted":
            self.session.emit(events.StepFailed(step_id=step.step_id, code=None, message="interrupted (Ctrl-C)",
                                                duration_ms=step.duration_ms))

    def finish(self, result: RunResult) -> str:
        status = "interrupted" if result.interrupted else ("succeeded" if result.ok else "failed")
        name = SAMPLE_RUN_FILE if self.sample is not None else RUN_FILE
        self.session.write_json(f"artifacts/{name}", {
            "pipeline": self.pipeline_path, "pipeline_name": self.pipeline_name,
            "pipeline_sha256": self.pipeline_sha256, "params": self.params, "sample": self.sample, "status": status,
            "steps": [self._step_record(step) for step in result.steps]})
        self.session.emit(run_end(status, result.steps, self.sample))
        self.session.finish(status)
        return status

    def _step_record(self, step: StepResult) -> dict[str, object]:
        """The step in run.json (its sample rows, kept by `save_samples`, hold the engine's values)."""
        record: dict[str, object] = {
            "id": step.step_id, "component": step.component, "mode": step.mode, "status": step.status,
            "rows_in": step.rows_in, "rows_out": step.rows_out, "duration_ms": step.duration_ms,
            "columns": [{"name": name, "type": kind} for name, kind in step.columns],
            "warnings": [{"code": w.code, "message": w.message, "hint": w.hint} for w in step.warnings],
        }
        target = step_target(step, self.sample)
        if target is not None:
            record["target"] = target
        if step.problem is not None:
            record["problem"] = {"code": step.problem.code, "message": step.problem.message, "hint": step.problem.hint}
        if step.skipped_because:
            record["skipped_because"] = step.skipped_because
        if step.halted:  # not an input: the run stopped at that step
            record["halted"] = True
        if step.fused_into:  # rows counted by DuckDB in that transform's query (osiris.run.fused)
            record["fused_into"] = step.fused_into
        if step.route:
            record["route"] = step.route
        if self.save_samples and step.preview is not None:
            headers, rows = step.preview
            record["sample_rows"] = [dict(zip(headers, row)) for row in rows]
        return record


def run_end(status: str, steps: Sequence[StepResult], sample: int | None) -> events.RunEnd:
    """The `run_end` event of a run (or of the sample tier's run): its status, step counts, and
    what each writer wrote where."""
    targets = [target for target in (step_target(s, sample) for s in steps) if target is not None]
    return events.RunEnd(status=status, steps_ok=sum(s.status == "ok" for s in steps),
                         steps_failed=sum(s.status == "failed" for s in steps),
                         steps_skipped=sum(s.status == "skipped" for s in steps), targets=targets)


def step_target(step: StepResult, sample: int | None) -> dict[str, Value] | None:
    """A writer step's target with the rows it wrote and whether they were kept: on samples (and
    when the step did not complete) nothing is kept, and `rows` counts the rows it proved."""
    done = step.status == "ok"
    rows = (step.rows_in if sample is not None else step.rows_out) if done else 0
    return target_record(step.target, rows=rows, kept=done and sample is None)

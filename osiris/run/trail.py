"""The run trail: `run_start`, `step_start`, `step_complete`, `step_failed`, `run_end` events and a
per-run `run.json` (or `dry_run.json` for `--sample`) in the session directory.

Everything goes through the session's Redactor. Row values are kept only with
`sessions.save_samples: true`; otherwise the trail holds counts, columns and types.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from osiris.run.engine import RunResult, StepResult
from osiris.session import Session, events


class RunTrail:
    """A RunListener that records each step in the session as it happens."""

    def __init__(self, session: Session, *, pipeline_path: str, sample: int | None, save_samples: bool) -> None:
        self.session = session
        self.sample = sample
        self.save_samples = save_samples
        self.pipeline_path = pipeline_path

    def start(self, steps: int) -> None:
        self.session.emit(events.RunStart(pipeline=self.pipeline_path, steps=steps, sample=self.sample))

    def step_started(self, step: StepResult) -> None:
        self.session.emit(events.StepStart(step_id=step.step_id, component=step.component, mode=step.mode))

    def step_progress(self, step: StepResult, rows: int) -> None:
        pass  # progress is for the display; the trail keeps what each step finished with

    def step_finished(self, step: StepResult) -> None:
        if step.status == "ok":
            self.session.emit(events.StepComplete(step_id=step.step_id, rows_in=step.rows_in,
                                                  rows_out=step.rows_out, duration_ms=step.duration_ms))
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
        name = "dry_run.json" if self.sample is not None else "run.json"
        self.session.write_json(f"artifacts/{name}", {
            "pipeline": self.pipeline_path, "sample": self.sample, "status": status,
            "steps": [self._step_record(step) for step in result.steps]})
        self.session.emit(run_end(status, result.steps))
        self.session.finish(status)
        return status

    def _step_record(self, step: StepResult) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": step.step_id, "component": step.component, "mode": step.mode, "status": step.status,
            "rows_in": step.rows_in, "rows_out": step.rows_out, "duration_ms": step.duration_ms,
            "columns": [{"name": name, "type": kind} for name, kind in step.columns],
            "warnings": [{"code": w.code, "message": w.message, "hint": w.hint} for w in step.warnings],
        }
        if step.problem is not None:
            record["problem"] = {"code": step.problem.code, "message": step.problem.message, "hint": step.problem.hint}
        if step.skipped_because:
            record["skipped_because"] = step.skipped_because
        if self.save_samples and step.preview is not None:
            headers, rows = step.preview
            record["sample_rows"] = [dict(zip(headers, row)) for row in rows]
        return record


def run_end(status: str, steps: Sequence[StepResult]) -> events.RunEnd:
    """The `run_end` event of a run (or of the sample tier's run): its status and step counts."""
    return events.RunEnd(status=status, steps_ok=sum(s.status == "ok" for s in steps),
                         steps_failed=sum(s.status == "failed" for s in steps),
                         steps_skipped=sum(s.status == "skipped" for s in steps))

"""The sample tier's audit trail: per attempt `dry_run.json`, and the events `dry_run_start`,
`dry_run_complete` around the runtime's own `run_start`, `step_*` and `run_end`.

`dry_run.json` keeps each step's status, row counts, columns with their types, and duration. Row
values are kept only with `sessions.save_samples: true`: sample rows are real data and may be
personal data, which an audit trail should not collect by default (docs/sample-run.md).
"""

from __future__ import annotations


from osiris.run.duckdb_run import StepResult
from osiris.run.run_trail import RunTrail, run_end
from osiris.sample.sample_run import SampleRun
from osiris.session import Session, events


class SampleTrail(RunTrail):
    """The runtime's step events, recorded in the generation session for one attempt."""

    def __init__(self, session: Session, *, where: str, cycle: int, attempt: int, rows: int,
                 save_samples: bool, pipeline_name: str | None = None, pipeline_sha256: str | None = None) -> None:
        super().__init__(session, pipeline_path=f"cycle {cycle}, attempt {attempt}", sample=rows,
                         save_samples=save_samples, pipeline_name=pipeline_name, pipeline_sha256=pipeline_sha256)
        self.where, self.cycle, self.attempt = where, cycle, attempt

    def begin(self, steps: int, sources: list[str]) -> None:
        self.session.emit(events.DryRunStart(cycle=self.cycle, attempt_index=self.attempt,
                                             sample_rows=self.sample, steps=steps, sources=sources))

    def complete(self, dry_run: SampleRun, ran: bool) -> None:
        """dry_run.json, then `run_end` (when steps ran) and `dry_run_complete`."""
        self.session.write_json(f"{self.where}/dry_run.json", {
            "status": dry_run.status, "sample_rows": dry_run.rows, "reason": dry_run.reason,
            "duration_ms": dry_run.duration_ms, "values_saved": self.save_samples,
            "issues": [issue.to_dict() for issue in dry_run.issues],
            "steps": [self.step_record(step) for step in dry_run.steps]})
        if ran:
            self.session.emit(run_end(
                "succeeded" if dry_run.status == "passed" else dry_run.status, dry_run.steps, self.sample))
        self.session.emit(events.DryRunComplete(
            cycle=self.cycle, attempt_index=self.attempt, status=dry_run.status, reason=dry_run.reason,
            error_codes=sorted({i.code for i in dry_run.errors}),
            steps=[{"id": s.step_id, "status": s.status, "rows_out": s.rows_out} for s in dry_run.steps],
            duration_ms=dry_run.duration_ms))

    def step_record(self, step: StepResult) -> dict[str, object]:
        return self._step_record(step)

"""The sample run inside a cycle (docs/sample-run.md): a valid attempt is run on sample rows when the tier wants
it; a failure there adds its OML5xx errors to the attempt's report, so the retry loop handles them
like any other issue."""

from __future__ import annotations

from dataclasses import replace

from osiris.retry.progress import Observer, SamplesTested, TestingSamples
from osiris.retry.result import Attempt
from osiris.retry.seams import SampleTester
from osiris.retry.attempt_trail import attempt_dir, sha256


def try_on_samples(tier: SampleTester | None, cycle: int, attempt: Attempt, total: int, previous: Attempt | None,
                    observer: Observer) -> None:
    """Test `attempt` on samples if it is valid and the tier wants it; record the verdict on it."""
    pipeline = attempt.report.pipeline
    if tier is None or not attempt.valid or pipeline is None or not tier.wants(pipeline):
        return
    last = tier.last_time(previous.dry_run, previous.report.pipeline) if previous is not None else None
    observer(TestingSamples(cycle, attempt.index, total, tier.rows, last))
    dry_run = tier.test(pipeline, attempt.report.step_configs, cycle=cycle, attempt=attempt.index,
                        where=attempt_dir(cycle, attempt.index), pipeline_sha256=sha256(attempt.oml_text or ""),
                        params=attempt.report.params, step_params=attempt.report.step_params)
    attempt.dry_run = dry_run
    attempt.wall_ms += dry_run.duration_ms
    if dry_run.issues:
        attempt.report = replace(attempt.report, issues=[*attempt.report.issues, *dry_run.issues])
    observer(SamplesTested(cycle, attempt.index, total, dry_run))

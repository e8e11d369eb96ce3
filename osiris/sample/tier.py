"""The glue the generation engine calls after an attempt validates (tier 5 of SPEC §4).

    tier = SampleTier(policy, options, session, save_samples=False)
    tier.check(cycle, attempt, total, previous, observer)   # sets attempt.dry_run; may make it invalid

A failed sample run adds its OML5xx errors to the attempt's report, so the retry loop treats them
like any other issue: they go back to the LLM as a delta, with what the sample showed.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from osiris.retry.progress import Observer, SamplesTested, TestingSamples
from osiris.sample.dry_run import DryRun, SampleOptions, not_runnable, sample_run
from osiris.sample.facts import problem_headline, sample_facts
from osiris.sample.policy import DryRunPolicy, sources
from osiris.sample.trail import SampleTrail
from osiris.session import Session, events

if TYPE_CHECKING:
    from collections.abc import Mapping

    from osiris.oml.config import StepConfig
    from osiris.registry import Registry
    from osiris.settings.loader import EffectiveSettings


class SampleTier:
    def __init__(self, policy: DryRunPolicy, options: SampleOptions, session: Session, *, save_samples: bool) -> None:
        self.policy = policy
        self.options = options
        self.session = session
        self.save_samples = save_samples

    def check(self, cycle: int, attempt: Any, total: int, previous: Any, observer: Observer) -> DryRun | None:
        """Run a valid attempt on samples when the policy says so; None when it did not run."""
        pipeline = attempt.report.pipeline
        if pipeline is None or not self._wanted(pipeline):
            return None
        from osiris.retry.trail import attempt_dir

        started = time.perf_counter()
        where = attempt_dir(cycle, attempt.index)
        observer(TestingSamples(cycle, attempt.index, total, self.options.rows, last_time(previous)))
        trail = SampleTrail(self.session, where=where, cycle=cycle, attempt=attempt.index,
                            rows=self.options.rows, save_samples=self.save_samples)
        trail.begin(len(pipeline.get("steps") or []), sources(pipeline))
        blocked = not_runnable(pipeline, self.options)
        if blocked:
            dry_run = DryRun("skipped", self.options.rows, reason=blocked)
        else:
            trail.start(len(pipeline.get("steps") or []))
            options = replace(self.options, keep_dir=self.session.path / where) if self.save_samples else self.options
            dry_run = self._run(pipeline, options, trail, attempt.report.step_configs)
            if dry_run.failed:
                dry_run.facts = sample_facts(pipeline, dry_run.steps, self.options)
        dry_run.duration_ms = round((time.perf_counter() - started) * 1000, 1)  # the tier's whole cost
        trail.complete(dry_run, ran=blocked is None)
        attempt.dry_run = dry_run
        attempt.wall_ms += dry_run.duration_ms
        if dry_run.issues:
            attempt.report = replace(attempt.report, issues=[*attempt.report.issues, *dry_run.issues])
        observer(SamplesTested(cycle, attempt.index, total, dry_run))
        return dry_run

    def _run(self, pipeline: Any, options: SampleOptions, trail: SampleTrail,
             step_configs: Mapping[str, StepConfig]) -> DryRun:
        """The sample run; a failure outside every step (a bug, a broken install) leaves the pipeline
        untested with its reason, never a crash. Ctrl-C goes through."""
        try:
            return sample_run(pipeline, options, trail, step_configs)
        except Exception as error:
            reason = self.session.redactor.text(f"the sample run stopped: {type(error).__name__}: {error}")
            return DryRun("skipped", options.rows, reason=reason)

    def _wanted(self, pipeline: Any) -> bool:
        """The policy's decision; the person's answer, when it asked, is recorded (consent to read real systems)."""
        unasked = self.policy.answer is None
        wanted = self.policy.wants_run(pipeline)
        if unasked and self.policy.answer is not None:
            self.session.emit(events.DryRunAnswer(sources=sources(pipeline), sample_rows=self.options.rows,
                                                  answer="yes" if self.policy.answer else "no"))
        return wanted


def last_time(previous: Any) -> str | None:
    """What broke the previous attempt's sample run, in a few words; None when it did not fail there."""
    dry_run = getattr(previous, "dry_run", None)
    if dry_run is None or not dry_run.failed or not dry_run.errors:
        return None
    return problem_headline(dry_run.errors[0], previous.report.pipeline or {})


def build_tier(effective: EffectiveSettings, session: Session, registry: Registry, *, interactive: bool) -> SampleTier | None:
    """The tier for these settings, or None when it never runs (`off`; `ask` where nobody is asked).
    An interactive caller sets `tier.policy.ask` to the function that asks the person."""
    validation = effective.settings.validation
    if validation.dry_run == "off" or (validation.dry_run == "ask" and not interactive):
        return None
    options = SampleOptions(
        rows=validation.sample_rows, connections=effective.settings.connections, env=effective.env,
        base_dir=effective.project_root,
        secret_fields=lambda component: {p.strip("/") for p in registry.secret_fields(component)})
    return SampleTier(DryRunPolicy(validation.dry_run, validation.sample_rows), options, session,
                      save_samples=effective.settings.sessions.save_samples)

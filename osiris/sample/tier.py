"""The last tier of validation (docs/sample-run.md): the sample run of a valid attempt, for the generation engine.

    tier = SampleTier(policy, options, session, save_samples=False)
    if tier.wants(pipeline):                   # the policy; may ask the person once per session
        dry_run = tier.test(pipeline, step_configs, cycle=1, attempt=2, where="artifacts/cycle-1/attempt-2")

The engine (osiris/retry/samples.py) announces the run, records the verdict on its attempt, and adds
a failed run's OML5xx errors to the attempt's report, so the retry loop treats them like any other
issue: they go back to the LLM as a delta, with what the sample showed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from osiris.sample.sample_run import SampleRun, SampleOptions, not_runnable, sample_run
from osiris.sample.facts import problem_headline, sample_facts
from osiris.sample.policy import Ask, SampleRunPolicy, sources
from osiris.sample.sample_trail import SampleTrail
from osiris.oml.narrow import steps_of
from osiris.session import Session, events
from osiris.trust.boundary import Boundary
from osiris.trust.disclosure import shorten, withhold_values

if TYPE_CHECKING:
    from osiris.oml.config import StepConfig
    from osiris.oml.values import Config, Value
    from osiris.registry import Registry
    from osiris.settings.loader import EffectiveSettings


class SampleTier:
    def __init__(self, policy: SampleRunPolicy, options: SampleOptions, session: Session, *, save_samples: bool) -> None:
        self.policy = policy
        self.options = options
        self.session = session
        self.save_samples = save_samples

    @property
    def rows(self) -> int:
        """Rows a source in each sample run."""
        return self.options.rows

    def wants(self, pipeline: Config) -> bool:
        """The policy's decision; the person's answer, when it asked, is recorded (consent to read real systems)."""
        unasked = self.policy.answer is None
        wanted = self.policy.wants_run(pipeline)
        if unasked and self.policy.answer is not None:
            self.session.emit(events.DryRunAnswer(sources=sources(pipeline), sample_rows=self.options.rows,
                                                  answer="yes" if self.policy.answer else "no"))
        return wanted

    def test(self, pipeline: Config, step_configs: Mapping[str, StepConfig], *, cycle: int,
             attempt: int, where: str, pipeline_sha256: str = "", params: Mapping[str, Config] | None = None,
             step_params: Mapping[str, Sequence[str]] | None = None) -> SampleRun:
        """Run a valid pipeline on samples, each step with its effective config from validation, and
        write its trail under the session's `where` (the attempt's directory); `pipeline_sha256` is
        that of the attempt's canonical text, for the trail. Incremental reads start from the
        project's saved state for these parameter values (`params`, `step_params`: the report's),
        as the next run would; the state is never written (docs/run-again.md)."""
        started = time.perf_counter()
        trail = SampleTrail(self.session, where=where, cycle=cycle, attempt=attempt,
                            rows=self.options.rows, save_samples=self.save_samples,
                            pipeline_name=str(pipeline.get("name") or ""), pipeline_sha256=pipeline_sha256)
        trail.begin(len(steps_of(pipeline)), sources(pipeline))
        blocked = not_runnable(pipeline, self.options)
        read_after: dict[str, tuple[str, Value]] = {}
        if not blocked:
            read_after, blocked = self._saved_cursors(pipeline, params, step_params)
        if blocked:
            dry_run = SampleRun("skipped", self.options.rows, reason=blocked)
        else:
            trail.start(len(steps_of(pipeline)))
            options = replace(self.options, keep_dir=self.session.path / where) if self.save_samples else self.options
            dry_run = self._run(pipeline, options, trail, step_configs, read_after)
            if dry_run.failed:
                dry_run.facts = sample_facts(pipeline, dry_run.steps, self.options)
        dry_run.duration_ms = round((time.perf_counter() - started) * 1000, 1)  # the tier's whole cost
        trail.complete(dry_run, ran=blocked is None)
        return dry_run

    def _saved_cursors(self, pipeline: Config, params: Mapping[str, Config] | None,
                       step_params: Mapping[str, Sequence[str]] | None) -> tuple[dict[str, tuple[str, Value]], str | None]:
        """Where each incremental read starts by the project's saved state (nothing for a pipeline
        without a name), or why the sample cannot start (a state file Osiris cannot read)."""
        from osiris.run.incremental import plan_reads

        name = pipeline.get("name")
        if not isinstance(name, str) or not name:
            return {}, None
        try:
            plan = plan_reads(self.options.base_dir, pipeline, name, params=params, step_params=step_params,
                              full_refresh=False)
        except ValueError as error:
            return {}, str(error)
        return plan.starts, None

    def _run(self, pipeline: Config, options: SampleOptions, trail: SampleTrail,
             step_configs: Mapping[str, StepConfig], read_after: Mapping[str, tuple[str, Value]]) -> SampleRun:
        """The sample run; a failure outside every step (a bug, a broken install) leaves the pipeline
        untested with its reason, never a crash. Ctrl-C goes through."""
        try:
            return sample_run(pipeline, options, trail, step_configs, read_after)
        except Exception as error:
            detail = shorten(withhold_values(str(error).strip().splitlines()[0] if str(error).strip() else "no details"),
                             200, self.session.redactor.text)
            return SampleRun("skipped", options.rows, reason=f"the sample run stopped: {detail}")

    @staticmethod
    def last_time(dry_run: SampleRun | None, pipeline: Config | None) -> str | None:
        """What broke the previous attempt's sample run, in a few words; None when it did not fail there."""
        if dry_run is None or not dry_run.failed or not dry_run.errors:
            return None
        return problem_headline(dry_run.errors[0], pipeline or {})


def build_tier(effective: EffectiveSettings, session: Session, registry: Registry, *,
               ask: Ask | None = None) -> SampleTier | None:
    """The tier for these settings, or None when it never runs (`off`; `ask` where nobody can be
    asked). `ask`: how an interactive caller asks the person ("Test on 10 sample rows ...? [Y/n]")."""
    validation = effective.settings.validation
    if validation.dry_run == "off" or (validation.dry_run == "ask" and ask is None):
        return None
    options = SampleOptions(
        rows=validation.sample_rows, connections=effective.settings.connections, env=effective.env,
        base_dir=effective.project_root,
        secret_fields=lambda component: {p.strip("/") for p in registry.secret_fields(component)},
        boundary=Boundary.of(effective, registry), redact=session.redactor.data,
        timeout_seconds=validation.dry_run_timeout_seconds)
    return SampleTier(SampleRunPolicy(validation.dry_run, validation.sample_rows, ask), options, session,
                      save_samples=effective.settings.sessions.save_samples)

"""Run a validated pipeline on samples (`osiris run --sample N` semantics) and judge the result.

Extractors read at most N rows, writers prove their writes and roll them back, CSV writers write
into the run's scratch directory: nothing is kept in any target. The run stays inside the same
trust boundary as a real run (docs/security.md): consent to a sample run is consent to run on
sample rows, never to widen it. The verdict is one of:

- `passed`: every step ran;
- `failed`: a step failed in a way the pipeline can fix (an unknown column, a wrong data_path, ...):
  its OML5xx problem becomes an error Issue (tier 5) for the retry loop;
- `skipped`: the sample could not run for a reason outside the pipeline (a secret not set, a server
  down, credentials rejected, a component without a runtime): the pipeline stays valid, untested.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from osiris.oml.config import StepConfig
from osiris.run.driver import RuntimeProblem
from osiris.run.duckdb_run import RunListener, RunOptions, RunResult, StepResult
from osiris.run.results import Redact
from osiris.trust.boundary import Boundary
from osiris.oml.narrow import config_of, steps_of
from osiris.validate.issue import Issue

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value
    from osiris.settings.model import Connections

SampleRunStatus = Literal["passed", "failed", "skipped"]
SAMPLE_TIER = 5
# Problems no change to the pipeline can fix: the tier is skipped, not failed.
# cannot connect, rejected credentials, secret not set, cleartext password refused, connection setting invalid,
# out of the engine's memory; and a bug in Osiris (OML105), which no answer of the LLM can fix
ENVIRONMENT_CODES = frozenset({"OML105", "OML505", "OML506", "OML511", "OML520", "OML521", "OML526"})


@dataclass
class SampleOptions:
    """Where a sample run gets its connections, secrets and files."""

    rows: int
    connections: Connections
    env: Mapping[str, str]
    base_dir: Path
    secret_fields: Callable[[str], set[str]] = lambda component: set()
    keep_dir: Path | None = None  # sessions.save_samples: CSV sample output is kept here; else nowhere
    boundary: Boundary | None = None  # None: the project's own (base_dir, the built-in specs)
    redact: Redact = lambda values: values  # preview rows pass through it (the session's redactor)
    timeout_seconds: float | None = None  # validation.dry_run_timeout_seconds: the run's deadline (OML532)


@dataclass
class SampleRun:
    """The verdict of one sample run."""

    status: SampleRunStatus
    rows: int  # the sample size: rows a source
    steps: list[StepResult] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)  # errors when failed; OML513 warnings any time
    reason: str | None = None  # why it was skipped
    facts: list[str] = field(default_factory=list)  # what the sample showed, for the retry prompt
    duration_ms: float = 0.0

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    @property
    def errors(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.is_error]


def sample_run(pipeline: Config, options: SampleOptions, listener: RunListener,
               step_configs: Mapping[str, StepConfig] | None = None,
               read_after: Mapping[str, tuple[str, Value]] | None = None) -> SampleRun:
    """Run `pipeline` on `options.rows` rows a source (check `not_runnable` first), each step with its
    effective config from validation (`step_configs`), each incremental read after its saved cursor
    (`read_after`, osiris.run.incremental: the sample shows what the next run would read; it never
    writes the state). Ctrl-C is re-raised after the running writer rolled back."""
    from osiris.run.deadline import RunLimit
    from osiris.run.duckdb_run import run_pipeline

    started = time.perf_counter()
    run_options = RunOptions(connections=options.connections, env=options.env, base_dir=options.base_dir,
                             sample=options.rows, sample_dir=options.keep_dir, secret_fields=options.secret_fields,
                             step_configs=step_configs or {}, boundary=options.boundary, redact=options.redact,
                             read_after=read_after or {}, limit=RunLimit(options.timeout_seconds, "validation.dry_run_timeout_seconds"))
    result = run_pipeline(pipeline, run_options, listener)
    if result.interrupted:
        raise KeyboardInterrupt
    verdict = judge(pipeline, result, options.rows)
    verdict.duration_ms = round((time.perf_counter() - started) * 1000, 1)
    return verdict


def not_runnable(pipeline: Config, options: SampleOptions) -> str | None:
    """Why the sample cannot start (a connection secret not set, no runtime for a component), or None.

    Checked before any step runs, so that nothing is touched when the run could not finish anyway.
    What the pipeline itself may not do is no reason to skip: the run refuses it as a problem."""
    from osiris.run.connections import resolve_step_config
    from osiris.run.drivers import has_driver

    for step in steps_of(pipeline):
        component = str(step.get("component", ""))
        if not has_driver(component):
            return f"step '{step.get('id')}': no runtime for the component {component}"
        try:
            resolve_step_config(config_of(step), options.connections, options.env,
                                options.secret_fields(component))
        except RuntimeProblem as problem:
            if is_environment(problem):
                return f"step '{step.get('id')}': {problem.message}"
    return None


def judge(pipeline: Config, result: RunResult, rows: int) -> SampleRun:
    """passed, failed (issues for the LLM) or skipped (a problem of the environment)."""
    index = {str(step["id"]): n for n, step in enumerate(steps_of(pipeline))}
    warnings = [_issue(index[s.step_id], s, w, "warning") for s in result.steps for w in s.warnings]
    failed = [(s, s.problem) for s in result.steps if s.status == "failed" and s.problem is not None]
    fixable = [(s, problem) for s, problem in failed if not is_environment(problem)]
    if fixable:
        errors = [_issue(index[s.step_id], s, problem, "error") for s, problem in fixable]
        return SampleRun("failed", rows, result.steps, errors + warnings)
    if failed:
        step, problem = failed[0]
        return SampleRun("skipped", rows, result.steps, warnings, reason=f"step '{step.step_id}': {problem.message}")
    return SampleRun("passed", rows, result.steps, warnings)


def is_environment(problem: RuntimeProblem | None) -> bool:
    """A server down (also an API answering 5xx), credentials rejected or a secret not set."""
    if problem is None:
        return False
    server_error = problem.code == "OML508" and isinstance(problem.value, int) and problem.value >= 500
    return problem.code in ENVIRONMENT_CODES or server_error


def _issue(position: int, step: StepResult, problem: RuntimeProblem, severity: str) -> Issue:
    return Issue(problem.code, SAMPLE_TIER, severity, f"/steps/{position}/config",  # type: ignore[arg-type]
                 f"step '{step.step_id}' failed on sample rows: {problem.message}" if severity == "error"
                 else f"step '{step.step_id}' on sample rows: {problem.message}",
                 problem.hint, value=problem.value if isinstance(problem.value, (str, int, float)) else None)

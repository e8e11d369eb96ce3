"""Progress events the engine reports while it works, for a spinner, a status line or a log.

The engine never prompts anyone. A caller passes an observer (any callable taking one of these)
and decides what to show: `osiris generate` prints lines on stderr, `osiris chat` a status line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from osiris.sample.sample_run import SampleRun
    from osiris.llm.errors import LLMServiceError
    from osiris.validate.issue import ValidationReport
    from osiris.retry.result import CycleResult


@dataclass(frozen=True)
class RequestScrubbed:
    """Secrets were removed from the person's message; `notice` says what, in one line."""

    notice: str


@dataclass(frozen=True)
class Generating:
    cycle: int
    attempt: int  # 1-based
    total: int  # the most attempts this cycle may take (max_attempts + 1)


@dataclass(frozen=True)
class Validating:
    cycle: int
    attempt: int
    total: int


@dataclass(frozen=True)
class AttemptFailed:
    """An attempt did not validate. `report` is its ValidationReport; `will_retry` says whether
    another attempt follows."""

    cycle: int
    attempt: int
    total: int
    report: ValidationReport
    will_retry: bool


@dataclass(frozen=True)
class ApiErrorRetrying:
    """A transient LLM service error. `delay_s` is None when no retry follows."""

    error: LLMServiceError
    delay_s: float | None
    retry_number: int
    budget: int


@dataclass(frozen=True)
class PipelineValid:
    cycle: int
    attempt: int
    report: ValidationReport


@dataclass(frozen=True)
class TestingSamples:
    """The sample tier starts on a valid attempt. `last_time`: what broke the previous attempt's
    sample run, in a few words (e.g. "unknown column 'active' in customers"), or None."""

    cycle: int
    attempt: int
    total: int
    rows: int
    last_time: str | None = None


@dataclass(frozen=True)
class SamplesTested:
    """The sample tier's verdict: `dry_run.status` is passed, failed or skipped (with `reason`)."""

    cycle: int
    attempt: int
    total: int
    dry_run: SampleRun


@dataclass(frozen=True)
class CycleFinished:
    result: CycleResult


ProgressEvent = Union[
    RequestScrubbed, Generating, Validating, AttemptFailed, ApiErrorRetrying, PipelineValid, TestingSamples,
    SamplesTested, CycleFinished,
]
Observer = Callable[[ProgressEvent], None]


def ignore(event: ProgressEvent) -> None:
    """The default observer: shows nothing."""

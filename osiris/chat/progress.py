"""The engine's progress events as the person sees them: a live status line (a spinner on a
terminal, plain lines on a pipe) and, for failed attempts, their errors in brief."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from osiris.chat.display import Display, Status
from osiris.chat.render import count, describe_locations, show_errors
from osiris.retry.progress import (
    ApiErrorRetrying,
    AttemptFailed,
    Generating,
    ProgressEvent,
    RequestScrubbed,
    TestingSamples,
    Validating,
)
from osiris.retry.plain_progress import testing_text

if TYPE_CHECKING:
    from osiris.validate.issue import ValidationReport

ERRORS_SHOWN_PER_ATTEMPT = 3

_SERVICE_PROBLEMS = {
    "rate_limit": "Rate limited",
    "overloaded": "The LLM service is overloaded",
    "server": "The LLM service had an error",
    "timeout": "The LLM call timed out",
    "deadline": "The LLM answer took too long",
    "connection": "Could not reach the LLM service",
}


class ChatProgress:
    """An engine observer. Wrap each engine call in `working()` so there is a status to update."""

    def __init__(self, display: Display) -> None:
        self.display = display
        self._status: Status | None = None
        self._last_failure: ValidationReport | None = None  # the report of the last failed attempt

    @contextlib.contextmanager
    def working(self, text: str = "Working…") -> Iterator[None]:
        self._last_failure = None
        with self.display.status(text) as status:
            self._status = status
            try:
                yield
            finally:
                self._status = None

    def __call__(self, event: ProgressEvent) -> None:
        if isinstance(event, RequestScrubbed):
            self.display.warn(f"Note: {event.notice}")
        elif isinstance(event, Generating):
            self._update(generating_text(event, self._last_failure))
        elif isinstance(event, Validating):
            self._update(f"Validating (attempt {event.attempt}/{event.total})…")
        elif isinstance(event, AttemptFailed):
            self._last_failure = event.report
            self._attempt_failed(event)
        elif isinstance(event, ApiErrorRetrying):
            self._service_problem(event)
        elif isinstance(event, TestingSamples):
            self._update(testing_text(event))

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Hold the status line while the person is asked something mid-call."""
        if self._status is None:
            yield
            return
        with self._status.pause():
            yield

    def _update(self, text: str) -> None:
        if self._status is not None:
            self._status.update(text)

    def _attempt_failed(self, event: AttemptFailed) -> None:
        errors = event.report.errors
        then = " — asking the LLM to fix them" if event.will_retry else ""
        where = " failed on sample rows" if errors and all(issue.tier == 5 for issue in errors) else ""
        self.display.error(f"✗ Attempt {event.attempt}/{event.total}{where}: {count(len(errors), 'error')}{then}")
        show_errors(self.display, errors, limit=ERRORS_SHOWN_PER_ATTEMPT, text=event.report.oml_text)

    def _service_problem(self, event: ApiErrorRetrying) -> None:
        problem = _SERVICE_PROBLEMS.get(event.error.kind, f"LLM service error ({event.error})")
        if event.delay_s is None:
            self.display.warn(f"{problem}; giving up.")
            return
        text = f"{problem}, retrying in {seconds(event.delay_s)} ({event.retry_number}/{event.budget})"
        self.display.warn(text)
        self._update(text + "…")


def seconds(delay: float) -> str:
    """'4 s' for waits of a second or more, '0.3 s' below."""
    return f"{delay:.0f} s" if delay >= 1 else f"{delay:.1f} s"


def generating_text(event: Generating, last_failure: ValidationReport | None) -> str:
    """'Generating…' first; then 'Generating (attempt 2/3), last time: 2 errors in steps[1].config'."""
    if event.attempt == 1:
        return "Generating…"
    if last_failure is None:
        return f"Generating (attempt {event.attempt}/{event.total})…"
    errors = last_failure.errors
    where = describe_locations(errors)
    last = f", last time: {count(len(errors), 'error')}" + (f" in {where}" if where else "")
    return f"Generating (attempt {event.attempt}/{event.total}){last}…"

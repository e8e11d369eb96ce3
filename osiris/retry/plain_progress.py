"""Plain progress lines on stderr for non-interactive commands (no colours, no spinner)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from osiris.retry.progress import (
    ApiErrorRetrying,
    AttemptFailed,
    Generating,
    PipelineValid,
    ProgressEvent,
    RequestScrubbed,
    SamplesTested,
    TestingSamples,
)

if TYPE_CHECKING:
    from osiris.sample.sample_run import SampleRun
    from osiris.validate.issue import Issue

MAX_ISSUES_SHOWN = 8


def testing_text(event: TestingSamples) -> str:
    """`Testing on samples (attempt 2/3), last time: unknown column 'active' in customers…`."""
    last = f", last time: {event.last_time}" if event.last_time else f": {event.rows} rows a source"
    return f"Testing on samples (attempt {event.attempt}/{event.total}){last}…"


def skipped_text(dry_run: SampleRun) -> str:
    """Why the sample tier did not run, and what that means for the pipeline."""
    return f"not tested on samples: {dry_run.reason}; the pipeline is valid but untested"


class ProgressPrinter:
    """An engine observer that prints one line per step, and the friendly errors of each attempt."""

    def __init__(self, stream: TextIO, redact: Callable[[str], str] = str) -> None:
        self.stream = stream
        self.redact = redact  # the session's redactor, once there is a session (docs/sessions.md)

    def __call__(self, event: ProgressEvent) -> None:
        if isinstance(event, RequestScrubbed):
            self._say(f"note: {event.notice}")
        elif isinstance(event, Generating):
            self._say(f"generating (attempt {event.attempt}/{event.total})...")
        elif isinstance(event, AttemptFailed):
            self._attempt_failed(event)
        elif isinstance(event, ApiErrorRetrying):
            if event.delay_s is not None:
                self._say(
                    f"LLM service: {event.error}; retrying in {event.delay_s:.1f} s "
                    f"({event.retry_number}/{event.budget})"
                )
            else:
                self._say(f"LLM service: {event.error}")
        elif isinstance(event, TestingSamples):
            text = testing_text(event).removesuffix("…")
            self._say(text[:1].lower() + text[1:] + "...")  # the style of "generating (attempt 2/3)..."
        elif isinstance(event, SamplesTested):
            self._tested(event)
        elif isinstance(event, PipelineValid):
            warnings = event.report.warnings
            extra = f" with {len(warnings)} warning{'s' if len(warnings) != 1 else ''}" if warnings else ""
            self._say(f"attempt {event.attempt}: valid{extra}")
            self._list(warnings)

    def _attempt_failed(self, event: AttemptFailed) -> None:
        errors = event.report.errors
        then = "; asking the LLM to fix them" if event.will_retry else ""
        where = " on sample rows" if errors and all(issue.tier == 5 for issue in errors) else ""
        self._say(f"attempt {event.attempt}/{event.total}{where}: {len(errors)} error{'s' if len(errors) != 1 else ''}{then}")
        self._list(errors, event.report.oml_text)

    def _tested(self, event: SamplesTested) -> None:
        dry_run = event.dry_run
        if dry_run.status == "passed":
            self._say(f"attempt {event.attempt}: ran on {dry_run.rows} sample rows a source "
                      f"({len(dry_run.steps)} steps ok, {dry_run.duration_ms / 1000:.1f} s)")
        elif dry_run.status == "skipped":
            self._say(skipped_text(dry_run))

    def _list(self, issues: list[Issue], text: str | None = None) -> None:
        """The friendly rendering of the first few issues, indented under the status line; a
        YAML-level error (tier 1) with the lines of `text` around it and a caret."""
        from osiris.explain import friendly
        from osiris.excerpt import excerpt

        for issue in issues[:MAX_ISSUES_SHOWN]:
            shown = excerpt(self.redact(text), issue.line, issue.column) if text and issue.tier == 1 and issue.line else ""
            for n, line in enumerate(friendly(issue).splitlines() + shown.splitlines()):
                self._print(("  - " if n == 0 else "    ") + line)
        if len(issues) > MAX_ISSUES_SHOWN:
            self._print(f"  ... and {len(issues) - MAX_ISSUES_SHOWN} more")

    def _say(self, text: str) -> None:
        self._print(f"osiris: {text}")

    def _print(self, line: str) -> None:
        """One line, redacted, its control characters escaped (an error text may quote a server)."""
        from osiris.text_table import printable

        print(printable(self.redact(line)), file=self.stream, flush=True)

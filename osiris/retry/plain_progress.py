"""Plain progress lines on stderr for non-interactive commands (no colours, no spinner)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from osiris.retry.progress import (
    ApiErrorRetrying,
    AttemptFailed,
    Generating,
    PipelineValid,
    ProgressEvent,
    RequestScrubbed,
)

MAX_ISSUES_SHOWN = 8


class ProgressPrinter:
    """An engine observer that prints one line per step, and the friendly errors of each attempt."""

    def __init__(self, stream: TextIO, redact: Callable[[str], str] = str) -> None:
        self.stream = stream
        self.redact = redact  # the session's redactor, once there is a session (SPEC §8)

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
        elif isinstance(event, PipelineValid):
            warnings = event.report.warnings
            extra = f" with {len(warnings)} warning{'s' if len(warnings) != 1 else ''}" if warnings else ""
            self._say(f"attempt {event.attempt}: valid{extra}")
            self._list(warnings)

    def _attempt_failed(self, event: AttemptFailed) -> None:
        errors = event.report.errors
        then = "; asking the LLM to fix them" if event.will_retry else ""
        self._say(f"attempt {event.attempt}/{event.total}: {len(errors)} error{'s' if len(errors) != 1 else ''}{then}")
        self._list(errors, event.report.oml_text)

    def _list(self, issues: list, text: str | None = None) -> None:
        """The friendly rendering of the first few issues, indented under the status line; a
        YAML-level error (tier 1) with the lines of `text` around it and a caret."""
        from osiris.explain import friendly
        from osiris.validate.excerpt import excerpt

        for issue in issues[:MAX_ISSUES_SHOWN]:
            shown = excerpt(self.redact(text), issue.line, issue.column) if text and issue.tier == 1 and issue.line else ""
            for n, line in enumerate(friendly(issue).splitlines() + shown.splitlines()):
                self._print(("  - " if n == 0 else "    ") + line)
        if len(issues) > MAX_ISSUES_SHOWN:
            self._print(f"  ... and {len(issues) - MAX_ISSUES_SHOWN} more")

    def _say(self, text: str) -> None:
        self._print(f"osiris: {text}")

    def _print(self, line: str) -> None:
        print(self.redact(line), file=self.stream, flush=True)

"""What one generation cycle produced: its attempts and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from osiris.llm.types import TokenUsage

if TYPE_CHECKING:
    from osiris.sample.sample_run import SampleRun
    from osiris.validate.issue import ValidationReport

AttemptKind = Literal["generate", "fix_errors", "fix_sample", "no_pipeline", "cut_off", "edit"]
StopReason = Literal["valid", "exhausted", "no_progress", "question", "strict", "edited_invalid", "dry_run_exhausted",
                     "budget", "interrupted", "llm_error"]


@dataclass
class Attempt:
    """One generation (or one edit) and its validation."""

    index: int  # 1-based within the cycle
    kind: AttemptKind
    prompt: str  # the user message sent, scrubbed ("" for an edit)
    answer: str  # the raw answer text (the edited file for an edit)
    report: ValidationReport
    usage: TokenUsage = field(default_factory=TokenUsage)
    llm_ms: float = 0.0
    validate_ms: float = 0.0
    wall_ms: float = 0.0  # the whole attempt, LLM wait included
    llm_stop_reason: str | None = None
    dry_run: SampleRun | None = None  # set when the attempt was tested on samples

    @property
    def failed_on_samples(self) -> bool:
        return self.dry_run is not None and self.dry_run.failed

    @property
    def valid(self) -> bool:
        return bool(self.report.valid)

    @property
    def oml_text(self) -> str | None:
        text: str | None = self.report.oml_text
        return text

    @property
    def error_key(self) -> frozenset[tuple[str, str, str]]:
        """What 'the same errors' means for the early stop (docs/generate.md): what each error says,
        its code, path (the step and field) and message. An error that names something else, or
        says something else about the same thing (a sample run that now reached another endpoint),
        is progress."""
        return frozenset((issue.code, issue.path, issue.message) for issue in self.report.errors)


@dataclass
class CycleResult:
    """A cycle ends `valid`; or invalid with `stop_reason` exhausted (budget spent), no_progress
    (the same errors twice in a row), strict (max_attempts 0: no retry was allowed),
    dry_run_exhausted (sample-run failures used up validation.retry.dry_run_attempts) or
    edited_invalid (the person's edit, validated without the LLM); or, when the engine may ask,
    `question` (the LLM asked the person something instead of a pipeline; see `question`). A cycle
    cut short records `interrupted` (Ctrl-C), `llm_error` (the service failed for good) or
    `budget` (a spending cap) in its trail as both its status and its stop reason."""

    cycle: int
    request: str  # scrubbed
    max_attempts: int  # retries allowed after the first generation
    attempts: list[Attempt]
    stop_reason: StopReason
    hint: str | None = None
    trail_path: str | None = None  # the cycle's retry_trail.json
    unrecorded_usage: TokenUsage = field(default_factory=TokenUsage)  # an answer cut off by Ctrl-C before its attempt was recorded

    @property
    def valid(self) -> bool:
        return self.stop_reason == "valid"

    @property
    def question(self) -> str | None:
        """The LLM's question to the person, when the cycle ended with one."""
        return self.last.answer.strip() if self.stop_reason == "question" else None

    @property
    def last(self) -> Attempt:
        return self.attempts[-1]

    @property
    def report(self) -> ValidationReport:
        return self.last.report

    @property
    def dry_run(self) -> SampleRun | None:
        """The last attempt's sample run (None when it was not tested on samples)."""
        return self.last.dry_run if self.attempts else None

    @property
    def oml_text(self) -> str | None:
        """The pipeline of the last attempt: the fixed one when the cycle ended valid."""
        return self.last.oml_text

    @property
    def usage(self) -> TokenUsage:
        """Every token the cycle spent: its attempts', and an answer that arrived just before Ctrl-C."""
        total = self.unrecorded_usage
        for attempt in self.attempts:
            total = total + attempt.usage
        return total

    @property
    def llm_ms(self) -> float:
        return sum(a.llm_ms for a in self.attempts)

    @property
    def validate_ms(self) -> float:
        return sum(a.validate_ms for a in self.attempts)

"""Every event that events.jsonl can hold, one frozen dataclass each: its type and its fields.

`Session.emit(event)` writes `event_type`, then the fields in the order they are declared here
(docs/sessions.md lists them; tests/test_session_events.py keeps the two in step). A field whose
value is `OMITTED` is left out of the line (e.g. `step_failed` has no `hint` when a step was
interrupted). `JSON_NAMES` renames fields that are Python keywords (`class` of `api_error`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final


class _Omitted:
    def __repr__(self) -> str:
        return "OMITTED"


OMITTED: Final[Any] = _Omitted()  # a field left out of the written event


@dataclass(frozen=True)
class Event:
    """Base of every event; `TYPE` is its `event_type`."""

    TYPE: ClassVar[str] = ""
    JSON_NAMES: ClassVar[dict[str, str]] = {}

    def to_fields(self) -> dict[str, Any]:
        """The event's fields as written, in declaration order, without the OMITTED ones."""
        values = ((self.JSON_NAMES.get(f.name, f.name), getattr(self, f.name)) for f in fields(self))
        return {name: value for name, value in values if value is not OMITTED}

    @classmethod
    def field_names(cls) -> list[str]:
        return [cls.JSON_NAMES.get(f.name, f.name) for f in fields(cls)]


# --- the session ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class SessionStart(Event):
    TYPE = "session_start"
    provider: str
    model: str
    command: str


@dataclass(frozen=True)
class SessionResumed(Event):
    TYPE = "session_resumed"
    provider: str
    model: str


@dataclass(frozen=True)
class SessionEnd(Event):
    TYPE = "session_end"
    status: str
    totals: dict[str, Any]


@dataclass(frozen=True)
class UserMessage(Event):
    TYPE = "user_message"
    kind: str
    text: str
    scrubbed: bool


@dataclass(frozen=True)
class SettingsChanged(Event):
    TYPE = "settings_changed"
    setting: str
    value: Any


@dataclass(frozen=True)
class LlmCallCancelled(Event):
    TYPE = "llm_call_cancelled"
    reason: str


# --- one generation cycle ------------------------------------------------------------------------

@dataclass(frozen=True)
class ValidationAttemptStart(Event):
    TYPE = "validation_attempt_start"
    cycle: int
    attempt_index: int
    kind: str


@dataclass(frozen=True)
class LlmRequest(Event):
    TYPE = "llm_request"
    cycle: int
    attempt_index: int
    model: str
    messages: int
    prompt_chars: int


@dataclass(frozen=True)
class ApiError(Event):
    TYPE = "api_error"
    JSON_NAMES = {"error_class": "class"}
    cycle: int
    attempt_index: int
    delay_s: float | None
    retry_number: int
    error_class: str
    status: int | None
    retryable: bool
    retry_after: float | None
    message: str


@dataclass(frozen=True)
class LlmResponse(Event):
    TYPE = "llm_response"
    cycle: int
    attempt_index: int
    model: str
    stop_reason: str | None
    token_usage: dict[str, int]
    duration_ms: float


@dataclass(frozen=True)
class ValidationAttemptComplete(Event):
    TYPE = "validation_attempt_complete"
    cycle: int
    attempt_index: int
    valid: bool
    error_count: int
    warning_count: int
    error_codes: list[str]
    duration_ms: float


@dataclass(frozen=True)
class ValidationRetry(Event):
    TYPE = "validation_retry"
    cycle: int
    attempt_index: int
    validation_errors: list[dict[str, Any]]
    token_usage: dict[str, int]
    duration_ms: float


@dataclass(frozen=True)
class RetryStopped(Event):
    TYPE = "retry_stopped"
    cycle: int
    stop_reason: str
    attempts: int


@dataclass(frozen=True)
class SpendingCapReached(Event):
    TYPE = "spending_cap_reached"
    reason: str
    session_tokens: int
    cycle_tokens: int
    next_call_tokens: int
    max_session_tokens: int | None
    max_cycle_tokens: int | None


@dataclass(frozen=True)
class AssistantQuestion(Event):
    TYPE = "assistant_question"
    cycle: int
    text: str


@dataclass(frozen=True)
class HitlEscalation(Event):
    TYPE = "hitl_escalation"
    cycle: int
    stop_reason: str
    attempts: list[dict[str, Any]]
    token_usage: dict[str, int]


@dataclass(frozen=True)
class HitlResponse(Event):
    TYPE = "hitl_response"
    action: str
    reason: str = OMITTED  # e.g. "empty hint" for a cancel


@dataclass(frozen=True)
class RetryCounterReset(Event):
    TYPE = "retry_counter_reset"
    reason: str
    max_attempts: int


@dataclass(frozen=True)
class PipelineAccepted(Event):
    TYPE = "pipeline_accepted"
    cycle: int
    path: str | None
    sha256: str
    dry_run: str


# --- the sample tier -----------------------------------------------------------------------------

@dataclass(frozen=True)
class DryRunStart(Event):
    TYPE = "dry_run_start"
    cycle: int
    attempt_index: int
    sample_rows: int | None
    steps: int
    sources: list[str]


@dataclass(frozen=True)
class DryRunAnswer(Event):
    TYPE = "dry_run_answer"
    sources: list[str]
    sample_rows: int
    answer: str


@dataclass(frozen=True)
class DryRunComplete(Event):
    TYPE = "dry_run_complete"
    cycle: int
    attempt_index: int
    status: str
    reason: str | None
    error_codes: list[str]
    steps: list[dict[str, Any]]
    duration_ms: float


# --- a run (osiris run, and the sample tier's runs) ----------------------------------------------

@dataclass(frozen=True)
class RunStart(Event):
    TYPE = "run_start"
    pipeline: str  # the path as given to `osiris run`
    pipeline_name: str | None
    pipeline_sha256: str | None  # of the file's bytes: what `sha256sum` prints
    steps: int
    sample: int | None


@dataclass(frozen=True)
class StepStart(Event):
    TYPE = "step_start"
    step_id: str
    component: str
    mode: str


@dataclass(frozen=True)
class StepComplete(Event):
    TYPE = "step_complete"
    step_id: str
    rows_in: int
    rows_out: int
    duration_ms: float
    target: dict[str, Any] = OMITTED  # a writer's table or file, write mode, rows, kept (osiris.run.targets)


@dataclass(frozen=True)
class StepWarning(Event):
    TYPE = "step_warning"
    step_id: str
    code: str
    message: str


@dataclass(frozen=True)
class StepFailed(Event):
    TYPE = "step_failed"
    step_id: str
    code: str | None
    message: str
    hint: str | None = OMITTED  # left out when the step was interrupted
    duration_ms: float = OMITTED


@dataclass(frozen=True)
class StepSkipped(Event):
    TYPE = "step_skipped"
    step_id: str
    because: str | None


@dataclass(frozen=True)
class RunEnd(Event):
    TYPE = "run_end"
    status: str
    steps_ok: int
    steps_failed: int
    steps_skipped: int
    targets: list[dict[str, Any]]  # every writer's target, as in step_complete


# --- the MCP server (osiris mcp) -----------------------------------------------------------------

@dataclass(frozen=True)
class McpToolCall(Event):
    TYPE = "mcp_tool_call"
    tool: str
    arguments: dict[str, Any]
    status: str
    summary: dict[str, Any]
    message: str | None
    duration_ms: float


EVENTS: dict[str, type[Event]] = {cls.TYPE: cls for cls in Event.__subclasses__()}

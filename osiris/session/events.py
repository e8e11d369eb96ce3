"""Every event that events.jsonl can hold, one frozen class each: its type and its fields.

`Session.emit(event)` writes `event_type`, then the fields in the order they are declared here
(docs/sessions.md lists them; tests/test_session_events.py keeps the two in step). A field whose
value is `OMITTED` is left out of the line (e.g. `step_failed` has no `hint` when a step was
interrupted). `JSON_NAMES` renames fields that are Python keywords (`class` of `api_error`).

An event class declares its fields as a frozen dataclass would (annotated, a default after the
fields without one), and type checkers treat it as one (`dataclass_transform`); at run time `Event`
gives every class one `__init__`, instead of the dataclass machinery writing and compiling five
methods for each: that took 15-30 ms of every command that keeps a session (ADR 0169).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, dataclass_transform


class _Omitted:
    def __repr__(self) -> str:
        return "OMITTED"


OMITTED: Final[Any] = _Omitted()  # a field left out of the written event


@dataclass_transform(frozen_default=True)
class Event:
    """Base of every event; `TYPE` is its `event_type`, `FIELDS` its fields in declaration order."""

    TYPE: ClassVar[str] = ""
    JSON_NAMES: ClassVar[dict[str, str]] = {}
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        own = [name for name, kind in cls.__dict__.get("__annotations__", {}).items()
               if not str(kind).startswith(("ClassVar", "typing.ClassVar"))]
        cls.FIELDS = (*cls.FIELDS, *own)

    def __init__(self, *args: object, **values: object) -> None:
        kind = type(self)
        if len(args) > len(kind.FIELDS):
            raise TypeError(f"{kind.__name__}() takes {len(kind.FIELDS)} fields, not {len(args)}")
        given = dict(zip(kind.FIELDS, args))
        for name, value in values.items():
            if name not in kind.FIELDS or name in given:
                raise TypeError(f"{kind.__name__}() got an unexpected or repeated field {name!r}")
            given[name] = value
        missing = [name for name in kind.FIELDS if name not in given and not hasattr(kind, name)]
        if missing:
            raise TypeError(f"{kind.__name__}() is missing {', '.join(map(repr, missing))}")
        for name, value in given.items():
            object.__setattr__(self, name, value)  # the others keep their class-level default

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"an event does not change: cannot assign to {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"an event does not change: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(getattr(self, n) == getattr(other, n) for n in self.FIELDS)

    __hash__ = None  # type: ignore[assignment]  # fields hold dicts and lists, as a frozen dataclass's would

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.FIELDS)})"

    def to_fields(self) -> dict[str, object]:
        """The event's fields as written, in declaration order, without the OMITTED ones."""
        values = ((self.JSON_NAMES.get(name, name), getattr(self, name)) for name in self.FIELDS)
        return {name: value for name, value in values if value is not OMITTED}

    @classmethod
    def field_names(cls) -> list[str]:
        return [cls.JSON_NAMES.get(name, name) for name in cls.FIELDS]


# --- the session ---------------------------------------------------------------------------------

class SessionStart(Event):
    TYPE = "session_start"
    provider: str
    model: str
    command: str


class SessionResumed(Event):
    TYPE = "session_resumed"
    provider: str
    model: str


class SessionEnd(Event):
    TYPE = "session_end"
    status: str
    totals: dict[str, Any]


class UserMessage(Event):
    TYPE = "user_message"
    kind: str
    text: str
    scrubbed: bool


class SettingsChanged(Event):
    TYPE = "settings_changed"
    setting: str
    value: Any


class LlmCallCancelled(Event):
    TYPE = "llm_call_cancelled"
    reason: str


# --- one generation cycle ------------------------------------------------------------------------

class ValidationAttemptStart(Event):
    TYPE = "validation_attempt_start"
    cycle: int
    attempt_index: int
    kind: str


class LlmRequest(Event):
    TYPE = "llm_request"
    cycle: int
    attempt_index: int
    model: str
    messages: int
    prompt_chars: int


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


class LlmResponse(Event):
    TYPE = "llm_response"
    cycle: int
    attempt_index: int
    model: str
    stop_reason: str | None
    token_usage: dict[str, int]
    duration_ms: float


class ValidationAttemptComplete(Event):
    TYPE = "validation_attempt_complete"
    cycle: int
    attempt_index: int
    valid: bool
    error_count: int
    warning_count: int
    error_codes: list[str]
    duration_ms: float


class ValidationRetry(Event):
    TYPE = "validation_retry"
    cycle: int
    attempt_index: int
    validation_errors: list[dict[str, Any]]
    token_usage: dict[str, int]
    duration_ms: float


class RetryStopped(Event):
    TYPE = "retry_stopped"
    cycle: int
    stop_reason: str
    attempts: int


class SpendingCapReached(Event):
    TYPE = "spending_cap_reached"
    reason: str
    session_tokens: int
    cycle_tokens: int
    next_call_tokens: int
    max_session_tokens: int | None
    max_cycle_tokens: int | None


class AssistantQuestion(Event):
    TYPE = "assistant_question"
    cycle: int
    text: str


class HitlEscalation(Event):
    TYPE = "hitl_escalation"
    cycle: int
    stop_reason: str
    attempts: list[dict[str, Any]]
    token_usage: dict[str, int]


class HitlResponse(Event):
    TYPE = "hitl_response"
    action: str
    reason: str = OMITTED  # e.g. "empty hint" for a cancel


class RetryCounterReset(Event):
    TYPE = "retry_counter_reset"
    reason: str
    max_attempts: int


class PipelineAccepted(Event):
    TYPE = "pipeline_accepted"
    cycle: int
    path: str | None
    sha256: str
    dry_run: str


# --- the sample tier -----------------------------------------------------------------------------

class DryRunStart(Event):
    TYPE = "dry_run_start"
    cycle: int
    attempt_index: int
    sample_rows: int | None
    steps: int
    sources: list[str]


class DryRunAnswer(Event):
    TYPE = "dry_run_answer"
    sources: list[str]
    sample_rows: int
    answer: str


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

class RunStart(Event):
    TYPE = "run_start"
    pipeline: str  # the path as given to `osiris run`
    pipeline_name: str | None
    pipeline_sha256: str | None  # of the file's bytes: what `sha256sum` prints
    steps: int
    sample: int | None
    params: dict[str, Any] = OMITTED  # name -> {value, source}: parameters are not secrets (docs/run-again.md)


class StepStart(Event):
    TYPE = "step_start"
    step_id: str
    component: str
    mode: str


class StepComplete(Event):
    TYPE = "step_complete"
    step_id: str
    rows_in: int
    rows_out: int
    duration_ms: float
    target: dict[str, Any] = OMITTED  # a writer's table or file, write mode, rows, kept (osiris.run.targets)


class StepWarning(Event):
    TYPE = "step_warning"
    step_id: str
    code: str
    message: str


class StepFailed(Event):
    TYPE = "step_failed"
    step_id: str
    code: str | None
    message: str
    hint: str | None = OMITTED  # left out when the step was interrupted
    duration_ms: float = OMITTED


class StepSkipped(Event):
    TYPE = "step_skipped"
    step_id: str
    because: str | None


class RunEnd(Event):
    TYPE = "run_end"
    status: str
    steps_ok: int
    steps_failed: int
    steps_skipped: int
    targets: list[dict[str, Any]]  # every writer's target, as in step_complete


# --- the MCP server (osiris mcp) -----------------------------------------------------------------

class McpToolCall(Event):
    TYPE = "mcp_tool_call"
    tool: str
    arguments: dict[str, Any]
    status: str
    summary: dict[str, Any]
    message: str | None
    duration_ms: float


EVENTS: dict[str, type[Event]] = {cls.TYPE: cls for cls in Event.__subclasses__()}

"""The generation engine (docs/generate.md): generate, validate, and retry with delta prompts, bounded.

A cycle is one request taken to a valid pipeline or to a stop: at most `max_attempts + 1`
generations, stopping early when an attempt repeats the errors of the one before. LLM service
errors are retried separately (`osiris.llm.backoff`) and never count as attempts.

The engine never asks the person anything. When a cycle ends invalid, an interactive caller
shows `escalate(result)` and then calls `retry_with_hint`, `revalidate` (after an edit),
`fresh`, or stops; each choice is recorded with `record_choice`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from osiris.errors import OsirisError, UsageError
from osiris.llm.backoff import call_with_backoff
from osiris.llm.errors import LLMServiceError
from osiris.llm.types import LLMReply, LLMRequest, Message, Provider, TokenUsage
from osiris.prompt import (
    SystemPrompt,
    build_request_prompt,
    retry_kind,
)
from osiris.prompt.component_slice import MessageDetails
from osiris.prompt.request import pipeline_message
from osiris.request import scrub_request
from osiris.retry import attempt_trail
from osiris.retry.budget import SpendingCap, stop_before_call
from osiris.retry.delta import delta_prompt
from osiris.retry.engine_config import EngineConfig
from osiris.retry.history import Turn, history_messages
from osiris.retry.progress import (
    ApiErrorRetrying,
    AttemptFailed,
    CycleFinished,
    Generating,
    Observer,
    PipelineValid,
    RequestScrubbed,
    Validating,
    ignore,
)
from osiris.retry.result import Attempt, AttemptKind, CycleResult, StopReason
from osiris.retry.samples import try_on_samples
from osiris.retry.seams import PipelineValidator, SampleTester
from osiris.session import Session
from osiris.session import events as ev

if TYPE_CHECKING:
    from osiris.oml.values import Value
    from osiris.validate.issue import Issue, ValidationReport


NO_DETAILS, NO_CAP = MessageDetails(), SpendingCap()  # messages with nothing added; no spending cap


class GenerationEngine:
    """Turns requests into validated OML within a session. One engine per session, given all its
    collaborators here (`osiris.retry.setup.open_engine` builds them from the settings):
    `details` adds component field lists and the schema slice to messages (issues 13, 14),
    `sample_tier` tests valid attempts on samples (issue 12), `spending_cap` bounds the tokens."""

    def __init__(
        self,
        *,
        provider: Provider,
        validator: PipelineValidator,
        session: Session,
        system_prompt: SystemPrompt,
        config: EngineConfig,
        render: Callable[[Issue], str],
        observer: Observer = ignore,
        sleep: Callable[[float], None] = time.sleep,
        details: MessageDetails = NO_DETAILS,
        sample_tier: SampleTester | None = None,
        spending_cap: SpendingCap = NO_CAP,
    ) -> None:
        self.provider = provider
        self.validator = validator
        self.session = session
        self.system_prompt = system_prompt
        self.config = config
        self.render = render
        self.observer = observer
        self.sleep = sleep
        self.details = details
        self.sample_tier = sample_tier
        self.spending_cap = spending_cap
        self.budget_stop: str | None = None  # why the last cycle stopped at a spending cap
        self.turns: list[Turn] = []  # every accepted turn (request, answer); `history` is what is sent
        self.current_oml: str | None = None  # the latest valid pipeline (for follow-ups)
        self.last: CycleResult | None = None
        self._request: str | None = None
        self._unrecorded: tuple[TokenUsage, float] | None = None  # an answer's (usage, LLM ms) not yet recorded

    # --- what a caller uses ----------------------------------------------------------------

    def run(self, request: str) -> CycleResult:
        """A new request (or a follow-up that changes the current pipeline): one full cycle."""
        text = self._take_user_text(request, kind="request")
        self._request = text
        return self._cycle(text, hint=None, base_oml=self.current_oml)

    def retry_with_hint(self, hint: str) -> CycleResult:
        """After an escalation: the person's guidance, the last pipeline, and a fresh retry budget."""
        request = self._require_request()
        text = self._take_user_text(hint, kind="hint")
        self.session.emit(ev.RetryCounterReset(reason="hint", max_attempts=self.config.max_attempts))
        base = self.last.oml_text if self.last and self.last.oml_text else self.current_oml
        still_open = self.last.report.errors if self.last and not self.last.valid and self.last.attempts else []
        redact = self.session.redactor.text
        return self._cycle(request, hint=text, base_oml=base, open_errors=[redact(self.render(i)) for i in still_open])

    def fresh(self) -> CycleResult:
        """After an escalation: the same request generated anew, with a fresh retry budget."""
        request = self._require_request()
        self.session.emit(ev.RetryCounterReset(reason="fresh", max_attempts=self.config.max_attempts))
        return self._cycle(request, hint=None, base_oml=self.current_oml)

    def revalidate(self, oml_text: str) -> CycleResult:
        """After the person edited the pipeline: validate it again, without the LLM."""
        cycle = self.session.start_cycle()
        started = time.perf_counter()
        self.session.emit(ev.ValidationAttemptStart(cycle=cycle, attempt_index=1, kind="edit"))
        self.observer(Validating(cycle, 1, 1))
        report, validate_ms = self._validate(oml_text, truncated=False)
        attempt = Attempt(1, "edit", "", oml_text, report, validate_ms=validate_ms)
        try_on_samples(self.sample_tier, cycle, attempt, 1, None, self.observer)  # the sample run
        attempt.wall_ms = (time.perf_counter() - started) * 1000
        self._record_attempt(cycle, attempt, previous=self.last.last if self.last and self.last.attempts else None)
        result = CycleResult(
            cycle, self._request or "", 0, [attempt], "valid" if attempt.valid else "edited_invalid", hint=None
        )
        return self._finish_cycle(result)

    def set_max_attempts(self, max_attempts: int) -> None:
        """Change the retry budget for the next cycles (e.g. chat's `/retry-attempts N`)."""
        from osiris.settings.allowed import MAX_ATTEMPTS, int_bounds

        lowest, highest = int_bounds(MAX_ATTEMPTS)  # from the settings model (docs/configuration.md)
        if not lowest <= max_attempts <= highest:
            raise UsageError(
                f"retry attempts must be a whole number from {lowest} to {highest}, not {max_attempts}"
            )
        self.config = replace(self.config, max_attempts=max_attempts)
        self.session.emit(ev.SettingsChanged(setting="validation.retry.max_attempts", value=max_attempts))

    def escalate(self, result: CycleResult) -> list[dict[str, Value]]:
        """Record the hand-off to the person; returns the last `history_limit` attempts to show."""
        shown = [attempt_trail.attempt_summary(a) for a in result.attempts[-self.config.history_limit :]]
        self.session.emit(ev.HitlEscalation(
            cycle=result.cycle, stop_reason=result.stop_reason, attempts=shown, token_usage=result.usage.to_dict(),
        ))
        return shown

    def record_choice(self, action: str, reason: str = ev.OMITTED) -> None:
        """The person's answer to an escalation: hint, edit, fresh or cancel."""
        self.session.emit(ev.HitlResponse(action=action, reason=reason))

    def accept(self, result: CycleResult, saved_to: str | None = None) -> str:
        """Mark a valid pipeline accepted: save it in the session and return its sha256."""
        oml = result.oml_text or ""
        digest = attempt_trail.sha256(oml)
        self.session.write_text(f"{attempt_trail.cycle_dir(result.cycle)}/accepted.yaml", oml)
        tested = result.dry_run.status if result.dry_run is not None else "off"
        self.session.emit(ev.PipelineAccepted(cycle=result.cycle, path=saved_to, sha256=digest, dry_run=tested))
        return digest

    def restore(self, conversation: list[dict[str, Value]]) -> None:
        """Rebuild the turns of a saved conversation.jsonl (for `osiris chat --resume`)."""
        request: str | None = None
        for entry in conversation:
            content, oml = entry.get("content", ""), entry.get("oml")
            if entry.get("role") == "user" and entry.get("kind", "request") == "request":
                request = content if isinstance(content, str) else ""
            elif entry.get("role") == "assistant" and entry.get("valid") and isinstance(oml, str) and oml and request:
                self._remember_turn(request, oml)
        self._request = request

    # --- one cycle --------------------------------------------------------------------------

    def _cycle(
        self, request: str, *, hint: str | None, base_oml: str | None, open_errors: Sequence[str] = ()
    ) -> CycleResult:
        cycle = self.session.start_cycle()
        total = self.config.max_attempts + 1
        redacted_base = self.session.redactor.text(base_oml) if base_oml else None
        schema = self.details.for_request(request, self.current_oml)  # field lists and tables it needs
        in_history = redacted_base is not None and Message("assistant", pipeline_message(redacted_base)) in self.history
        first_prompt = build_request_prompt(request, hint=hint, current_oml=redacted_base, open_errors=open_errors,
                                            schema=schema, current_in_history=in_history)  # each pipeline sent once
        retry_head = build_request_prompt(request, hint=hint, schema=schema)  # the delta carries the latest pipeline
        attempts: list[Attempt] = []
        result = CycleResult(cycle, request, self.config.max_attempts, attempts, "exhausted", hint=hint)
        prompt = first_prompt
        kind: AttemptKind = "generate"
        self.budget_stop = None
        self._unrecorded = None
        try:
            for index in range(1, total + 1):
                self.budget_stop = stop_before_call(self.spending_cap, self.session, self._sent_along(), attempts,
                                                    prompt)
                if self.budget_stop is not None:  # a spending cap (osiris.retry.budget)
                    result.stop_reason = "budget"
                    break
                attempt = self._attempt(cycle, index, total, prompt, kind)
                previous = attempts[-1] if attempts else None
                try_on_samples(self.sample_tier, cycle, attempt, total, previous, self.observer)
                attempts.append(attempt)
                self._record_attempt(cycle, attempt, previous)
                if attempt.valid:
                    result.stop_reason = "valid"
                    self.observer(PipelineValid(cycle, index, attempt.report))
                    break
                if self.config.may_ask and _is_question(attempt):
                    result.stop_reason = "question"
                    break
                if previous is not None and attempt.error_key == previous.error_key:
                    result.stop_reason = "no_progress"
                elif index == total:
                    result.stop_reason = "strict" if total == 1 else "exhausted"
                elif attempt.failed_on_samples and _sample_failures(attempts) > self.config.dry_run_attempts:
                    result.stop_reason = "dry_run_exhausted"
                else:
                    self._announce_retry(cycle, attempt, total)
                    details = self.details.for_errors(request, self.current_oml, attempt.report.errors,
                                                      attempt.report.pipeline)
                    delta = delta_prompt(attempts, self.config.history_limit, self.session.redactor.text, self.render)
                    prompt = "\n\n".join(part for part in (retry_head, delta, details) if part)
                    kind = retry_kind(attempt.report.error_codes).value
                    continue
                self.observer(AttemptFailed(cycle, index, total, attempt.report, will_retry=False))
                break
        except (OsirisError, KeyboardInterrupt) as stopped:
            # The LLM service failed for good, or the person pressed Ctrl-C: keep the record, re-raise.
            reason = "interrupted" if isinstance(stopped, KeyboardInterrupt) else getattr(stopped, "stop_reason", "llm_error")
            result.stop_reason = cast("StopReason", reason)
            self._book_unrecorded(result)
            attempt_trail.write_trail(self.session, result, status=reason)
            self.session.checkpoint()
            self.session.emit(ev.RetryStopped(cycle=cycle, stop_reason=reason, attempts=len(attempts)))
            raise
        return self._finish_cycle(result)

    def _attempt(self, cycle: int, index: int, total: int, prompt: str, kind: AttemptKind) -> Attempt:
        started = time.perf_counter()
        self.session.emit(ev.ValidationAttemptStart(cycle=cycle, attempt_index=index, kind=kind))
        self.observer(Generating(cycle, index, total))
        request = LLMRequest(
            system_stable=self.system_prompt.stable,
            system_dynamic=self.system_prompt.dynamic,
            messages=[*self.history, Message("user", self.session.redactor.text(prompt))],  # the last lock
            max_tokens=self.config.max_tokens,
        )
        self.session.emit(ev.LlmRequest(
            cycle=cycle, attempt_index=index, model=self.provider.model, messages=len(request.messages),
            prompt_chars=len(prompt),
        ))
        llm_started = time.perf_counter()
        reply: LLMReply = call_with_backoff(
            lambda: self.provider.complete(request),
            self.config.backoff,
            on_error=lambda error, delay, n: self._api_error(cycle, index, error, delay, n),
            sleep=self.sleep,
        )
        llm_ms = (time.perf_counter() - llm_started) * 1000
        self.session.emit(ev.LlmResponse(
            cycle=cycle, attempt_index=index, model=reply.model, stop_reason=reply.stop_reason,
            token_usage=reply.usage.to_dict(), duration_ms=round(llm_ms, 1),  # from llm_request: every try and wait
        ))
        self._unrecorded = (reply.usage, llm_ms)
        self.observer(Validating(cycle, index, total))
        report, validate_ms = self._validate(reply.text, truncated=reply.truncated)
        attempt = Attempt(index, kind, prompt, reply.text, report, reply.usage, llm_ms, validate_ms)
        attempt.llm_stop_reason = reply.stop_reason
        attempt.wall_ms = (time.perf_counter() - started) * 1000
        return attempt

    def _sent_along(self) -> list[str]:
        """The texts every call sends besides its prompt: the system prompt and the history."""
        return [self.system_prompt.stable, self.system_prompt.dynamic, *(m.content for m in self.history)]

    def _validate(self, text: str, *, truncated: bool) -> tuple[ValidationReport, float]:
        started = time.perf_counter()
        report = self.validator.validate(text, truncated=truncated)
        elapsed = (time.perf_counter() - started) * 1000
        if report.pipeline is not None:  # an inline secret in the answer: mask it everywhere from now on
            registry = getattr(self.validator, "registry", None)
            spec_marked = registry.secret_paths(report.pipeline) if registry is not None else ()
            self.session.redactor.learn_from(report.pipeline, spec_marked)
        return report, elapsed

    def _record_attempt(self, cycle: int, attempt: Attempt, previous: Attempt | None) -> None:
        self._unrecorded = None
        attempt_trail.write_attempt(self.session, cycle, attempt, previous, self.config.save_failed_oml)
        self.session.book(
            tokens=attempt.usage.to_dict(),
            llm_ms=attempt.llm_ms,
            validation_ms=attempt.validate_ms,
            attempts=1,
        )
        self.session.emit(ev.ValidationAttemptComplete(
            cycle=cycle, attempt_index=attempt.index, valid=attempt.valid, error_count=len(attempt.report.errors),
            warning_count=len(attempt.report.warnings), error_codes=list(attempt.report.error_codes),
            duration_ms=round(attempt.validate_ms, 2),
        ))

    def _book_unrecorded(self, result: CycleResult) -> None:
        """Ctrl-C after an answer arrived, before its attempt was recorded (while it was validated or
        tested on samples): its tokens are billed, so they count in the cycle and the session."""
        if self._unrecorded is not None:
            usage, llm_ms = self._unrecorded
            result.unrecorded_usage = usage
            self.session.book(tokens=usage.to_dict(), llm_ms=llm_ms, validation_ms=0.0, attempts=0)
            self._unrecorded = None

    def _announce_retry(self, cycle: int, attempt: Attempt, total: int) -> None:
        self.session.emit(ev.ValidationRetry(
            cycle=cycle, attempt_index=attempt.index,
            validation_errors=[issue.to_dict() for issue in attempt.report.errors],
            token_usage=attempt.usage.to_dict(), duration_ms=round(attempt.wall_ms, 1),
        ))
        self.observer(AttemptFailed(cycle, attempt.index, total, attempt.report, will_retry=True))

    def _api_error(self, cycle: int, index: int, error: LLMServiceError, delay: float | None, n: int) -> None:
        self.session.emit(ev.ApiError(
            cycle=cycle, attempt_index=index, delay_s=delay, retry_number=n, error_class=error.kind,
            status=error.status, retryable=error.retryable, retry_after=error.retry_after, message=error.message,
        ))
        self.observer(ApiErrorRetrying(error, delay, n, self.config.backoff.retries))

    def _finish_cycle(self, result: CycleResult) -> CycleResult:
        result.trail_path = attempt_trail.write_trail(self.session, result)
        self.session.checkpoint()
        if result.valid:
            self._remember_turn(result.request, result.oml_text or "")
        elif result.question:
            self.session.emit(ev.AssistantQuestion(cycle=result.cycle, text=result.question))
            question = self.session.redactor.text(result.question)
            self.turns.append((Message("user", f"Request: {result.request}"), Message("assistant", question)))
        else:
            self.session.emit(ev.RetryStopped(
                cycle=result.cycle, stop_reason=result.stop_reason, attempts=len(result.attempts)
            ))
        self.session.append_conversation(
            "assistant",
            result.last.answer if result.attempts else "",
            cycle=result.cycle,
            valid=result.valid,
            stop_reason=result.stop_reason,
            oml=result.oml_text if result.valid else None,
        )
        self.last = result
        self.observer(CycleFinished(result))
        return result

    def _remember_turn(self, request: str, oml: str) -> None:
        """Keep an accepted turn for later calls (osiris.retry.history decides what is sent)."""
        self.current_oml = oml
        redacted = self.session.redactor.text(oml)
        self.turns.append((Message("user", f"Request: {request}"), Message("assistant", pipeline_message(redacted))))

    @property
    def history(self) -> list[Message]:
        """The earlier turns sent with each call: the last ones in full, older requests folded."""
        return history_messages(self.turns)

    def _take_user_text(self, text: str, *, kind: str) -> str:
        scrubbed = scrub_request(text, self.session.redactor)
        notice = scrubbed.notice()
        if notice:
            self.observer(RequestScrubbed(notice))
        self.session.emit(ev.UserMessage(kind=kind, text=scrubbed.text, scrubbed=scrubbed.original_changed))
        self.session.append_conversation("user", scrubbed.text, kind=kind)
        return scrubbed.text

    def _require_request(self) -> str:
        if self._request is None:
            raise RuntimeError("no request yet: call run() first")
        return self._request


def _sample_failures(attempts: Sequence[Attempt]) -> int:
    """How many attempts of the cycle failed on samples (each asks for one retry)."""
    return sum(1 for attempt in attempts if attempt.failed_on_samples)


def _is_question(attempt: Attempt) -> bool:
    """A prose answer (no pipeline, OML102) that asks the person something."""
    return attempt.report.error_codes == ["OML102"] and attempt.answer.rstrip().endswith("?")

"""Retry transient LLM service errors with exponential backoff and jitter (docs/generate.md).

This is the only retry layer for service errors (the SDK client has `max_retries=0`). A
`retry-after` from the service is honoured up to `RETRY_AFTER_CAP_S`; a longer wait fails at once
with the reason, rather than leaving the person staring at a frozen terminal.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from osiris.errors import LLMAuthError, LLMUnavailableError
from osiris.llm.errors import LLMServiceError

T = TypeVar("T")

RETRY_AFTER_CAP_S = 60.0

_FATAL_ADVICE = {
    "authentication": "the API key was rejected; set a valid one with ANTHROPIC_API_KEY "
    "or `osiris auth login` (for llm.provider openai: OPENAI_API_KEY or `osiris auth login --provider openai`; "
    "or use `--provider demo` to work offline)",
    "permission": "the API key lacks permission for this request or model; check the key's "
    "workspace and the model name (llm.model)",
    "not_found": "the LLM service does not know this model or endpoint; check llm.model and llm.base_url",
}


@dataclass(frozen=True)
class BackoffPolicy:
    """`retries` extra tries after the first; delays grow from `base_s`, at most `max_delay_s`."""

    retries: int = 3
    base_s: float = 0.5
    max_delay_s: float = 30.0
    retry_after_cap_s: float = RETRY_AFTER_CAP_S

    def delay(self, retry_number: int, error: LLMServiceError, rng: random.Random) -> float:
        """Seconds to wait before retry `retry_number` (1-based)."""
        if error.retry_after is not None:
            return error.retry_after
        ceiling = min(self.max_delay_s, self.base_s * 2.0 ** (retry_number - 1))
        return ceiling * rng.uniform(0.5, 1.0)


ErrorListener = Callable[[LLMServiceError, "float | None", int], None]


def call_with_backoff(
    call: Callable[[], T],
    policy: BackoffPolicy,
    on_error: ErrorListener | None = None,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> T:
    """Run `call`; retry transient `LLMServiceError`s; raise LLMAuthError (fatal) or
    LLMUnavailableError (still failing after `policy.retries`, or asked to wait too long).

    `on_error(error, delay_s, retry_number)` hears every error; `delay_s` is None when no retry follows.
    """
    rng = rng or random.Random()
    retry_number = 0
    while True:
        try:
            return call()
        except LLMServiceError as error:
            if not error.retryable:
                _notify(on_error, error, None, retry_number)
                raise fatal_error(error) from None
            if retry_number >= policy.retries:
                _notify(on_error, error, None, retry_number)
                tries = retry_number + 1
                raise LLMUnavailableError(
                    f"the LLM service is unavailable after {tries} tr{'y' if tries == 1 else 'ies'} "
                    f"(llm.api_retries = {policy.retries}); last error: {error}"
                ) from None
            retry_number += 1
            delay = policy.delay(retry_number, error, rng)
            if delay > policy.retry_after_cap_s:
                _notify(on_error, error, None, retry_number - 1)
                raise LLMUnavailableError(
                    f"the LLM service asked to wait {delay:.0f} s before retrying, longer than "
                    f"the {policy.retry_after_cap_s:.0f} s Osiris waits; last error: {error}"
                ) from None
            _notify(on_error, error, delay, retry_number)
            sleep(delay)


def fatal_error(error: LLMServiceError) -> LLMAuthError:
    """A one-line explanation of a fatal service error (exit code 3)."""
    advice = _FATAL_ADVICE.get(error.kind, "the LLM service rejected the request")
    return LLMAuthError(f"{advice} ({error})")


def _notify(listener: ErrorListener | None, error: LLMServiceError, delay: float | None, n: int) -> None:
    if listener is not None:
        listener(error, delay, n)

"""The backoff policy on its own: growth, jitter, the retry-after cap, fatal errors."""

from __future__ import annotations

import random

import pytest

from osiris.errors import LLMAuthError, LLMUnavailableError
from osiris.llm.errors import retry_after
from osiris.llm.backoff import BackoffPolicy, call_with_backoff
from osiris.llm.errors import LLMServiceError


def failing(*errors):
    queue = list(errors)
    calls = []

    def call():
        calls.append(1)
        if queue:
            raise queue.pop(0)
        return "ok"

    return call, calls


def test_delays_grow_exponentially_with_jitter_and_a_ceiling():
    policy = BackoffPolicy(retries=10, base_s=0.5, max_delay_s=4)
    rng = random.Random(1)
    error = LLMServiceError("server", "boom", True, 500)
    delays = [policy.delay(n, error, rng) for n in range(1, 8)]
    for n, delay in enumerate(delays, start=1):
        ceiling = min(4, 0.5 * 2 ** (n - 1))
        assert ceiling / 2 <= delay <= ceiling


def test_retry_after_wins_over_the_computed_delay():
    error = LLMServiceError("rate_limit", "slow down", True, 429, retry_after=12)
    assert BackoffPolicy().delay(1, error, random.Random()) == 12


def test_transient_errors_are_retried_within_budget_and_each_is_heard():
    call, calls = failing(LLMServiceError("server", "a", True, 502), LLMServiceError("timeout", "b", True))
    heard, slept = [], []

    def listener(e, d, n):
        heard.append((e.kind, n))

    assert call_with_backoff(call, BackoffPolicy(retries=2), listener, slept.append) == "ok"
    assert len(calls) == 3 and heard == [("server", 1), ("timeout", 2)] and len(slept) == 2


def test_budget_exhausted_is_service_unavailable():
    call, calls = failing(*[LLMServiceError("overloaded", "busy", True, 529)] * 5)
    with pytest.raises(LLMUnavailableError, match="after 2 tries"):
        call_with_backoff(call, BackoffPolicy(retries=1), sleep=lambda s: None)
    assert len(calls) == 2


def test_fatal_error_is_not_retried():
    call, calls = failing(LLMServiceError("permission", "no", False, 403))
    with pytest.raises(LLMAuthError, match="lacks permission"):
        call_with_backoff(call, BackoffPolicy(retries=3), sleep=lambda s: None)
    assert len(calls) == 1


@pytest.mark.parametrize(
    "headers, expected",
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}, None),
        ({}, None),
    ],
)
def test_retry_after_header_parsing(headers, expected):
    assert retry_after(headers) == expected

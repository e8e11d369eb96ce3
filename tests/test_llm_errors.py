"""LLM service errors through the real SDK: one retry layer (ours), exact request counts."""

from __future__ import annotations

import socket

import pytest

from osiris.errors import LLMAuthError, LLMUnavailableError
from osiris.retry.progress import ApiErrorRetrying
from tests.conftest import write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply, Status, StreamError

REQUEST = "copy the customers CSV to a new CSV"


def settings(project, base_url, **llm):
    write_settings(project, {"llm": {"base_url": base_url, "timeout_seconds": 5, **llm}})


def test_429_with_retry_after_waits_that_long_then_succeeds(project, fake_api):
    fake_api.add(Status(429, retry_after="7"), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(fake_api.requests) == 2
    assert h.sleeps == [7.0]
    [event] = h.events("api_error")
    assert event["status"] == 429 and event["retryable"] is True and event["delay_s"] == 7.0
    shown = [e for e in h.progress if isinstance(e, ApiErrorRetrying)]
    assert shown[0].delay_s == 7.0 and shown[0].retry_number == 1


def test_retry_after_beyond_the_cap_fails_at_once_with_the_reason(project, fake_api):
    fake_api.add(Status(429, retry_after="300"), Reply(fenced(VALID)))
    h = make_engine(project)

    with pytest.raises(LLMUnavailableError, match="asked to wait 300 s"):
        h.engine.run(REQUEST)

    assert len(fake_api.requests) == 1 and h.sleeps == []


def test_529_overloaded_is_retried_with_growing_backoff(project, fake_api):
    fake_api.add(Status(529), Status(529), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(fake_api.requests) == 3
    assert len(h.sleeps) == 2 and 0.25 <= h.sleeps[0] <= 0.5 and 0.5 <= h.sleeps[1] <= 1.0
    assert [e["class"] for e in h.events("api_error")] == ["overloaded", "overloaded"]
    assert len(result.attempts) == 1  # service errors are not validation attempts


@pytest.mark.parametrize("api_retries", [0, 2])
def test_500_exhausts_llm_api_retries_exactly(project, fake_api, api_retries):
    settings(project, fake_api.url, api_retries=api_retries)
    fake_api.add(Status(500))
    h = make_engine(project)

    with pytest.raises(LLMUnavailableError, match=f"llm.api_retries = {api_retries}"):
        h.engine.run(REQUEST)

    # the SDK would add 2 retries of its own per call: we see exactly ours
    assert len(fake_api.requests) == api_retries + 1
    assert len(h.events("api_error")) == api_retries + 1
    trail = h.session_path / "artifacts" / "cycle-1" / "retry_trail.json"
    assert '"status": "llm_error"' in trail.read_text()


def test_401_stops_at_once(project, fake_api):
    fake_api.add(Status(401, message="invalid x-api-key"), Reply(fenced(VALID)))
    h = make_engine(project)

    with pytest.raises(LLMAuthError, match="API key was rejected.*ANTHROPIC_API_KEY.*osiris auth login"):
        h.engine.run(REQUEST)

    assert len(fake_api.requests) == 1 and h.sleeps == []
    assert h.events("api_error")[0]["retryable"] is False


@pytest.mark.parametrize("status", [400, 403])
def test_other_fatal_errors_stop_at_once(project, fake_api, status):
    fake_api.add(Status(status), Reply(fenced(VALID)))
    h = make_engine(project)

    with pytest.raises(LLMAuthError):
        h.engine.run(REQUEST)

    assert len(fake_api.requests) == 1


def test_error_event_inside_the_stream_is_retried(project, fake_api):
    fake_api.add(StreamError("overloaded_error"), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(fake_api.requests) == 2
    [event] = h.events("api_error")
    assert event["class"] == "overloaded" and event["status"] is None and event["retryable"] is True


def test_connection_refused_is_retried_then_reported(project):
    with socket.socket() as probe:  # a port with nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings(project, f"http://127.0.0.1:{port}", api_retries=1)
    h = make_engine(project)

    with pytest.raises(LLMUnavailableError, match="connect"):
        h.engine.run(REQUEST)

    assert [e["class"] for e in h.events("api_error")] == ["connection", "connection"]
    assert len(h.sleeps) == 1


def test_timeout_is_retried_with_exact_request_count(project, fake_api):
    settings(project, fake_api.url, timeout_seconds=0.3, api_retries=1)
    fake_api.add(Reply(fenced(VALID), delay=1.0), Reply(fenced(VALID), delay=1.0))
    h = make_engine(project)

    with pytest.raises(LLMUnavailableError, match="timed out"):
        h.engine.run(REQUEST)

    assert len(fake_api.requests) == 2
    assert [e["class"] for e in h.events("api_error")] == ["timeout", "timeout"]


def test_the_sdk_gets_the_key_and_no_retry_count_of_its_own(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    h = make_engine(project)
    h.engine.run(REQUEST)

    headers = fake_api.requests[0].headers
    assert headers["authorization"].endswith("test-key-4f1c9a7e2b5d8c3a")
    assert headers.get("x-stainless-retry-count", "0") == "0"
    assert fake_api.requests[0].path == "/v1/messages"

"""`llm_response.duration_ms` runs from the `llm_request` event to the end of the answer (issue 41):
a first try the server answered slowly with an overload, and a slow answer, both count, as they do
between the two events. Through the real SDK against a fake Messages API that delays its responses
(the engine's backoff sleep is the harness's, so the wall time is the server's delays)."""

from __future__ import annotations

from datetime import datetime

from tests.conftest import write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply, Status


def _seconds(event: dict) -> float:
    return datetime.fromisoformat(event["ts"].replace("Z", "+00:00")).timestamp()


def test_duration_runs_from_the_request_event_to_the_answer_through_a_slow_failed_try(project, fake_api):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5}})
    fake_api.add(Status(529, "overloaded_error", retry_after="0", delay=0.6), Reply(fenced(VALID), delay=0.4))
    h = make_engine(project)

    assert h.engine.run("copy data/customers.csv to output/active_customers.csv").valid

    [sent] = h.events("llm_request")
    [answered] = h.events("llm_response")
    between_ms = (_seconds(answered) - _seconds(sent)) * 1000
    assert answered["duration_ms"] >= 1000  # 0.6 s for the overload, 0.4 s for the answer
    assert abs(answered["duration_ms"] - between_ms) < 150, (answered["duration_ms"], between_ms)


def test_one_slow_answer_is_timed_from_its_request(project, fake_api):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5}})
    fake_api.add(Reply(fenced(VALID), delay=0.5))
    h = make_engine(project)

    assert h.engine.run("copy data/customers.csv to output/active_customers.csv").valid

    [answered] = h.events("llm_response")
    assert 500 <= answered["duration_ms"] < 5000

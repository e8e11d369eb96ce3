"""Whole artifacts compared with files under tests/snapshots/ (in the manner of pydantic-ai's
message-history snapshots): the retry request the LLM gets, and the events of a scripted cycle.
A substring check passes when a line moves or a field disappears; these do not."""

from __future__ import annotations

from tests.engine_harness import make_engine
from tests.engine_samples import BAD_MODE, VALID, fenced
from tests.fake_anthropic import Reply
from tests.snapshots import assert_snapshot, events_text, request_text

REQUEST = "copy the customers CSV to output/active_customers.csv"


def test_the_retry_request_sent_to_the_llm(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project)

    assert h.engine.run(REQUEST).valid

    assert_snapshot("retry_request.txt", request_text(fake_api.requests[1].body))


def test_the_events_of_a_cycle_that_escalates_and_is_fixed_by_a_hint(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project, cli={"validation": {"retry": {"max_attempts": 1}}})

    stuck = h.engine.run(REQUEST)
    h.engine.escalate(stuck)
    h.engine.record_choice("hint")
    fixed = h.engine.retry_with_hint("the extractor reads: use mode read")
    h.engine.accept(fixed, saved_to="pipelines/active-customers.yaml")

    assert (stuck.stop_reason, fixed.stop_reason) == ("no_progress", "valid")
    assert_snapshot("escalation_events.jsonl", events_text(h.events()))

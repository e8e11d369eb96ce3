"""The generation engine's rules that a mutation test showed unpinned (issue 15): the events of each
attempt, what counts as a question, the retry budget's bounds, how much history is sent."""

from __future__ import annotations

import json

import pytest

from osiris.errors import UsageError
from osiris.retry.history import EARLIER_HEAD
from tests.engine_harness import make_engine
from tests.engine_samples import BAD_COMPONENT, BAD_MODE, BAD_NEEDS, VALID, fenced
from tests.fake_anthropic import Reply

REQUEST = "copy the customers CSV to output/active_customers.csv"


def without_timing(event: dict) -> dict:
    return {k: v for k, v in event.items() if k not in ("ts", "seq", "session_id", "duration_ms")}


def test_each_attempt_is_framed_by_start_and_complete_events(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project)

    h.engine.run(REQUEST)

    assert [without_timing(e) for e in h.events("validation_attempt_start")] == [
        {"event_type": "validation_attempt_start", "cycle": 1, "attempt_index": 1, "kind": "generate"},
        {"event_type": "validation_attempt_start", "cycle": 1, "attempt_index": 2, "kind": "fix_errors"},
    ]
    assert [without_timing(e) for e in h.events("validation_attempt_complete")] == [
        {"event_type": "validation_attempt_complete", "cycle": 1, "attempt_index": 1, "valid": False,
         "error_count": 1, "warning_count": 0, "error_codes": ["OML212"]},
        {"event_type": "validation_attempt_complete", "cycle": 1, "attempt_index": 2, "valid": True,
         "error_count": 0, "warning_count": 0, "error_codes": []},
    ]


def test_the_user_message_event_holds_the_scrubbed_request(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    h = make_engine(project)

    h.engine.run("copy mysql://app:Sup3rPass@db/shop customers to csv")

    assert [without_timing(e) for e in h.events("user_message")] == [
        {"event_type": "user_message", "kind": "request",
         "text": "copy mysql://app:***@db/shop customers to csv", "scrubbed": True},
    ]
    assert "Sup3rPass" not in (h.session_path / "events.jsonl").read_text()


def test_an_invalid_pipeline_that_ends_with_a_question_is_retried_not_asked(project, fake_api):
    # Only a prose answer (OML102) that asks is a question; a broken pipeline ending in "?" is fixed.
    fake_api.add(Reply(fenced(BAD_MODE) + "\nDoes this look right?"), Reply(fenced(VALID)))
    h = make_engine(project, may_ask=True)

    result = h.engine.run(REQUEST)

    assert (result.stop_reason, len(fake_api.requests)) == ("valid", 2)
    assert h.events("assistant_question") == []


def test_prose_that_does_not_ask_is_retried_even_by_an_interactive_engine(project, fake_api):
    fake_api.add(Reply("I would read the customers file and write the active ones."), Reply(fenced(VALID)))
    h = make_engine(project, may_ask=True)

    assert h.engine.run(REQUEST).stop_reason == "valid"
    assert len(fake_api.requests) == 2


@pytest.mark.parametrize("budget", [0, 5])
def test_the_retry_budget_takes_both_bounds(project, fake_api, budget):
    h = make_engine(project)
    h.engine.set_max_attempts(budget)
    assert h.engine.config.max_attempts == budget
    assert [without_timing(e) for e in h.events("settings_changed")] == [
        {"event_type": "settings_changed", "setting": "validation.retry.max_attempts", "value": budget}]


@pytest.mark.parametrize("budget", [-1, 6])
def test_the_retry_budget_refuses_values_outside_0_to_5(project, fake_api, budget):
    h = make_engine(project)
    with pytest.raises(UsageError) as raised:
        h.engine.set_max_attempts(budget)
    assert str(raised.value) == f"retry attempts must be a whole number from 0 to 5, not {budget}"
    assert h.engine.config.max_attempts == 2


def test_the_last_attempt_of_a_full_budget_stops_as_exhausted(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(BAD_MODE)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert (result.stop_reason, len(result.attempts)) == ("exhausted", 3)
    assert [e["stop_reason"] for e in h.events("retry_stopped")] == ["exhausted"]


def test_escalation_shows_the_last_history_limit_attempts(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(BAD_MODE)))
    h = make_engine(project, cli={"validation": {"retry": {"history_limit": 2}}})

    shown = h.engine.escalate(h.engine.run(REQUEST))

    assert [a["attempt_index"] for a in shown] == [2, 3]
    assert [a["attempt_index"] for a in h.events("hitl_escalation")[0]["attempts"]] == [2, 3]


def text_of(message: dict) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


def test_ten_turns_go_in_full_then_the_oldest_fold_five_at_a_time(project, fake_api):
    """ADR 0120: up to ten earlier turns are sent whole; beyond that the oldest five are folded
    into a list of their requests, so the prefix before the cache breakpoint stays the same for
    five turns in a row instead of shifting on every turn."""
    fake_api.add(Reply(fenced(VALID)))  # the last scripted reply answers every request
    h = make_engine(project)
    for turn in range(17):
        assert h.engine.run(f"{REQUEST}, take {turn}").valid
    sent = [[text_of(m) for m in request.body["messages"]] for request in fake_api.requests]

    assert [len(messages) for messages in sent] == [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                                    13, 15, 17, 19, 21, 13]
    folded = sent[11][0]
    assert folded == (EARLIER_HEAD + "\n" + "".join(f"- {REQUEST}, take {n}\n" for n in range(5))
                      + f"\nRequest: {REQUEST}, take 5")
    for turn in range(11, 15):  # each call's history is the start of the next one's: the cache hits
        assert sent[turn + 1][: len(sent[turn]) - 1] == sent[turn][:-1]
    assert sent[16][0].startswith(EARLIER_HEAD + "\n" + f"- {REQUEST}, take 0\n")
    assert sent[16][0].endswith(f"- {REQUEST}, take 9\n\nRequest: {REQUEST}, take 10")


def test_an_edit_that_is_still_invalid_stops_as_edited_invalid(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))
    h = make_engine(project, cli={"validation": {"retry": {"max_attempts": 0}}})
    first = h.engine.run(REQUEST)

    edited = h.engine.revalidate(first.oml_text.replace("filesystem.csv_writer", "filesystem.csv_writter"))

    assert (edited.stop_reason, edited.cycle, len(fake_api.requests)) == ("edited_invalid", 2, 1)
    assert [without_timing(e) for e in h.events("validation_attempt_start")][-1] == {
        "event_type": "validation_attempt_start", "cycle": 2, "attempt_index": 1, "kind": "edit"}
    assert [e["attempt_index"] for e in h.events("validation_attempt_complete")] == [1, 1]
    trail = json.loads((h.session_path / "artifacts" / "cycle-2" / "retry_trail.json").read_text())
    assert trail["max_attempts"] == 0


def test_retry_with_hint_before_any_request_is_a_programming_error(project, fake_api):
    h = make_engine(project)
    with pytest.raises(RuntimeError, match="no request yet"):
        h.engine.retry_with_hint("anything")


def test_restore_keeps_only_valid_answers_that_follow_a_request(project, fake_api):
    h = make_engine(project)
    h.engine.restore([
        {"role": "assistant", "valid": True, "oml": "name: before-any-request\n"},
        {"role": "user", "kind": "request", "content": "first"},
        {"role": "assistant", "valid": False, "oml": "name: invalid\n"},
        {"role": "user", "kind": "hint", "content": "a hint is not a request"},
        {"role": "assistant", "valid": True, "oml": "name: kept\n"},
    ])
    assert (h.engine.current_oml, len(h.engine.history)) == ("name: kept\n", 2)
    assert h.engine.history[0].content == "Request: first"


def test_a_password_typed_in_a_request_stays_out_of_the_folded_list(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    h = make_engine(project)
    secret = "Fold-Pw-7731-zq"
    assert h.engine.run(f"{REQUEST} from postgresql://app:{secret}@db.internal/shop").valid
    for turn in range(11):
        assert h.engine.run(f"{REQUEST}, take {turn}").valid
    folded = text_of(fake_api.requests[-1].body["messages"][0])
    assert folded.startswith(EARLIER_HEAD) and "postgresql://app:" in folded
    assert all(secret not in json.dumps(request.body) for request in fake_api.requests)


def test_one_retry_that_runs_out_is_exhausted_not_strict_and_no_retry_is_announced_last(project, fake_api):
    """max_attempts 1: two attempts, both invalid (different errors): 'exhausted'; the last progress
    event says that no retry follows."""
    from osiris.retry.progress import AttemptFailed

    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)))
    h = make_engine(project, cli={"validation": {"retry": {"max_attempts": 1}}})
    result = h.engine.run(REQUEST)
    assert (result.stop_reason, len(result.attempts), len(fake_api.requests)) == ("exhausted", 2, 2)
    failed = [p for p in h.progress if isinstance(p, AttemptFailed)]
    assert [(p.attempt, p.will_retry) for p in failed] == [(1, True), (2, False)]
    assert [e["attempt_index"] for e in h.events("validation_attempt_start")] == [1, 2]


def test_accept_returns_the_sha256_it_records(project, fake_api):
    import hashlib

    fake_api.add(Reply(fenced(VALID)))
    h = make_engine(project)
    result = h.engine.run(REQUEST)
    digest = h.engine.accept(result, saved_to="pipelines/p.yaml")
    assert digest == hashlib.sha256((result.oml_text or "").encode()).hexdigest()
    assert h.events("pipeline_accepted")[-1]["sha256"] == digest


def test_engine_settings_do_not_ask_unless_told(project):
    import dataclasses

    from osiris.retry.engine_config import EngineConfig
    from osiris.settings import load_settings

    config = EngineConfig.from_settings(load_settings(cwd=project, env={}).settings)
    assert config.may_ask is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.max_attempts = 4  # type: ignore[misc]


def test_an_edit_is_validated_once_without_the_llm_even_before_any_request(project, fake_api):
    from osiris.retry.progress import Validating

    h = make_engine(project)
    result = h.engine.revalidate(VALID)  # no request yet: nothing earlier to compare with
    assert (result.stop_reason, result.request, len(fake_api.requests)) == ("valid", "", 0)
    assert [(p.attempt, p.total) for p in h.progress if isinstance(p, Validating)] == [(1, 1)]


def test_an_edit_after_a_request_keeps_the_request(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(BAD_NEEDS)))
    h = make_engine(project)
    h.engine.run(REQUEST)
    assert h.engine.revalidate(VALID).request == REQUEST

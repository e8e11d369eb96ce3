"""The retry loop end to end: real SDK -> fake Messages API over HTTP -> real validator."""

from __future__ import annotations

import json

import pytest

from osiris.retry.progress import AttemptFailed, Generating, PipelineValid
from tests.conftest import write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import (
    BAD_COMPONENT,
    BAD_MODE,
    BAD_NEEDS,
    CUT_OFF,
    PROSE_ONLY,
    VALID,
    fenced,
)
from tests.fake_anthropic import Reply

REQUEST = "copy the customers CSV to output/active_customers.csv"


def test_valid_on_the_first_try(project, fake_api):
    fake_api.add(Reply(fenced(VALID), input_tokens=900, output_tokens=120, cache_write=700))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and result.stop_reason == "valid"
    assert len(fake_api.requests) == 1
    assert result.oml_text.strip() == VALID.strip()
    attempt_dir = h.session_path / "artifacts" / "cycle-1" / "attempt-1"
    assert (attempt_dir / "pipeline.yaml").read_text().strip() == VALID.strip()
    assert json.loads((attempt_dir / "errors.json").read_text())["valid"] is True
    assert [type(e) for e in h.progress if isinstance(e, (Generating, PipelineValid))] == [Generating, PipelineValid]


def test_fixed_on_retry_1_returns_the_fixed_pipeline(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(result.attempts) == 2 and len(fake_api.requests) == 2
    assert result.oml_text.strip() == VALID.strip()  # the fixed one, not the first
    retry = fake_api.requests[1].body["messages"][-1]["content"]
    assert "OML212" in retry and "/steps/0/mode" in retry
    # Issue 8 changed the wording: fix what is listed and anything else against the rules.
    assert ("Fix these errors and anything else that breaks the OML rules. Keep the valid content "
            "(queries, tables, paths, names) unchanged.") in retry
    assert "<previous_pipeline>" in retry and "mode: extract" in retry  # the previous OML, as data
    assert (h.session_path / "artifacts/cycle-1/attempt-2/diff.patch").read_text().count("-    mode: extract") == 1
    failed = [e for e in h.progress if isinstance(e, AttemptFailed)]
    assert [(e.attempt, e.will_retry) for e in failed] == [(1, True)]


def test_fixed_on_retry_2_summarises_earlier_attempts(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(fake_api.requests) == 3
    third = fake_api.requests[2].body["messages"][-1]["content"]
    assert "OML301" in third and "Earlier attempts" in third and "attempt 1: " in third and "OML212" in third
    assert "mode: extract" not in third  # only the latest pipeline is resent
    retries = h.events("validation_retry")
    assert [e["attempt_index"] for e in retries] == [1, 2]
    assert retries[0]["validation_errors"][0]["code"] == "OML212"


def test_never_fixed_stops_after_max_attempts_plus_one(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(BAD_NEEDS)), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert not result.valid and result.stop_reason == "exhausted"
    assert len(fake_api.requests) == 3
    assert h.events("retry_stopped")[0]["stop_reason"] == "exhausted"


def test_strict_mode_makes_one_request(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project, cli={"validation": {"retry": {"max_attempts": 0}}})

    result = h.engine.run(REQUEST)

    assert not result.valid and len(fake_api.requests) == 1 and result.max_attempts == 0


@pytest.mark.parametrize(
    "yaml_value, env_value, cli_value, expected_requests",
    [(4, "3", 1, 2), (4, "3", None, 4), (4, None, None, 5), (None, None, None, 3)],
    ids=["cli-wins", "env-wins", "yaml-wins", "default"],
)
def test_max_attempts_precedence(project, fake_api, yaml_value, env_value, cli_value, expected_requests):
    fake_api.add(*[Reply(fenced(BAD_MODE if i % 2 == 0 else BAD_COMPONENT)) for i in range(8)])
    settings = {"llm": {"base_url": fake_api.url, "timeout_seconds": 5}}
    if yaml_value is not None:
        settings["validation"] = {"retry": {"max_attempts": yaml_value}}
    write_settings(project, settings)
    env = {"OSIRIS_VALIDATE_RETRY_ATTEMPTS": env_value} if env_value else {}
    cli = {"validation": {"retry": {"max_attempts": cli_value}}} if cli_value is not None else None
    h = make_engine(project, cli=cli, env=env)

    result = h.engine.run(REQUEST)

    assert not result.valid and len(fake_api.requests) == expected_requests


def test_no_progress_stops_early(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.stop_reason == "no_progress" and len(fake_api.requests) == 2
    assert h.events("retry_stopped")[0]["stop_reason"] == "no_progress"


def test_prose_only_answer_gets_a_pipeline_only_retry(project, fake_api):
    fake_api.add(Reply(PROSE_ONLY), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and result.attempts[0].report.error_codes == ["OML102"]
    retry = fake_api.requests[1].body["messages"][-1]["content"]
    assert "contained no OML pipeline" in retry and "Answer with the pipeline only" in retry
    assert result.attempts[1].kind == "no_pipeline"


def test_cut_off_answer_gets_a_shorter_complete_retry(project, fake_api):
    fake_api.add(Reply(CUT_OFF, stop_reason="max_tokens"), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and "OML106" in result.attempts[0].report.error_codes
    retry = fake_api.requests[1].body["messages"][-1]["content"]
    assert "cut off at the output token limit" in retry and "shorter" in retry
    assert result.attempts[1].kind == "cut_off"


def test_system_prompt_comes_from_the_registry_and_is_cached(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    h = make_engine(project)
    h.engine.run(REQUEST)

    body = fake_api.requests[0].body
    stable = body["system"][0]
    assert stable["cache_control"] == {"type": "ephemeral"}
    for name in h.engine.validator.registry.components:
        assert f"- {name} [" in stable["text"]
    assert "cache_control" not in body["system"][1]  # the per-project part stays outside the cache
    assert body["model"] == "claude-sonnet-5-5" and body["max_tokens"] == 4096


def test_tokens_are_booked_once_on_the_attempt_that_spent_them(project, fake_api):
    fake_api.add(
        Reply(fenced(BAD_MODE), input_tokens=1000, output_tokens=200, cache_write=800, delay=0.05),
        Reply(fenced(VALID), input_tokens=300, output_tokens=180, cache_read=800, delay=0.05),
    )
    h = make_engine(project)
    h.engine.run(REQUEST)
    h.engine.session.finish("valid")

    trail = json.loads((h.session_path / "artifacts/cycle-1/retry_trail.json").read_text())
    assert [a["token_usage"] for a in trail["attempts"]] == [
        {"input": 1000, "output": 200, "cache_write": 800, "cache_read": 0},
        {"input": 300, "output": 180, "cache_write": 0, "cache_read": 800},
    ]
    assert trail["totals"]["token_usage"] == {"input": 1300, "output": 380, "cache_write": 800, "cache_read": 800}
    # Durations, without comparing two clocks: each is recorded as a number, and an LLM call lasts at
    # least the fake server's delay (50 ms a reply), however loaded the machine is.
    for timed in (*trail["attempts"], trail["totals"]):
        assert isinstance(timed["validation_ms"], float) and timed["validation_ms"] >= 0
        assert isinstance(timed["llm_ms"], float)
    assert [a["llm_ms"] >= 50 for a in trail["attempts"]] == [True, True]
    assert trail["totals"]["llm_ms"] >= 100
    session = json.loads((h.session_path / "session.json").read_text())
    assert session["totals"]["tokens"] == trail["totals"]["token_usage"]
    assert session["totals"]["attempts"] == 2


def test_hint_after_escalation_resets_the_counter(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project, cli={"validation": {"retry": {"max_attempts": 0}}})
    first = h.engine.run(REQUEST)
    h.engine.escalate(first)
    h.engine.record_choice("hint")

    second = h.engine.retry_with_hint("mode must be read for the extractor")

    assert second.valid and second.cycle == 2
    prompt = fake_api.requests[1].body["messages"][-1]["content"]
    assert "Guidance from the person: mode must be read" in prompt and "mode: extract" in prompt
    kinds = [e["event_type"] for e in h.events()]
    assert kinds.index("hitl_escalation") < kinds.index("hitl_response") < kinds.index("retry_counter_reset")


def test_edit_revalidates_without_the_llm(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))
    h = make_engine(project, cli={"validation": {"retry": {"max_attempts": 0}}})
    first = h.engine.run(REQUEST)

    edited = h.engine.revalidate(first.oml_text.replace("mode: extract", "mode: read"))

    assert edited.valid and edited.attempts[0].kind == "edit"
    assert len(fake_api.requests) == 1


def test_fresh_generates_the_same_request_again(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project, cli={"validation": {"retry": {"max_attempts": 0}}})
    h.engine.run(REQUEST)

    again = h.engine.fresh()

    assert again.valid and len(fake_api.requests) == 2
    assert "mode: extract" not in fake_api.requests[1].body["messages"][-1]["content"]
    assert h.events("retry_counter_reset")[0]["reason"] == "fresh"


def test_a_follow_up_sends_the_accepted_pipeline_along(project, fake_api):
    fake_api.add(Reply(fenced(VALID)), Reply(fenced(VALID.replace("output/active", "output/all"))))
    h = make_engine(project)
    h.engine.run(REQUEST)

    h.engine.run("write all customers instead")

    messages = fake_api.requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    # Issue 14: the history's last message carries the cache breakpoint, so its content is a block list.
    assert "output/active_customers.csv" in messages[1]["content"][0]["text"]


def test_restore_rebuilds_the_turns_of_a_saved_conversation(project, fake_api):
    from osiris.session.reader import find_session, read_conversation

    fake_api.add(Reply(fenced(VALID)), Reply(fenced(VALID)))
    first = make_engine(project)
    first.engine.run(REQUEST)
    first.engine.session.finish("valid")
    saved = read_conversation(find_session(first.session_path.parent, first.engine.session.id))

    resumed = make_engine(project)
    resumed.engine.restore(saved)
    resumed.engine.run("now only the first 10 rows")

    messages = fake_api.requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert REQUEST in messages[0]["content"] and "output/active_customers.csv" in messages[1]["content"][0]["text"]
    assert resumed.engine.current_oml.strip() == VALID.strip()


def test_ctrl_c_during_a_call_keeps_the_record_and_the_session_usable(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    h = make_engine(project)
    real_complete = h.engine.provider.complete
    calls = []

    def interrupted_once(request):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real_complete(request)

    h.engine.provider.complete = interrupted_once
    with pytest.raises(KeyboardInterrupt):
        h.engine.run(REQUEST)
    assert h.events("retry_stopped")[0]["stop_reason"] == "interrupted"

    assert h.engine.run(REQUEST).valid  # the same session goes on
    assert h.engine.last.cycle == 2


QUESTION = "Which connection holds the customers table: @mysql.default or @postgres.default?"


def test_an_interactive_engine_lets_the_llm_ask_instead_of_guessing(project, fake_api):
    fake_api.add(Reply(QUESTION), Reply(fenced(VALID)))
    h = make_engine(project, may_ask=True)

    asked = h.engine.run(REQUEST)

    assert asked.stop_reason == "question" and asked.question == QUESTION
    assert len(fake_api.requests) == 1
    # after the cache breakpoint (issue 14)
    assert "answer with one short question instead" in fake_api.requests[0].body["system"][1]["text"]
    assert h.events("assistant_question")[0]["text"] == QUESTION

    answered = h.engine.run("the MySQL one")

    assert answered.valid
    messages = fake_api.requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [{"type": "text", "text": QUESTION, "cache_control": {"type": "ephemeral"}}]


def test_a_non_interactive_engine_never_asks_and_retries_prose(project, fake_api):
    fake_api.add(Reply(QUESTION), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(fake_api.requests) == 2
    assert "make the most\nreasonable choice" in fake_api.requests[0].body["system"][1]["text"]  # after the cache breakpoint (issue 14)


def test_retry_budget_can_change_between_cycles_within_bounds(project, fake_api):
    from osiris.errors import UsageError

    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(BAD_COMPONENT)), Reply(fenced(VALID)))
    h = make_engine(project)
    h.engine.set_max_attempts(0)
    assert not h.engine.run(REQUEST).valid and len(fake_api.requests) == 1
    with pytest.raises(UsageError, match="from 0 to 5"):
        h.engine.set_max_attempts(6)


def test_save_failed_oml_false_keeps_errors_but_not_the_failed_pipeline(project, fake_api):
    write_settings(project, {"llm": {"base_url": fake_api.url}, "sessions": {"save_failed_oml": False}})
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    h = make_engine(project)

    h.engine.run(REQUEST)

    failed = h.session_path / "artifacts/cycle-1/attempt-1"
    assert sorted(p.name for p in failed.iterdir()) == ["errors.json", "prompt.txt"]
    valid = h.session_path / "artifacts/cycle-1/attempt-2"
    assert (valid / "pipeline.yaml").is_file() and not (valid / "diff.patch").exists()  # no failed OML in a diff
    assert "mode: extract" not in (valid / "prompt.txt").read_text()  # nor in the retry prompt kept
    assert "mode: extract" in fake_api.requests[1].body["messages"][-1]["content"]  # though it was sent


def test_resume_continues_the_same_session_directory(project, fake_api):
    from osiris.retry import open_engine
    from osiris.settings import load_settings
    from tests.conftest import TEST_API_KEY

    fake_api.add(Reply(fenced(VALID)), Reply(fenced(VALID.replace("output/active", "output/all"))))
    first = make_engine(project)
    first.engine.run(REQUEST)
    first.engine.session.finish("valid")
    last_seq = first.events()[-1]["seq"]

    effective = load_settings(cwd=project, env={"ANTHROPIC_API_KEY": TEST_API_KEY})
    engine = open_engine(effective, command="chat", resume=first.engine.session.id[:15])
    result = engine.run("write all customers instead")
    engine.session.finish("valid")

    assert engine.session.path == first.session_path and result.cycle == 2
    assert (first.session_path / "artifacts/cycle-1/retry_trail.json").is_file()
    events = first.events()
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[last_seq]["event_type"] == "session_resumed"
    assert [m["role"] for m in fake_api.requests[1].body["messages"]] == ["user", "assistant", "user"]
    assert json.loads((first.session_path / "session.json").read_text())["totals"]["attempts"] == 2

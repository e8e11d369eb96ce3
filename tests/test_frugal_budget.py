"""Spending caps (issue 14): a call that would pass `llm.max_cycle_tokens` or `llm.max_session_tokens`
is not made; `generate` exits 1 and says so, the chat hands off or says why nothing was sent."""

from __future__ import annotations

import json
import re

from tests.conftest import session_dirs, write_settings
from tests.engine_samples import BAD_MODE, VALID, fenced
from tests.fake_anthropic import Reply
from tests.test_chat_pipe import REQUEST, chat
from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py


def _caps(project, fake_api, **caps: int) -> None:
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, **caps}})


def _events(project) -> list[dict]:
    [session] = session_dirs(project)
    return [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]


def test_generate_makes_no_call_that_would_pass_the_cycle_cap(project, fake_api):
    _caps(project, fake_api, max_cycle_tokens=1000)  # the system prompt alone is about 3,000 tokens
    fake_api.add(Reply(fenced(VALID)))

    done = run_osiris("generate", REQUEST, cwd=project)

    assert done.returncode == 1
    assert re.search(r"^osiris: error: spending cap reached: the next LLM call would take this cycle past "
                     r"llm\.max_cycle_tokens = 1,000 \(0 tokens spent, about [\d,]+ more to send\)$",
                     done.stderr, re.MULTILINE), done.stderr
    assert "Traceback" not in done.stderr
    assert fake_api.requests == []
    stopped = [e for e in _events(project) if e["event_type"] == "retry_stopped"]
    assert [e["stop_reason"] for e in stopped] == ["budget"]
    [session] = session_dirs(project)
    assert json.loads((session / "session.json").read_text())["status"] == "budget"


def test_generate_stops_before_a_retry_that_would_pass_the_cycle_cap(project, fake_api):
    _caps(project, fake_api, max_cycle_tokens=5000)
    fake_api.add(Reply(fenced(BAD_MODE), input_tokens=3000, output_tokens=100), Reply(fenced(VALID)))

    done = run_osiris("generate", REQUEST, cwd=project)

    assert done.returncode == 1
    assert re.search(r"^osiris: the pipeline is still invalid after 1 attempt \(spending cap reached: the next LLM "
                     r"call would take this cycle past llm\.max_cycle_tokens = 5,000 \(3,100 tokens spent, about "
                     r"[\d,]+ more to send\)\); see ", done.stderr, re.MULTILINE), done.stderr
    assert len(fake_api.requests) == 1
    events = _events(project)
    [reached] = [e for e in events if e["event_type"] == "spending_cap_reached"]
    assert reached["cycle_tokens"] == 3100 and reached["max_cycle_tokens"] == 5000
    assert [e["stop_reason"] for e in events if e["event_type"] == "retry_stopped"] == ["budget"]


def test_chat_hands_off_when_a_retry_would_pass_the_cycle_cap(project, fake_api):
    _caps(project, fake_api, max_cycle_tokens=5000)
    fake_api.add(Reply(fenced(BAD_MODE), input_tokens=3000, output_tokens=100), Reply(fenced(VALID)))

    done = chat(project, REQUEST, "cancel")

    assert done.returncode == 0, done.stderr
    assert ("The pipeline is still invalid after 1 attempt, and the next retry would pass a spending cap "
            "(llm.max_cycle_tokens or llm.max_session_tokens).") in done.stdout
    assert "What now?" in done.stdout
    assert len(fake_api.requests) == 1


def test_chat_sends_nothing_past_the_session_cap_and_goes_on(project, fake_api):
    _caps(project, fake_api, max_session_tokens=5000)
    fake_api.add(Reply(fenced(VALID), input_tokens=3000, output_tokens=100), Reply(fenced(VALID)))

    done = chat(project, REQUEST, "n", "now write it as parquet", "/show")

    assert done.returncode == 0, done.stderr
    assert re.search(r"Not sent: spending cap reached: the next LLM call would take this session past "
                     r"llm\.max_session_tokens = 5,000 \(3,100 tokens spent, about [\d,]+ more to send\)\.", done.stdout)
    assert len(fake_api.requests) == 1
    assert "active_customers.csv" in done.stdout.split("/show")[-1]  # the session went on

"""The chat loop in-process: the real engine (real SDK against the fake Messages API, real
validator, real session files), a scripted reader (plain lines from a StringIO) and the plain
display into a buffer. As fast as a unit test; the pexpect tests keep what only a terminal shows."""

from __future__ import annotations

import io
import json

from osiris.chat.app import start_chat
from osiris.settings import load_settings
from tests.conftest import TEST_API_KEY
from tests.engine_samples import BAD_MODE, VALID, fenced
from tests.fake_anthropic import Reply

REQUEST = "copy the customers CSV to output/active_customers.csv"


def chat(project, *lines: str) -> tuple[int, str]:
    effective = load_settings(cwd=project, env={"ANTHROPIC_API_KEY": TEST_API_KEY, "NO_COLOR": "1"})
    out = io.StringIO()
    code = start_chat(effective, stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    return code, out.getvalue()


def events(project, event_type: str) -> list[dict]:
    [session] = (project / ".osiris" / "sessions").iterdir()
    lines = (session / "events.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["event_type"] == event_type]


def test_a_request_fixed_on_retry_is_shown_saved_and_recorded(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))

    code, screen = chat(project, REQUEST, "", "/exit")

    assert code == 0
    lines = screen.splitlines()
    assert "✗ Attempt 1/3: 1 error — asking the LLM to fix them" in lines
    assert lines.index("✓ Valid pipeline after 2 attempts.") < lines.index("Saved pipelines/active-customers-to-csv.yaml")
    assert (project / "pipelines" / "active-customers-to-csv.yaml").read_text() == VALID
    saved = str(project / "pipelines" / "active-customers-to-csv.yaml")
    assert [e["path"] for e in events(project, "pipeline_accepted")] == [saved]
    assert len(fake_api.requests) == 2


def test_a_cancelled_hand_off_saves_nothing_and_the_chat_goes_on(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))

    code, screen = chat(project, "/retry-attempts 0", REQUEST, "c", "/exit")

    assert code == 0
    assert "hint / edit / fresh / cancel>" in screen
    assert [e["action"] for e in events(project, "hitl_response")] == ["cancel"]
    assert [e["value"] for e in events(project, "settings_changed")] == [0]
    assert not (project / "pipelines").exists()
    assert len(fake_api.requests) == 1


def test_a_retry_budget_out_of_bounds_is_one_line_and_changes_nothing(project, fake_api):
    code, screen = chat(project, "/retry-attempts 9", "/exit")

    assert code == 0
    assert screen.splitlines()[2:4] == ["osiris> /retry-attempts 9",
                                        "/retry-attempts takes a whole number from 0 to 5, not '9'."]
    assert events(project, "settings_changed") == []


def test_input_that_ends_at_the_hand_off_exits_1(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))

    code, _screen = chat(project, "/retry-attempts 0", REQUEST)

    assert code == 1
    assert [e["status"] for e in events(project, "session_end")] == ["invalid"]

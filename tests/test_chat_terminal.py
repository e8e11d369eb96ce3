"""`osiris chat` in a pseudo-terminal, against the fake Messages API over real HTTP with the real
anthropic SDK and the real validator. Each test reads the screen and the session directory."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from tests.chat_harness import Chat, editor_command, editor_script, events, only_session
from tests.conftest import TEST_API_KEY, cli_env
from tests.engine_samples import BAD_MODE, VALID, fenced
from tests.fake_anthropic import Reply

pytest.importorskip("pexpect")

REQUEST = "copy data/customers.csv to output/active_customers.csv"
SAVED = "pipelines/active-customers-to-csv.yaml"


@pytest.fixture
def chats():
    """Every Chat started by a test is killed at the end, even when the test fails."""
    started: list[Chat] = []

    def start(*args, **kwargs) -> Chat:
        chat = Chat(*args, **kwargs)
        started.append(chat)
        return chat

    yield start
    for chat in started:
        chat.close()


def test_invalid_then_valid_shows_progress_errors_and_saves(project, fake_api, chats):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY)
    env.pop("NO_COLOR")  # the terminal display: spinner and colours
    chat = chats(project, env=env)
    chat.prompt()
    chat.say(REQUEST)
    chat.expect(r"Attempt 1/3: \d+ errors? — asking the LLM to fix them")  # issue 8: new retry wording
    chat.expect_exact("mode 'extract' is not read, write or transform")
    chat.expect_exact("Valid pipeline after 2 attempts.")
    chat.expect_exact(f"Save to {SAVED}?")
    chat.say("")
    chat.expect_exact(f"Saved {SAVED}")
    chat.prompt()
    assert chat.end() == 0

    assert "Generating" in chat.screen and "\x1b[" in chat.screen  # live status, colours
    assert yaml.safe_load((project / SAVED).read_text()) == yaml.safe_load(VALID)
    assert len(fake_api.requests) == 2
    assert "OML212" in fake_api.requests[1].raw  # the retry prompt carries the error

    session = only_session(project)
    kinds = [e["event_type"] for e in events(session)]
    assert kinds[0] == "session_start" and kinds[-1] == "session_end"
    assert [e["attempt_index"] for e in events(session, "validation_retry")] == [1]
    accepted = events(session, "pipeline_accepted")
    assert len(accepted) == 1 and accepted[0]["path"].endswith(SAVED)
    attempt_1 = session / "artifacts" / "cycle-1" / "attempt-1"
    assert "OML212" in json.loads((attempt_1 / "errors.json").read_text())["error_codes"]
    assert "mode: extract" in (attempt_1 / "pipeline.yaml").read_text()
    trail = json.loads((session / "artifacts" / "cycle-1" / "retry_trail.json").read_text())
    assert trail["status"] == "valid" and trail["totals"]["attempts"] == 2
    assert json.loads((session / "session.json").read_text())["status"] == "ended"


def test_strict_mode_hand_off_with_a_hint(project, fake_api, chats):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    chat = chats(project, "--retry-attempts", "0")
    chat.expect_exact("strict mode")
    chat.prompt()
    chat.say(REQUEST)
    chat.expect_exact("The pipeline is invalid, and strict mode allows no retries (/retry-attempts N allows some).")
    chat.expect_exact("OML212")
    chat.expect_exact("hint / edit / fresh / cancel>")
    chat.say("hint")
    chat.expect_exact("Your hint:")
    chat.say("the first step reads, so its mode is read")
    chat.expect_exact("Valid pipeline.")
    chat.expect_exact("Save to")
    chat.say("n")
    chat.prompt()
    assert chat.end() == 0

    assert len(fake_api.requests) == 2
    assert "the first step reads, so its mode is read" in fake_api.requests[1].raw
    # NO_COLOR (set by cli_env) on a terminal: plain lines, no red errors, no spinner frames
    assert "\x1b[31m" not in chat.screen and "⠋" not in chat.screen
    assert "Generating…" in chat.screen
    session = only_session(project)
    kinds = [e["event_type"] for e in events(session)]
    assert kinds.index("hitl_escalation") < kinds.index("hitl_response") < kinds.index("retry_counter_reset")
    assert events(session, "hitl_response")[0]["action"] == "hint"
    assert events(session, "pipeline_accepted")[0]["path"] is None
    assert not (project / "pipelines").exists()


def test_edit_opens_the_editor_and_revalidates_without_the_llm(project, fake_api, chats, tmp_path):
    fake_api.add(Reply(fenced(BAD_MODE)))
    fixer = editor_script(tmp_path, "mode: extract", "mode: read")
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, EDITOR=editor_command(fixer))
    env.pop("VISUAL", None)
    chat = chats(project, "--retry-attempts", "0", env=env)
    chat.prompt()
    chat.say(REQUEST)
    chat.expect_exact("hint / edit / fresh / cancel>")
    chat.say("e")
    chat.expect_exact("Valid pipeline.")
    chat.expect_exact(f"Save to {SAVED}?")
    chat.say("")
    chat.prompt()
    assert chat.end() == 0

    assert len(fake_api.requests) == 1  # the edit was validated without the LLM
    assert yaml.safe_load((project / SAVED).read_text()) == yaml.safe_load(VALID)
    session = only_session(project)
    assert [e["action"] for e in events(session, "hitl_response")] == ["edit"]
    assert json.loads((session / "artifacts" / "cycle-2" / "retry_trail.json").read_text())["status"] == "valid"


def test_ctrl_c_cancels_a_slow_answer_and_the_session_goes_on(project, fake_api, chats):
    # The first answer would take a minute: far past the pexpect timeout, so a Ctrl-C that waited
    # for it fails the test at "Cancelled", with no clock in the test itself.
    fake_api.add(Reply(fenced(VALID), delay=60), Reply(fenced(VALID)))
    chat = chats(project)
    chat.prompt()
    chat.say(REQUEST)
    deadline = time.monotonic() + 30  # a wait, not a measurement
    while not fake_api.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake_api.requests, "the first request never reached the server"
    chat.interrupt()
    chat.expect_exact("Cancelled. The session goes on")
    chat.prompt()
    chat.say(REQUEST)
    chat.expect_exact("Valid pipeline.")
    chat.expect_exact("Save to")
    chat.say("n")
    chat.prompt()
    assert chat.end() == 0

    assert len(fake_api.requests) == 2
    session = only_session(project)
    assert len(events(session, "llm_call_cancelled")) == 1
    assert [e["stop_reason"] for e in events(session, "retry_stopped")] == ["interrupted"]
    assert len(events(session, "pipeline_accepted")) == 1
    assert events(session)[-1]["event_type"] == "session_end"


def test_resume_continues_the_session_and_its_conversation(project, fake_api, chats):
    parquet = VALID.replace("output/active_customers.csv", "output/active_customers.parquet")
    fake_api.add(Reply(fenced(VALID)), Reply(fenced(parquet)))
    first = chats(project)
    first.prompt()
    first.say(REQUEST)
    first.expect_exact("Save to")
    first.say("n")
    first.prompt()
    assert first.end() == 0
    session = only_session(project)

    chat = chats(project, "--resume", session.name)
    chat.expect_exact(f"Resumed session {session.name}: the conversation carries on.")
    chat.expect_exact("output/active_customers.csv")  # the current pipeline is shown
    chat.prompt()
    chat.say("write it to output/active_customers.parquet instead")
    chat.expect_exact("Valid pipeline.")
    chat.expect_exact("Save to")
    chat.say("n")
    chat.prompt()
    assert chat.end() == 0

    follow_up = fake_api.requests[1].body["messages"]
    assert [m["role"] for m in follow_up] == ["user", "assistant", "user"]
    assert REQUEST in json.dumps(follow_up[0]) and "output/active_customers.csv" in json.dumps(follow_up[1])
    assert only_session(project) == session  # the same directory carries on
    kinds = [e["event_type"] for e in events(session)]
    assert kinds.count("session_resumed") == 1 and kinds.count("pipeline_accepted") == 2
    seqs = [e["seq"] for e in events(session)]
    assert seqs == list(range(1, len(seqs) + 1))
    assert len((session / "conversation.jsonl").read_text().splitlines()) == 4
    totals = json.loads((session / "session.json").read_text())["totals"]
    assert totals["cycles"] == 2 and totals["attempts"] == 2


def test_alt_enter_adds_a_line_and_input_history_is_kept_per_project(project, fake_api, chats):
    fake_api.add(Reply(fenced(VALID)))
    chat = chats(project)
    chat.prompt()
    chat.child.send("copy data/customers.csv")
    chat.child.send("\x1b\r")  # Alt-Enter (Esc, Enter): a new line, not sent yet
    chat.child.send("to output/active_customers.csv")
    chat.say("")
    chat.expect_exact("Save to")
    chat.say("n")
    chat.prompt()
    chat.child.send("/sess\t")  # Tab completes /session
    chat.expect_exact("/session")
    chat.say("")
    chat.expect_exact("Directory:")
    chat.prompt()
    assert chat.end() == 0

    sent = fake_api.requests[0].body["messages"][-1]["content"]
    assert "copy data/customers.csv\nto output/active_customers.csv" in json.dumps(sent, ensure_ascii=False).replace("\\n", "\n")
    history = (project / ".osiris" / "history").read_text()
    assert "copy data/customers.csv" in history and "/session" in history


def test_input_history_never_keeps_a_pasted_password(project, fake_api, chats):
    fake_api.add(Reply(fenced(VALID)))
    chat = chats(project)
    chat.prompt()
    chat.say("copy customers from mysql://app:hunter2-planted@db.internal/shop to a CSV")
    chat.expect_exact("removed a password inside a connection URL")
    chat.expect_exact("Save to")
    chat.say("n")
    chat.prompt()
    assert chat.end() == 0

    history = project / ".osiris" / "history"
    assert "mysql://app:" in history.read_text() and "hunter2-planted" not in history.read_text()
    assert history.stat().st_mode & 0o777 == 0o600
    assert "hunter2-planted" not in fake_api.requests[0].raw
    for path in (project / ".osiris").rglob("*"):
        if path.is_file():
            assert "hunter2-planted" not in path.read_text(errors="replace"), path

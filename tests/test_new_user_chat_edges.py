"""Issue 30 items 3, 4, 6, 7 in `osiris chat`, in a pseudo-terminal against the fake Messages API:
Ctrl-C during a request leaves a consistent trail and counts what was billed; `/show` and `/save`
with no pipeline say so; a dry run's preview escapes control characters and says when a step
matched no sample row."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chat_harness import events, only_session
from tests.conftest import TEST_API_KEY, cli_env, osiris_here
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply
from tests.run_helpers import csv_step, sql_step
from tests.sample_project import pipeline
from tests.servers.json_api import JsonApi, json_api
from tests.test_chat_terminal import chats  # noqa: F401  (the fixture that closes every Chat it starts)

pytest.importorskip("pexpect")

REQUEST = "copy data/customers.csv to output/active_customers.csv"


def wait_for(check, what: str, limit: float = 30.0) -> None:
    """Until `check()` is true: a wait for an observable event, not a measurement."""
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.02)


def retry_trail(session: Path, cycle: int = 1) -> dict:
    return json.loads((session / "artifacts" / f"cycle-{cycle}" / "retry_trail.json").read_text())


# --- item 3: Ctrl-C during a request ---------------------------------------------------------------

def test_ctrl_c_while_the_llm_thinks_leaves_an_interrupted_trail(project, fake_api, chats):  # noqa: F811
    fake_api.add(Reply(fenced(VALID), delay=60))  # far past pexpect's timeout: only a Ctrl-C ends it
    chat = chats(project)
    chat.prompt()
    chat.say(REQUEST)
    wait_for(lambda: fake_api.requests, "the request reaching the fake API")
    chat.interrupt()
    chat.expect_exact("Cancelled. The session goes on")
    chat.prompt()
    assert chat.end() == 0

    session = only_session(project)
    trail = retry_trail(session)
    assert (trail["status"], trail["stop_reason"], trail["attempts"]) == ("interrupted", "interrupted", [])
    shown = osiris_here("sessions", "show", session.name, cwd=project)
    assert shown.stdout.splitlines()[-1] == f"cycle 1: interrupted, 0 attempt(s): {REQUEST}"


@pytest.fixture
def held_api() -> Iterator[JsonApi]:
    """An API that holds each answer until the test ends: a dry run that waits on it is a moment the
    test can see (the request arrived) and interrupt."""
    with json_api({"items": [{"id": 1}]}, hold=threading.Event()) as api:
        yield api


def test_ctrl_c_after_the_answer_arrived_still_counts_its_tokens(project, fake_api, chats, held_api):  # noqa: F811
    answer = pipeline({"id": "get", "component": "rest.extractor", "mode": "read",
                       "config": {"base_url": held_api.url, "endpoint": "/items", "data_path": "items"}},
                      csv_step("write", "write", "out.csv"))
    fake_api.add(Reply(answer, input_tokens=1850, output_tokens=210))
    chat = chats(project, "--dry-run")
    chat.prompt()
    chat.say("copy the items of our API to out.csv")
    wait_for(lambda: held_api.arrived, "the dry run's request reaching the API")  # the answer is in: it is being tested
    chat.interrupt()
    chat.expect_exact("Cancelled. The session goes on")
    chat.prompt()
    chat.say("/cost")
    chat.expect_exact("This turn: 1,850 in, 210 out")
    chat.expect_exact("Session:   1,850 in, 210 out")
    chat.prompt()
    assert chat.end() == 0

    session = only_session(project)
    [response] = events(session, "llm_response")
    assert response["token_usage"]["input"] == 1850
    totals = json.loads((session / "session.json").read_text())["totals"]
    assert (totals["tokens"]["input"], totals["tokens"]["output"]) == (1850, 210)
    trail = retry_trail(session)
    assert (trail["status"], trail["stop_reason"]) == ("interrupted", "interrupted")
    assert (trail["totals"]["token_usage"]["input"], trail["totals"]["token_usage"]["output"]) == (1850, 210)
    assert [e["stop_reason"] for e in events(session, "retry_stopped")] == ["interrupted"]


# --- item 4: /show and /save before any pipeline -----------------------------------------------------

def test_show_save_and_save_draft_with_no_pipeline_say_so(project, fake_api, chats):  # noqa: F811
    chat = chats(project)
    for command in ("/show", "/save", "/save --draft", "/validate", "/edit"):
        chat.prompt()
        chat.say(command)
        chat.expect_exact("No pipeline yet. Describe the one you want first.")
    chat.prompt()
    assert chat.end() == 0
    assert chat.screen.count("No pipeline yet.") == 5
    assert not (project / "pipelines").exists()
    assert fake_api.requests == []


# --- items 6 and 7: the dry run's preview in the chat ---------------------------------------------

def test_the_chat_preview_escapes_control_characters_and_says_when_no_row_matched(project, fake_api, chats):  # noqa: F811
    (project / "data").mkdir()
    (project / "data" / "people.csv").write_text('id,name,city\n1,"\x1b]0;PWNED\x07",Oslo\n2,"\x1b[2J",Rome\n')
    fake_api.add(Reply(pipeline(csv_step("read-people", "read", "data/people.csv"),
                                sql_step("pick", "SELECT id, name FROM input_df WHERE city = 'Atlantis'"),
                                csv_step("write-people", "write", "out/people.csv"))))
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY)
    env.pop("NO_COLOR")  # the rich display: tables, colours, a spinner
    chat = chats(project, "--dry-run", env=env)
    chat.prompt()
    chat.say("copy the people of atlantis")
    chat.expect_exact("Valid pipeline.")
    chat.expect_exact("read-people: 2 rows")
    chat.expect_exact("pick: 0 rows (no rows matched on the sample)")
    chat.expect_exact("write-people: wrote 0 rows (rolled back, nothing kept)")
    chat.expect_exact("Save to")
    chat.say("n")
    chat.prompt()
    assert chat.end() == 0

    for raw in ("\x1b]0;", "\x07", "\x1b[2J"):
        assert raw not in chat.screen
    assert "\\x1b]0;PWNED\\x07" in chat.screen and "\\x1b[2J" in chat.screen

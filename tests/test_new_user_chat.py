"""Issue 11 items 6, 7 and 9 (and issue 9 item 8 for /save): the chat as a new user meets it.

Piped chats are the real program on pipes; the terminal ones drive it in a pty with pexpect.
Real SDK against the fake Messages API, real validator, real files.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.chat_harness import Chat, editor_command, editor_script, events, only_session
from tests.conftest import TEST_API_KEY, cli_env
from tests.engine_samples import BAD_MODE, VALID, fenced
from tests.fake_anthropic import Reply
from tests.test_chat_pipe import chat

pytest.importorskip("pexpect")

REQUEST = "copy data/customers.csv to output/active_customers.csv"
SAVED = "pipelines/active-customers-to-csv.yaml"
FOLLOW_UP = "now also filter on country = DE"
STRICT = "The pipeline is invalid, and strict mode allows no retries (/retry-attempts N allows some)."


@pytest.fixture
def chats():
    started: list[Chat] = []

    def start(*args, **kwargs) -> Chat:
        started.append(Chat(*args, **kwargs))
        return started[-1]

    yield start
    for one in started:
        one.close()


def test_a_message_at_the_save_prompt_is_the_next_request_not_a_file_name(project, fake_api, chats):
    fake_api.add(Reply(fenced(VALID)), Reply(fenced(VALID)))
    terminal = chats(project)
    terminal.prompt()
    terminal.say(REQUEST)
    terminal.expect_exact(f"Save to {SAVED}?")
    terminal.say(FOLLOW_UP)
    terminal.expect_exact("Not saved: that is not a file name, so it is taken as your next message "
                          "(/save saves the pipeline later).")
    terminal.expect_exact(f"Save to {SAVED}?")
    terminal.say("n")
    terminal.prompt()
    assert terminal.end() == 0

    assert len(fake_api.requests) == 2 and FOLLOW_UP in fake_api.requests[1].raw
    assert sorted(p.name for p in project.iterdir() if not p.name.startswith(".")) == []


def test_a_path_at_the_save_prompt_is_still_a_file_name(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))

    done = chat(project, REQUEST, "out/mine.yml")

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((project / "out" / "mine.yml").read_text()) == yaml.safe_load(VALID)


def test_save_refuses_an_invalid_pipeline_unless_asked_for_a_draft(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))

    done = chat(project, REQUEST, "cancel", "/save", "/save --draft", args=("--retry-attempts", "0"))

    assert done.returncode == 0, done.stderr
    assert ("Not saved: the current pipeline is invalid. /edit fixes it by hand; "
            "/save --draft [FILE] keeps it as a draft.") in done.stdout
    draft = project / "pipelines" / "active-customers-to-csv.draft.yaml"
    assert "Saved pipelines/active-customers-to-csv.draft.yaml" in done.stdout
    first, rest = draft.read_text().split("\n", 1)
    assert first.startswith("# DRAFT: this pipeline does not validate yet (")
    assert "mode: extract" in rest and not (project / SAVED).exists()


def test_save_refuses_a_dangling_link(project, fake_api, tmp_path):
    fake_api.add(Reply(fenced(VALID)))
    (project / "link.yaml").symlink_to(tmp_path / "elsewhere.yaml")

    done = chat(project, REQUEST, "n", "/save link.yaml")

    assert ("Could not save link.yaml: is a symbolic link; Osiris does not write through links "
            "(remove it, or choose another path)") in done.stdout
    assert not (tmp_path / "elsewhere.yaml").exists() and (project / "link.yaml").is_symlink()


def test_strict_mode_hand_off_says_strict_and_records_it(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))

    done = chat(project, REQUEST, "cancel", args=("--retry-attempts", "0"))

    assert STRICT in done.stdout and "retries are used up" not in done.stdout
    assert events(only_session(project), "retry_stopped")[0]["stop_reason"] == "strict"


def test_an_edit_that_stays_invalid_has_its_own_words_and_stop_reason(project, fake_api, chats, tmp_path):
    fake_api.add(Reply(fenced(BAD_MODE)))
    keeps_it_wrong = editor_script(tmp_path, "name:", "name:")
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, EDITOR=editor_command(keeps_it_wrong))
    env.pop("VISUAL", None)
    terminal = chats(project, "--retry-attempts", "0", env=env)
    terminal.prompt()
    terminal.say(REQUEST)
    terminal.expect_exact("hint / edit / fresh / cancel>")
    terminal.say("edit")
    terminal.expect_exact("Your edited pipeline is still invalid (validated without the LLM).")
    terminal.expect_exact("hint / edit / fresh / cancel>")
    terminal.say("cancel")
    terminal.prompt()
    assert terminal.end() == 0

    assert "retries are used up" not in terminal.screen
    stops = [e["stop_reason"] for e in events(only_session(project), "retry_stopped")]
    assert stops == ["strict", "edited_invalid"]


def test_edit_after_a_valid_turn_does_not_repeat_its_tokens(project, fake_api, tmp_path):
    fake_api.add(Reply(fenced(VALID), input_tokens=777, output_tokens=55))
    renamer = editor_script(tmp_path, "active-customers-to-csv", "renamed-by-hand")
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, EDITOR=editor_command(renamer))
    env.pop("VISUAL", None)

    done = chat(project, REQUEST, "n", "/edit", "n", env=env)

    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Tokens this turn: 777 in, 55 out") == 1
    assert "No tokens this turn (validated without the LLM)." in done.stdout


def test_a_hint_sends_the_errors_still_open(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))

    done = chat(project, REQUEST, "hint", "the first step reads", "n", args=("--retry-attempts", "0"))

    assert done.returncode == 0, done.stderr
    second = fake_api.requests[1].body["messages"][-1]["content"]
    assert "Errors still open in the current pipeline:" in second and "OML212" in second
    assert "Guidance from the person: the first step reads" in second


def test_end_of_input_at_the_hand_off_exits_1_with_the_session_path(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))

    done = chat(project, REQUEST, args=("--retry-attempts", "0"))

    session = only_session(project)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"osiris: the pipeline is still invalid and the input ended at the hand-off; see {session}")
    assert json.loads((session / "session.json").read_text())["status"] == "invalid"
    assert events(session)[-1]["event_type"] == "session_end"


def test_a_draft_never_holds_an_inline_secret(project, fake_api):
    secret = "PgPw-draft-secret-9c1"
    leaky = BAD_MODE.replace("      path: data/customers.csv", f"      path: data/customers.csv\n      password: {secret}")
    fake_api.add(Reply(fenced(leaky)))

    done = chat(project, REQUEST, "cancel", "/save --draft", args=("--retry-attempts", "0"))

    draft = (project / "pipelines" / "active-customers-to-csv.draft.yaml").read_text()
    assert done.returncode == 0, done.stderr
    assert secret not in draft
    assert "password: ***" in draft.replace("'", "").replace('"', "")

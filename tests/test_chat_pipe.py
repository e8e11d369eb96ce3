"""`osiris chat` with its input and output on pipes: plain lines, no escape codes, and the
same conversation as on a terminal. Real program, real SDK, fake Messages API server."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from tests.chat_harness import Chat, editor_command, editor_script, events, only_session
from tests.conftest import TEST_API_KEY, cli_env
from tests.engine_samples import BAD_MODE, VALID, fenced
from tests.fake_anthropic import Reply, Status
from tests.inprocess import run_inprocess

REQUEST = "copy data/customers.csv to output/active_customers.csv"
SAVED = "pipelines/active-customers-to-csv.yaml"


def chat(project, *lines: str, args: tuple[str, ...] = (), env: dict[str, str] | None = None, process: bool = False):
    """`osiris chat ARGS` with `lines` as its input on a pipe; end of input is Ctrl-D. In this process
    (tests/inprocess.py: the same arguments, environment, directory and stdin), or as a real child
    with `process=True` where only a process shows it: a real pipe's colours, the keyring."""
    env = env or cli_env(ANTHROPIC_API_KEY=TEST_API_KEY)
    text = "".join(line + "\n" for line in lines)
    if not process:
        return run_inprocess("chat", *args, cwd=project, env=env, input=text)
    return subprocess.run([sys.executable, "-m", "osiris", "chat", *args], cwd=project, env=env, input=text,
                          capture_output=True, text=True, timeout=60)


def test_pipe_output_is_plain_lines_and_end_of_input_ends_cleanly(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)), Reply(fenced(VALID)))
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY)
    env.pop("NO_COLOR")  # even without NO_COLOR, a pipe gets no colours and no spinner
    done = chat(project, REQUEST, "n", env=env, process=True)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    for line in ("Generating…", "Validating (attempt 1/3)…", "✓ Valid pipeline after 2 attempts.",
                 "Not saved. /save [FILE] saves it later."):
        assert line in done.stdout.splitlines() or line in done.stdout
    assert "Generating (attempt 2/3), last time:" in done.stdout
    assert "Tokens this turn: 200 in, 100 out, 0 cache read, 0 cache write; about $" in done.stdout
    session = only_session(project)
    assert events(session)[-1]["event_type"] == "session_end"
    assert json.loads((session / "session.json").read_text())["status"] == "ended"


def test_the_assistant_asks_for_what_is_missing_and_uses_the_answer(project, fake_api):
    question = "Which source should I read: the @mysql.default connection or a CSV file?"
    fake_api.add(Reply(question), Reply(fenced(VALID)))
    done = chat(project, "copy the customers somewhere", "the CSV file data/customers.csv", "n")
    assert done.returncode == 0, done.stderr
    assert f"? {question}" in done.stdout
    assert len(fake_api.requests) == 2  # the question is not retried as an invalid answer
    first, second = (r.body for r in fake_api.requests)
    assert "do not guess" in json.dumps(first["system"])
    last_message = json.dumps(second["messages"][-1])
    assert "You asked: Which source" in last_message and "My answer: the CSV file" in last_message
    asked = events(only_session(project), "assistant_question")
    assert [e["text"] for e in asked] == [question]
    assert not events(only_session(project), "retry_stopped")


def test_saving_asks_before_overwriting(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    target = project / SAVED
    target.parent.mkdir()
    target.write_text("old: pipeline\n")
    done = chat(project, REQUEST, "", "n", "/save", "y")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(f"{SAVED} exists. Overwrite? [y/N]") == 2
    assert "Not overwritten." in done.stdout and f"Saved {SAVED}" in done.stdout
    assert yaml.safe_load(target.read_text()) == yaml.safe_load(VALID)
    paths = [e["path"] for e in events(only_session(project), "pipeline_accepted")]
    assert paths[0] is None and paths[-1].endswith(SAVED)


def test_save_to_a_path_the_person_gives(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    done = chat(project, REQUEST, "out/mine.yaml")
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((project / "out" / "mine.yaml").read_text()) == yaml.safe_load(VALID)


def test_slash_commands(project, fake_api):
    fake_api.add(Reply(fenced(BAD_MODE)))
    done = chat(
        project,
        "/help", "/sav", "/retry-attempts 9", "/retry-attempts 0",
        REQUEST, "nonsense", "cancel",
        "/show", "/validate", "/history", "/cost", "/session", "/save", "/exit",
        "never read",
    )
    out = done.stdout
    assert done.returncode == 0, done.stderr
    for usage in ("/help", "/show", "/save [FILE]", "/validate", "/edit", "/history", "/cost",
                  "/session", "/retry-attempts N", "/exit"):
        assert usage in out
    assert "Unknown command /sav. Did you mean /save?" in out
    assert "/retry-attempts takes a whole number from 0 to 5, not '9'." in out
    assert "Retry attempts set to 0 (strict mode)." in out
    assert len(fake_api.requests) == 1  # strict mode: straight to the person
    assert "Please type hint, edit, fresh or cancel" in out
    assert "The current pipeline is not valid yet:" in out and "mode: extract" in out
    assert "OML212" in out.split("/validate")[-1]
    assert "generate" in out and "This turn: 100 in, 50 out" in out
    session = only_session(project)
    assert f"Session {session.name}" in out and str(session) in out
    assert "Not saved: the current pipeline is invalid." in out
    assert [e["action"] for e in events(session, "hitl_response")] == ["cancel"]
    assert events(session, "settings_changed")[0]["value"] == 0


def test_a_rejected_key_is_explained_and_the_session_goes_on(project, fake_api):
    fake_api.add(Status(401))
    done = chat(project, REQUEST, "/session")
    assert done.returncode == 0, done.stderr
    assert "the API key was rejected" in done.stdout
    assert "Directory:" in done.stdout  # still answering after the error


def test_no_key_without_a_terminal_explains_and_exits_3(project):
    done = chat(project, REQUEST, env=cli_env(), process=True)
    assert done.returncode == 3
    assert "ANTHROPIC_API_KEY" in done.stderr and "osiris auth login" in done.stderr
    assert "--provider demo" in done.stderr
    assert not (project / ".osiris").exists()


def test_no_key_on_a_terminal_offers_the_demo_provider(project):
    terminal = Chat(project, env=cli_env())
    try:
        terminal.expect_exact("osiris auth login")
        terminal.expect_exact("Use the demo provider now? [y/N]")
        terminal.say("y")
        terminal.expect_exact("demo")
        terminal.prompt()
        terminal.say("active customers to a CSV")
        terminal.expect_exact("Valid pipeline after 2 attempts.")
        terminal.expect_exact("Save to")
        terminal.say("n")
        terminal.prompt()
        assert terminal.end() == 0
    finally:
        terminal.close()


def test_resume_of_an_unknown_session_is_one_line_and_exit_2(project):
    done = chat(project, args=("--resume", "nope"))
    assert done.returncode == 2
    assert done.stderr.startswith("osiris: error: no session 'nope'")
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (project / ".osiris").exists()  # nothing written for a bad id


def test_help_and_validate_do_not_import_the_chat_libraries(project):
    probe = (
        "import sys\n"
        "from osiris.cli import main\n"
        "for argv in (['--help'], ['validate', '--help'], ['chat', '--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in ('rich', 'prompt_toolkit', 'anthropic') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=project, env=cli_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]"



def test_a_follow_up_changes_the_current_pipeline(project, fake_api):
    parquet = VALID.replace("active_customers.csv", "active_customers.parquet")
    fake_api.add(Reply(fenced(VALID, "I assumed the file has a header row.")), Reply(fenced(parquet)))
    done = chat(project, REQUEST, "n", "now write it to output/active_customers.parquet", "n", "/show")
    assert done.returncode == 0, done.stderr
    assert "I assumed the file has a header row." in done.stdout
    messages = fake_api.requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert "output/active_customers.csv" in json.dumps(messages)  # the current pipeline goes along
    assert done.stdout.split("/show")[-1].count("active_customers.parquet") == 1


def test_rate_limits_are_shown_while_waiting(project, fake_api):
    fake_api.add(Status(429, retry_after="0.2"), Reply(fenced(VALID)))
    done = chat(project, REQUEST, "n")
    assert done.returncode == 0, done.stderr
    assert "Rate limited, retrying in 0.2 s (1/3)" in done.stdout
    assert "✓ Valid pipeline." in done.stdout


def test_resume_last_carries_on_the_newest_session(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    assert chat(project, REQUEST, "n").returncode == 0
    session = only_session(project).name
    again = chat(project, "/show", args=("--resume", "last"))
    assert again.returncode == 0, again.stderr
    assert f"Resumed session {session}: the conversation carries on." in again.stdout
    assert "output/active_customers.csv" in again.stdout.split("/show")[-1]
    assert only_session(project).name == session
    assert len(fake_api.requests) == 1


def test_history_after_resume_shows_the_cycles_before_it(project, fake_api):
    fake_api.add(Reply(fenced(VALID)), Reply(fenced(VALID.replace("active_customers.csv", "all.csv"))))
    assert chat(project, REQUEST, "n", "write all of them to output/all.csv", "n").returncode == 0
    again = chat(project, "/history", args=("--resume", "last"))
    assert again.returncode == 0, again.stderr
    shown = again.stdout.split("/history")[-1]
    assert "No generation yet." not in shown
    assert shown.index("Cycle 1 (valid):") < shown.index("Cycle 2 (valid):")
    assert len(fake_api.requests) == 2  # read from the session's trails: no call


def test_slash_edit_changes_the_current_pipeline_without_the_llm(project, fake_api, tmp_path):
    fake_api.add(Reply(fenced(VALID)))
    fixer = editor_script(tmp_path, "output/active_customers.csv", "output/edited.csv")
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, EDITOR=editor_command(fixer))
    env.pop("VISUAL", None)
    done = chat(project, REQUEST, "n", "/edit", "n", "/show", env=env)
    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 1
    assert "output/edited.csv" in done.stdout.split("/show")[-1]
    attempts = json.loads((only_session(project) / "artifacts" / "cycle-2" / "retry_trail.json").read_text())
    assert [a["kind"] for a in attempts["attempts"]] == ["edit"]


def test_a_failing_editor_is_one_clear_line(project, fake_api):
    fake_api.add(Reply(fenced(VALID)))
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, EDITOR="false")
    env.pop("VISUAL", None)
    done = chat(project, REQUEST, "n", "/edit", "/session", env=env)
    assert done.returncode == 0, done.stderr
    assert "the editor 'false' exited with code 1" in done.stdout
    assert "Directory:" in done.stdout


def test_an_edit_that_is_still_invalid_goes_back_to_the_choices(project, fake_api, tmp_path):
    fake_api.add(Reply(fenced(BAD_MODE)))
    no_fix = editor_script(tmp_path, "data/customers.csv", "data/clients.csv")  # leaves the bad mode
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, EDITOR=editor_command(no_fix))
    env.pop("VISUAL", None)
    done = chat(project, REQUEST, "edit", "cancel", args=("--retry-attempts", "0"), env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("hint / edit / fresh / cancel>") == 2
    assert "OML212 steps[0].mode" in done.stdout.split("hint / edit / fresh / cancel>")[1]
    session = only_session(project)
    assert [e["action"] for e in events(session, "hitl_response")] == ["edit", "cancel"]
    assert len(events(session, "hitl_escalation")) == 2
    assert len(fake_api.requests) == 1

"""Planted secrets through `osiris chat` (issue 9, item 4): typed in prose, echoed by the LLM into a
field whose error is shown. Real program, real SDK, fake Messages API; a pty for the history file."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.chat_harness import Chat, only_session
from tests.conftest import TEST_API_KEY, cli_env, write_settings
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply

ENV_PW = "ChatEnv-Pw-6612"
TYPED = "Typed-Chat-Pw-4471"
ECHOES = f"""\
oml_version: "0.1.0"
name: echoes
steps:
  - id: load
    component: postgres.extractor
    mode: read
    config:
      connection: "@postgres.default"
      query: SELECT * FROM customers
      port: {ENV_PW}
  - id: write
    component: filesystem.csv_writer
    mode: write
    needs: [load]
    config:
      path: out.csv
"""
PLANTED = [ENV_PW, TYPED, TEST_API_KEY]


@pytest.fixture
def secret_project(project, fake_api):
    write_settings(project, {
        "llm": {"base_url": fake_api.url, "timeout_seconds": 5},
        "connections": {"postgres": {"default": {"host": "pg", "database": "dw", "user": "r",
                                                 "password": "${PG_PASSWORD}"}}},
    })
    return project


def _leaks(text: str) -> list[str]:
    return [secret for secret in PLANTED if secret in text]


def _scan_project(project, fake_api) -> None:
    for path in (project / ".osiris").rglob("*"):
        if path.is_file():
            assert _leaks(path.read_text()) == [], path
    for body in fake_api.bodies:
        assert _leaks(body) == []


def test_a_typed_password_and_an_echoed_secret_never_reach_the_screen_the_session_or_the_llm(secret_project, fake_api):
    fake_api.add(Reply(fenced(ECHOES)), Reply(fenced(VALID)))
    # a process: the scan reads everything written to the descriptors, what a C library prints too,
    # where an in-process run would capture only Python's sys.stdout and sys.stderr
    done = subprocess.run(
        [sys.executable, "-m", "osiris", "chat"], cwd=secret_project,
        input=f"copy the customers to a CSV; the password is {TYPED}\nn\n",
        env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, PG_PASSWORD=ENV_PW),
        capture_output=True, text=True, timeout=60,
    )

    assert done.returncode == 0, done.stderr
    assert "not '***'" in done.stdout  # the port error is shown, with the secret masked
    assert _leaks(done.stdout) == [] and _leaks(done.stderr) == []
    _scan_project(secret_project, fake_api)


def test_a_password_typed_in_prose_stays_out_of_the_history_file(secret_project, fake_api):
    pytest.importorskip("pexpect")
    fake_api.add(Reply(fenced(VALID)))
    chat = Chat(secret_project, env=cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, PG_PASSWORD=ENV_PW))
    try:
        chat.prompt()
        chat.say(f"copy the customers to a CSV; the password is {TYPED}")
        chat.expect_exact("Save to")
        chat.say("n")
        chat.prompt()
        assert chat.end() == 0
    finally:
        chat.close()

    history = (secret_project / ".osiris" / "history").read_text()
    assert "the password is ***" in history
    _scan_project(secret_project, fake_api)
    assert only_session(secret_project).is_dir()

"""The sample tier in `osiris chat`: the once-per-session question, the dry run catching an
unknown column on a real PostgreSQL, the preview of each step's sample rows, and the save.
Real program, real SDK, the fake Messages API; a pseudo-terminal (pexpect) and a pipe."""

from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest
import yaml

from tests.chat_harness import events, only_session
from tests.conftest import TEST_API_KEY, cli_env
from tests.fake_anthropic import Reply
from tests.run_helpers import csv_step, pg_step
from tests.sample_project import SampleProject, last_user_message, pipeline
from tests.test_chat_terminal import chats  # noqa: F401  (the fixture that closes every Chat it starts)

pytest.importorskip("pexpect")

REQUEST = "copy the active customers to output/active.csv"  # names no database: no discover offer
QUESTION = "Test on 10 sample rows from @postgres.default? [Y/n]"
SAVED = "pipelines/sample-test.yaml"


@pytest.fixture
def proj(tmp_path, fake_api, postgres_server):
    with psycopg.connect(postgres_server.dsn(), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS chat_customers")
        conn.execute("CREATE TABLE chat_customers (id integer PRIMARY KEY, email text, status text)")
        conn.execute("INSERT INTO chat_customers SELECT i, 'c' || i || '@x.org', "
                     "CASE WHEN i % 2 = 0 THEN 'active' ELSE 'gone' END FROM generate_series(1, 30) i")
    return SampleProject(tmp_path / "p", fake_api, postgres=postgres_server)


def answer(where: str) -> str:
    return pipeline(pg_step("extract-customers", "read", query=f"SELECT id, email FROM chat_customers WHERE {where}"),
                    csv_step("write-csv", "write", "output/active.csv"))


def test_the_chat_asks_once_tests_shows_the_preview_and_saves(proj, fake_api, chats):  # noqa: F811 (the imported fixture)
    fake_api.add(Reply(answer("active = 1")), Reply(answer("status = 'active'")), Reply(answer("status = 'gone'")))
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, **proj.env)
    env.pop("NO_COLOR")  # the terminal display: rich tables
    chat = chats(proj.root, env=env)
    chat.prompt()
    chat.say(REQUEST)
    chat.expect_exact(QUESTION)
    chat.say("")  # Enter is yes
    chat.expect_exact("Attempt 1/3 failed on sample rows: 1 error — asking the LLM to fix them")
    chat.expect_exact('column "active" does not exist')
    chat.expect_exact("Valid pipeline after 2 attempts.")
    chat.expect_exact("Sample run: 10 rows a source, writes rolled back, nothing kept.")
    chat.expect_exact("extract-customers: 10 rows (first 5)")
    chat.expect(r"│ 2\s+│ c2@x\.org\s+│")  # a rich table cell
    chat.expect_exact("write-csv: wrote 10 rows (rolled back, nothing kept)")
    chat.expect_exact(f"Save to {SAVED}?")
    chat.say("")
    chat.expect_exact(f"Saved {SAVED}")
    chat.prompt()
    chat.say("only the ones that are gone")  # a follow-up: tested again, not asked again
    chat.expect_exact("Valid pipeline.")
    chat.expect_exact("extract-customers: 10 rows")
    chat.expect_exact(f"Save to {SAVED}?")
    chat.say("n")
    chat.prompt()
    assert chat.end() == 0
    assert QUESTION not in chat.screen.split(f"Saved {SAVED}", 1)[1]  # asked once per session
    saved = yaml.safe_load((proj.root / SAVED).read_text())
    assert saved["steps"][0]["config"]["query"].endswith("WHERE status = 'active'")
    assert "table chat_customers has columns: id integer, email text, status text" in last_user_message(
        fake_api.requests[1])
    assert not (proj.root / "output").exists()
    trail = events(only_session(proj.root))
    assert [e["status"] for e in trail if e["event_type"] == "dry_run_complete"] == ["failed", "passed", "passed"]
    assert [e["dry_run"] for e in trail if e["event_type"] == "pipeline_accepted"] == ["passed", "passed"]
    assert [(e["sources"], e["answer"]) for e in trail if e["event_type"] == "dry_run_answer"] == [
        (["@postgres.default"], "yes")]
    proj.assert_no_secrets(chat.screen)


def chat_on_pipes(proj, *lines: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "osiris", "chat"], cwd=proj.root,
                          env=env or cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, **proj.env),
                          input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=120)


def test_on_a_pipe_the_preview_is_plain_text(proj, fake_api):
    fake_api.add(Reply(answer("status = 'active'")))

    done = chat_on_pipes(proj, REQUEST, "y", "n")

    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert f"{QUESTION} y\n" in done.stdout
    assert "extract-customers: 10 rows (first 5)\nid  email\n2   c2@x.org\n" in done.stdout
    proj.assert_no_secrets(done.stdout + done.stderr)


def test_no_means_not_tested_for_the_whole_session(proj, fake_api):
    fake_api.add(Reply(answer("active = 1")))

    done = chat_on_pipes(proj, REQUEST, "n", "n", "again please", "n")

    assert done.returncode == 0, done.stderr
    assert done.stdout.count(QUESTION) == 1
    assert "Not testing on sample rows in this session" in done.stdout
    assert done.stdout.count("Valid pipeline.") == 2 and "Sample run" not in done.stdout
    assert len(fake_api.requests) == 2
    trail = events(only_session(proj.root))
    assert not [e for e in trail if e["event_type"] == "dry_run_start"]
    assert [e["answer"] for e in trail if e["event_type"] == "dry_run_answer"] == ["no"]


def test_a_missing_secret_is_said_and_the_pipeline_is_still_offered_for_saving(proj, fake_api):
    fake_api.add(Reply(answer("active = 1")))
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY)  # PG_PASSWORD not set

    done = chat_on_pipes(proj, REQUEST, "", "", env=env)

    assert done.returncode == 0, done.stderr
    assert ("Not tested on samples: step 'extract-customers': connections.postgres.default.password refers to "
            "${PG_PASSWORD}, which is not set. The pipeline is valid but untested.") in done.stdout
    assert f"Saved {SAVED}" in done.stdout


def test_a_pipeline_edited_at_the_hand_off_is_tested_again_without_the_llm(proj, fake_api, tmp_path):
    from tests.chat_harness import editor_command, editor_script

    fake_api.add(Reply(answer("active = 1")))
    script = editor_script(tmp_path, "active = 1", "status = 'active'")
    env = cli_env(ANTHROPIC_API_KEY=TEST_API_KEY, EDITOR=editor_command(script),
                  OSIRIS_VALIDATION__RETRY__DRY_RUN_ATTEMPTS="0", **proj.env)

    done = chat_on_pipes(proj, REQUEST, "y", "edit", "", env=env)

    assert done.returncode == 0, done.stderr
    assert len(fake_api.requests) == 1
    assert ("The pipeline validates but still fails on sample rows after 1 attempt "
            "(validation.retry.dry_run_attempts is used up).") in done.stdout
    assert "✓ Valid pipeline." in done.stdout and "extract-customers: 10 rows (first 5)" in done.stdout
    assert f"Saved {SAVED}" in done.stdout
    trail = events(only_session(proj.root))
    assert [e["status"] for e in trail if e["event_type"] == "dry_run_complete"] == ["failed", "passed"]

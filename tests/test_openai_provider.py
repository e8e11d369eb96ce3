"""`llm.provider: openai` as users run it: `osiris generate` (in-process, tests/inprocess.py), the real `openai`
SDK against an OpenAI-compatible fake on 127.0.0.1 (tests/fake_openai.py), streamed. What is
asserted is what a person sees (exit code, the lines printed, the pipeline written), what the
trail keeps, and what went over the wire."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import cli_env, session_dirs, write_settings
from tests.engine_samples import BAD_COMPONENT, VALID, fenced
from tests.fake_openai import CutStream, FakeOpenAI, RawStream, Reply, Status
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py

REQUEST = "copy the customers CSV to output/active_customers.csv"
OPENAI_KEY = "sk-proj-planted-4Xc9Qm2Lr7Vt1Wn8Zb5Kd3"


@pytest.fixture
def fake_openai():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def openai_project(tmp_path: Path, fake_openai: FakeOpenAI) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    write_settings(root, {"llm": {"provider": "openai", "model": "gpt-4.1-mini", "base_url": fake_openai.url,
                                  "timeout_seconds": 5, "api_retries": 2}})
    return root


def generate(root: Path, *args: str, key: str | None = OPENAI_KEY):
    env = cli_env(OPENAI_API_KEY=key) if key is not None else cli_env()
    return run_osiris("generate", "--provider", "openai", REQUEST, *args, cwd=root, env=env)


def events(session: Path) -> list[dict]:
    return [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]


def test_fixed_on_retry_writes_the_pipeline_keeps_the_apis_counts_and_never_the_key(openai_project, fake_openai):
    fake_openai.add(Reply(fenced(BAD_COMPONENT), input_tokens=1200, output_tokens=300),
                    Reply(fenced(VALID), input_tokens=200, output_tokens=280, cache_read=1024))

    done = generate(openai_project, "-o", "pipelines/active.yaml")

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((openai_project / "pipelines" / "active.yaml").read_text()) == yaml.safe_load(VALID)
    assert "unknown component 'filesystem.csv_writter'" in done.stderr
    assert "valid after 2 attempts; tokens: 1,400 in, 580 out, 1,024 cache read, 0 cache write" in done.stderr
    [session] = session_dirs(openai_project)
    responses = [e for e in events(session) if e["event_type"] == "llm_response"]
    assert [e["token_usage"] for e in responses] == [
        {"input": 1200, "output": 300, "cache_write": 0, "cache_read": 0},
        {"input": 200, "output": 280, "cache_write": 0, "cache_read": 1024},  # cached tokens counted apart
    ]
    meta = json.loads((session / "session.json").read_text())
    assert meta["provider"] == "openai" and meta["model"] == "gpt-4.1-mini"
    # Over the wire: the chat-completions path, streamed with usage asked for, the key only in its header.
    assert [r.path for r in fake_openai.requests] == ["/v1/chat/completions"] * 2
    first = fake_openai.requests[0]
    assert first.body["stream"] is True and first.body["stream_options"] == {"include_usage": True}
    assert first.body["model"] == "gpt-4.1-mini" and first.body["max_tokens"] == 4096
    assert "max_completion_tokens" not in first.body  # the other limit is left out, not sent empty
    assert first.body["messages"][0]["role"] == "system"
    assert all(r.headers["authorization"] == f"Bearer {OPENAI_KEY}" for r in fake_openai.requests)
    assert "filesystem.csv_writter" in fake_openai.requests[1].raw  # the retry prompt is a delta
    # Nowhere else: no request body, no file of the session, nothing printed.
    assert not any(OPENAI_KEY in body for body in fake_openai.bodies)
    assert OPENAI_KEY not in done.stdout + done.stderr
    written = [p for p in openai_project.rglob("*") if p.is_file()]
    assert len([p for p in written if session in p.parents]) >= 8
    assert not [p for p in written if OPENAI_KEY.encode() in p.read_bytes()]


def test_a_rejected_key_exits_3_at_once_with_one_line(openai_project, fake_openai):
    fake_openai.add(Status(401, message="Incorrect API key provided: sk-proj-****Kd3."))

    done = generate(openai_project)

    assert done.returncode == 3
    assert len(fake_openai.requests) == 1  # fatal: never retried
    assert "the API key was rejected" in done.stderr and "OPENAI_API_KEY" in done.stderr
    assert "authentication (HTTP 401)" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_503_every_time_is_retried_api_retries_times_then_exits_4(openai_project, fake_openai):
    fake_openai.add(Status(503, message="upstream overloaded", retry_after="0"))

    done = generate(openai_project)

    assert done.returncode == 4, done.stderr
    assert len(fake_openai.requests) == 3  # llm.api_retries = 2: exactly three tries, the SDK adds none
    assert "the LLM service is unavailable after 3 tries (llm.api_retries = 2); last error: server (HTTP 503): " \
           "upstream overloaded" in done.stderr
    assert "Traceback" not in done.stderr
    [session] = session_dirs(openai_project)
    errors = [e for e in events(session) if e["event_type"] == "api_error"]
    assert [(e["status"], e["retryable"], e["retry_number"]) for e in errors] == [(503, True, 1), (503, True, 2),
                                                                                   (503, True, 2)]


def test_a_wait_longer_than_the_cap_fails_at_once(openai_project, fake_openai):
    fake_openai.add(Status(429, message="slow down", retry_after="600"))

    done = generate(openai_project)

    assert done.returncode == 4
    assert len(fake_openai.requests) == 1
    assert "asked to wait 600 s before retrying, longer than the 60 s Osiris waits" in done.stderr


def test_a_stream_cut_short_is_a_clear_line_and_exit_4_never_a_pipeline(openai_project, fake_openai):
    write_settings(openai_project, {"llm": {"provider": "openai", "model": "gpt-4.1-mini", "base_url": fake_openai.url,
                                            "timeout_seconds": 5, "api_retries": 0}})
    fake_openai.add(CutStream(Reply(fenced(VALID)), keep=2))  # the role chunk and the first 200 characters

    done = generate(openai_project)

    assert done.returncode == 4, done.stderr
    assert "last error: incomplete_stream: the answer stream ended before its finish_reason" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_stream_cut_short_is_retried_like_any_transient_fault(openai_project, fake_openai):
    fake_openai.add(CutStream(Reply(fenced(VALID)), keep=2), Reply(fenced(VALID)))

    done = generate(openai_project)

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout) == yaml.safe_load(VALID)
    assert len(fake_openai.requests) == 2


def test_a_server_on_this_machine_needs_no_key_and_one_that_reports_no_usage_still_works(openai_project, fake_openai):
    fake_openai.report_usage = False
    fake_openai.add(Reply(fenced(VALID)))

    done = generate(openai_project, key=None)

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout) == yaml.safe_load(VALID)
    assert fake_openai.requests[0].headers["authorization"] == "Bearer none"  # no key of anyone's
    assert "tokens: 0 in, 0 out" in done.stderr


def test_a_remote_server_without_a_key_exits_3_before_anything_is_sent(openai_project, fake_openai):
    write_settings(openai_project, {"llm": {"provider": "openai", "model": "gpt-4.1-mini",
                                            "base_url": "https://llm.example.com/v1"}})

    done = generate(openai_project, key=None)

    assert done.returncode == 3
    assert "no OpenAI API key for https://llm.example.com/v1: set OPENAI_API_KEY or run " \
           "`osiris auth login --provider openai`" in done.stderr
    assert session_dirs(openai_project) == []


def test_the_claude_default_model_is_not_sent_to_an_openai_server(openai_project, fake_openai):
    write_settings(openai_project, {"llm": {"provider": "openai", "base_url": fake_openai.url}})

    done = generate(openai_project)

    assert done.returncode == 2
    assert "llm.provider openai needs llm.model" in done.stderr
    assert fake_openai.requests == [] and session_dirs(openai_project) == []


def test_openai_itself_gets_max_completion_tokens_and_compatible_servers_max_tokens():
    from osiris.llm.openai_provider import OpenAIProvider

    assert OpenAIProvider(api_key="k", model="m")._limit_name() == "max_completion_tokens"
    assert OpenAIProvider(api_key="k", model="m", base_url="https://api.openai.com/v1")._limit_name() == \
        "max_completion_tokens"
    assert OpenAIProvider(api_key="k", model="m", base_url="http://127.0.0.1:11434/v1")._limit_name() == "max_tokens"


def test_the_chat_works_through_the_same_provider(openai_project, fake_openai):
    write_settings(openai_project, {"llm": {"model": "llama3.1", "base_url": fake_openai.url, "timeout_seconds": 5},
                                    "validation": {"dry_run": "off"}})
    fake_openai.add(Reply(fenced(BAD_COMPONENT)), Reply(fenced(VALID), input_tokens=210, output_tokens=120))

    done = run_osiris("chat", "--provider", "openai", cwd=openai_project, env=cli_env(), input=REQUEST + "\n")

    assert done.returncode == 0, done.stderr
    assert "component: filesystem.csv_writer" in done.stdout
    assert "Tokens this turn: 310 in, 170 out, 0 cache read, 0 cache write; no price known for this model" in done.stdout
    assert len(fake_openai.requests) == 2 and fake_openai.requests[0].body["model"] == "llama3.1"
    assert "Traceback" not in done.stderr


def test_the_apis_counts_feed_the_spending_cap(openai_project, fake_openai):
    write_settings(openai_project, {"llm": {"provider": "openai", "model": "gpt-4.1-mini", "base_url": fake_openai.url,
                                            "timeout_seconds": 5, "max_cycle_tokens": 6000}})
    fake_openai.add(Reply(fenced(BAD_COMPONENT), input_tokens=5000, output_tokens=400), Reply(fenced(VALID)))

    done = generate(openai_project)

    assert done.returncode == 1
    assert len(fake_openai.requests) == 1  # 5,400 reported: the retry would pass 6,000, so it is not sent
    assert "spending cap reached" in done.stderr and "llm.max_cycle_tokens = 6,000 (5,400 tokens spent" in done.stderr


def test_an_openai_key_written_into_the_settings_is_refused_with_where_it_goes(openai_project, fake_openai):
    write_settings(openai_project, {"llm": {"provider": "openai", "model": "m", "base_url": fake_openai.url,
                                            "openai_api_key": OPENAI_KEY}})

    done = generate(openai_project)

    assert done.returncode == 2
    assert done.stderr == (f"osiris: error: {openai_project / '.osiris.yaml'}: llm.openai_api_key: the API key never "
                           "goes in .osiris.yaml; use OPENAI_API_KEY or `osiris auth login --provider openai`\n")
    assert OPENAI_KEY not in done.stderr and fake_openai.requests == []


def test_an_error_inside_the_stream_and_a_broken_stream_are_retried_never_validated(openai_project, fake_openai):
    fake_openai.add(RawStream(b'data: {"error": {"message": "upstream provider error", "code": 502}}\n\n'),
                    RawStream(b"<html><body>502 Bad Gateway</body></html>"),
                    Reply(fenced(VALID)))

    done = generate(openai_project)

    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout) == yaml.safe_load(VALID)
    assert len(fake_openai.requests) == 3
    [session] = session_dirs(openai_project)
    errors = [(e["class"], e["retryable"]) for e in events(session) if e["event_type"] == "api_error"]
    assert errors[0] == ("stream_error", True) and errors[1][1] is True
    assert "upstream provider error" in done.stderr and "Traceback" not in done.stderr

"""Issue 9 items 2 and 10: an answer is bounded in time, and hostile text costs linear work.

`llm.timeout_seconds` bounds each network read; `llm.request_deadline_seconds` bounds the whole
answer. The fake server trickles a complete answer, or holds the connection open after it.
"""

from __future__ import annotations

import json
import threading

import pytest

from osiris.errors import LLMUnavailableError
from osiris.prompt.fence import fenced_data
from tests.conftest import osiris_here as run_osiris  # in-process: tests/inprocess.py
from tests.conftest import session_dirs, write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply, SlowStream, Status

REQUEST = "copy the customers CSV to a new CSV"


def _strict_json(text: str) -> object:
    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_a_trickling_answer_ends_at_the_deadline(project, fake_api):
    """20 bytes every 50 ms: each read is quick, the whole answer takes seconds. Not accepted."""
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5,
                                     "request_deadline_seconds": 1, "api_retries": 0}})
    fake_api.add(SlowStream(Reply(fenced(VALID)), chunk=20, interval=0.05))
    h = make_engine(project)

    with pytest.raises(LLMUnavailableError):
        h.engine.run(REQUEST)
    [event] = h.events("api_error")
    assert (event["class"], event["retryable"]) == ("deadline", True)


def test_generate_says_the_answer_took_too_long_and_exits_4(project, fake_api):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5,
                                     "request_deadline_seconds": 1, "api_retries": 0}})
    fake_api.add(SlowStream(Reply(fenced(VALID)), chunk=20, interval=0.05))

    done = run_osiris("generate", REQUEST, "-o", "out.yaml", cwd=project)

    assert done.returncode == 4, done.stderr
    assert "the answer took longer than 1 s (llm.request_deadline_seconds)" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (project / "out.yaml").exists()


def test_a_deadline_is_retried_like_other_service_faults(project, fake_api):
    # the slow answer needs about 5 s (19 chunks, 0.25 s apart); the deadline of 2 s cuts it, and
    # leaves the retry's quick answer room on a loaded machine
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5,
                                     "request_deadline_seconds": 2, "api_retries": 1}})
    fake_api.add(SlowStream(Reply(fenced(VALID)), chunk=20, interval=0.25), Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(fake_api.requests) == 2


def test_an_answer_is_taken_at_message_stop_while_the_connection_stays_open(project, fake_api):
    """Waiting for the close would end in a read timeout (5 s): the answer is complete before it."""
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 0}})
    fake_api.add(SlowStream(Reply(fenced(VALID)), hold_open=30))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid
    assert h.events("api_error") == []


@pytest.mark.parametrize("value", ["inf", "nan", "1e400"])
def test_an_infinite_retry_after_leaves_strict_json(project, fake_api, value):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 1}})
    fake_api.add(Status(429, retry_after=value), Reply(fenced(VALID)))

    done = run_osiris("generate", REQUEST, "-o", "out.yaml", cwd=project)

    assert done.returncode == 0, done.stderr
    [session] = session_dirs(project)
    events = [_strict_json(line) for line in (session / "events.jsonl").read_text().splitlines()]
    [api_error] = [e for e in events if e["event_type"] == "api_error"]
    assert api_error.get("retry_after") is None


def test_a_fence_over_a_million_backticks_is_found_in_one_pass():
    """The old loop grew the fence a backtick at a time and rescanned: hours for this text."""
    text = "`" * 1_000_000
    quoted: list[str] = []
    worker = threading.Thread(target=lambda: quoted.append(fenced_data("pipeline", text)), daemon=True)
    worker.start()
    worker.join(timeout=60)  # a hang guard, not a speed figure (bench/fuzz.py measures speed)

    assert quoted, "fenced_data did not finish on 1,000,000 backticks"
    fence = quoted[0].splitlines()[1].removesuffix("yaml")
    assert fence == "`" * 1_000_001


def test_the_fence_is_longer_than_any_run_in_the_text():
    quoted = fenced_data("previous_pipeline", "a ``` b ````` c `")
    assert quoted.splitlines()[1] == "``````yaml"
    assert fenced_data("x", "plain").splitlines()[1] == "```yaml"

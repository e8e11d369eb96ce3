"""Issue 9 item 1: an answer whose stream did not complete is never validated or accepted.

A stream cut before `message_stop`, or one that is not SSE at all, is a transient LLM service
fault: retried under `llm.api_retries` with an `api_error` event, then exit 4 with nothing written.
"""

from __future__ import annotations

import json

import pytest

from osiris.errors import LLMUnavailableError
from tests.conftest import run_osiris, session_dirs, write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import CutStream, RawStream, Reply

REQUEST = "copy the customers CSV to a new CSV"
# The valid pipeline, cut where its writer step begins: it parses, and a validator would accept it.
TRUNCATED = VALID[: VALID.rindex("  - id:")]

BROKEN_STREAMS = {
    "cut before message_stop": CutStream(Reply(fenced(VALID)), keep=5),
    "bad JSON": RawStream(b"event: message_start\ndata: {not json\n\n"),
    "no event lines": RawStream(b"data: hello\n\n"),
    "HTML": RawStream(b"<html><body>502 Bad Gateway</body></html>"),
    "binary": RawStream(bytes(range(256))),
    "no message_start": RawStream(b'event: message_stop\ndata: {"type": "message_stop"}\n\n'),
}


@pytest.mark.parametrize("broken", list(BROKEN_STREAMS), ids=list(BROKEN_STREAMS))
def test_a_broken_stream_is_retried_as_a_service_fault(project, fake_api, broken):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 1}})
    fake_api.add(BROKEN_STREAMS[broken], Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(fake_api.requests) == 2
    [event] = h.events("api_error")
    assert event["retryable"] is True
    assert event["class"] in ("incomplete_stream", "malformed_stream")


def test_a_truncated_pipeline_is_never_written(project, fake_api):
    """The exact case the attack found: the writer step gone, exit 0, the file written."""
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 0}})
    fake_api.add(CutStream(Reply(fenced(VALID)), keep=3))  # message_start, block start, first delta

    done = run_osiris("generate", REQUEST, "-o", "out.yaml", cwd=project)

    assert done.returncode == 4, done.stderr
    assert not (project / "out.yaml").exists()
    [session] = session_dirs(project)
    events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    assert [e["class"] for e in events if e["event_type"] == "api_error"] == ["incomplete_stream"]
    assert not [e for e in events if e["event_type"] == "pipeline_accepted"]


def test_broken_streams_use_up_the_api_retries_then_exit_4(project, fake_api):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 1}})
    fake_api.add(RawStream(b"<html>oops</html>"), RawStream(b"<html>oops</html>"))
    h = make_engine(project)

    with pytest.raises(LLMUnavailableError, match="llm.api_retries = 1"):
        h.engine.run(REQUEST)
    assert len(fake_api.requests) == 2


def test_the_truncated_sample_would_have_validated():
    """Guards the test above: the cut text is a pipeline a validator would accept on its own."""
    assert "steps:" in TRUNCATED and TRUNCATED.count("- id:") >= 1

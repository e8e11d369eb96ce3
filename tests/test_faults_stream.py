"""Issue 9 item 1: an answer whose stream did not complete is never validated or accepted.

A stream cut before `message_stop` (at an event boundary, inside a chunk of a chunked body, or short
of its Content-Length), one that goes silent, or one that is not SSE at all, is a transient LLM
service fault: retried under `llm.api_retries` with an `api_error` event, then exit 4 with nothing
written. All of it runs through the real SDK against tests/fake_anthropic.py on 127.0.0.1.
"""

from __future__ import annotations

import json

import pytest

from osiris.errors import LLMUnavailableError
from tests.conftest import osiris_here, session_dirs, write_settings
from tests.engine_harness import make_engine
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import CutStream, RawStream, Reply, SlowStream, TornBody

REQUEST = "copy the customers CSV to a new CSV"
# The valid pipeline, cut where its writer step begins: it parses, and a validator would accept it.
TRUNCATED = VALID[: VALID.rindex("  - id:")]

ENDED_EARLY = "incomplete_stream: the answer stream ended before message_stop"
# The broken stream, and the `api_error` class it is recorded as.
BROKEN_STREAMS = {
    "cut before message_stop": (CutStream(Reply(fenced(VALID)), keep=5), "incomplete_stream"),
    "chunk torn": (TornBody(Reply(fenced(VALID)), framing="chunked"), "incomplete_stream"),
    "short of content-length": (TornBody(Reply(fenced(VALID)), framing="content-length"), "incomplete_stream"),
    "bad JSON": (RawStream(b"event: message_start\ndata: {not json\n\n"), "malformed_stream"),
    "no event lines": (RawStream(b"data: hello\n\n"), "incomplete_stream"),  # no event the SDK reads
    "HTML": (RawStream(b"<html><body>502 Bad Gateway</body></html>"), "incomplete_stream"),
    "binary": (RawStream(bytes(range(256))), "malformed_stream"),
    "no message_start": (RawStream(b'event: message_stop\ndata: {"type": "message_stop"}\n\n'), "malformed_stream"),
}


@pytest.mark.parametrize("broken", list(BROKEN_STREAMS), ids=list(BROKEN_STREAMS))
def test_a_broken_stream_is_retried_as_a_service_fault(project, fake_api, broken):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 1}})
    stream, kind = BROKEN_STREAMS[broken]
    fake_api.add(stream, Reply(fenced(VALID)))
    h = make_engine(project)

    result = h.engine.run(REQUEST)

    assert result.valid and len(fake_api.requests) == 2
    [event] = h.events("api_error")
    assert (event["class"], event["retryable"]) == (kind, True)


def test_a_truncated_pipeline_is_never_written(project, fake_api):
    """The exact case the attack found: the writer step gone, exit 0, the file written."""
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 0}})
    fake_api.add(CutStream(Reply(fenced(VALID)), keep=3))  # message_start, block start, first delta

    done = osiris_here("generate", REQUEST, "-o", "out.yaml", cwd=project)

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


def api_errors(project) -> list[tuple[str, str, bool]]:
    [session] = session_dirs(project)
    events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    return [(e["class"], e["message"], e["retryable"]) for e in events if e["event_type"] == "api_error"]


@pytest.mark.parametrize("framing", ["chunked", "content-length"])
def test_a_body_torn_in_transport_is_retried_and_the_retry_is_written(project, fake_api, framing):
    """The bytes before the cut hold the whole pipeline: only the missing `message_stop` and the
    transport error tell that the stream did not complete."""
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 1}})
    fake_api.add(TornBody(Reply(fenced(VALID)), framing=framing), Reply(fenced(VALID)))

    done = osiris_here("generate", REQUEST, "-o", "out.yaml", cwd=project)

    assert done.returncode == 0, done.stderr
    assert f"osiris: LLM service: {ENDED_EARLY}; retrying in " in done.stderr
    assert (project / "out.yaml").read_text() == VALID
    assert api_errors(project) == [("incomplete_stream", "the answer stream ended before message_stop", True)]
    assert len(fake_api.requests) == 2


def test_torn_bodies_use_up_the_api_retries_then_exit_4_with_nothing_written(project, fake_api):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 1}})
    fake_api.add(TornBody(Reply(fenced(VALID)), framing="chunked"),
                 TornBody(Reply(fenced(VALID)), framing="content-length"))

    done = osiris_here("generate", REQUEST, "-o", "out.yaml", cwd=project)

    assert done.returncode == 4, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "osiris: error: the LLM service is unavailable after 2 tries (llm.api_retries = 1); "
        f"last error: {ENDED_EARLY}")
    assert not (project / "out.yaml").exists()
    assert [kind for kind, _, _ in api_errors(project)] == ["incomplete_stream", "incomplete_stream"]
    assert len(fake_api.requests) == 2


def test_a_stream_that_goes_silent_mid_answer_is_a_timeout(project, fake_api):
    """docs/reliability.md: a service that goes silent is `the request timed out`, also mid-answer."""
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 0.5, "api_retries": 0}})
    fake_api.add(SlowStream(Reply(fenced(VALID)), chunk=300, interval=3))

    done = osiris_here("generate", REQUEST, "-o", "out.yaml", cwd=project)

    assert done.returncode == 4, done.stderr
    assert done.stderr.splitlines()[-1].endswith("last error: timeout: the request timed out")
    assert not (project / "out.yaml").exists()
    assert api_errors(project) == [("timeout", "the request timed out", True)]

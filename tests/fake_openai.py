"""A fake OpenAI-compatible chat-completions API on 127.0.0.1, in a thread, for tests and the
recorded exchanges of docs/providers.md.

    with FakeOpenAI([Reply(text="```yaml ...```"), Status(503)]) as server:
        client = openai.OpenAI(api_key="k", base_url=server.url)

Each POST /v1/chat/completions takes the next scripted response (the last one repeats when the
script runs out), as tests/fake_anthropic.py does, with the same `Reply`, `Status`, `CutStream` and `RawStream`.
Streamed requests get server-sent `data:` chunks ending in `data: [DONE]`, with a usage chunk when
`stream_options.include_usage` asks for one; others a JSON completion. Every request is recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.fake_anthropic import CutStream, FakeAnthropic, FakeHandler, RawStream, Recorded, Reply, Status

__all__ = ["CutStream", "FakeOpenAI", "RawStream", "Recorded", "Reply", "Status"]

_FINISH = {"end_turn": "stop", "max_tokens": "length"}
_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 403: "insufficient_quota",
                404: "invalid_request_error", 429: "rate_limit_exceeded", 503: "server_error"}


@dataclass
class FakeOpenAI(FakeAnthropic):
    """FakeAnthropic's script, recording and life cycle; OpenAI's wire format."""

    report_usage: bool = True  # False: a server that sends no usage (as some local servers do)
    port: int = 0  # 0: any free port

    @property
    def url(self) -> str:
        """The base URL a client is given, with its `/v1`, as for a real server."""
        return f"{super().url}/v1"

    def start(self) -> FakeOpenAI:
        self.serve(OpenAIHandler, self.port)
        return self

    def __enter__(self) -> FakeOpenAI:
        return self.start()


class OpenAIHandler(FakeHandler):
    """The chat-completions wire format: JSON completions, `data:` chunks, OpenAI error bodies."""

    fake: FakeOpenAI

    def respond(self, response: Any, body: dict[str, Any]) -> None:
        usage = self.fake.report_usage
        if isinstance(response, Status):
            self._status(response)
        elif isinstance(response, CutStream):
            self._send(200, _sse(_chunks(response.reply, body, usage)[:response.keep], done=False),
                       "text/event-stream", {})
        elif isinstance(response, RawStream):
            self._send(200, response.payload, "text/event-stream", {})
        elif body.get("stream"):
            self._send(200, _sse(_chunks(response, body, usage)), "text/event-stream", {})
        else:
            self._send(200, json.dumps(_completion(response, body)).encode(), "application/json", {})

    def _status(self, response: Status) -> None:
        code = response.error_type or _ERROR_TYPES.get(response.status, "server_error")
        payload = json.dumps({"error": {"message": response.message, "type": code, "param": None, "code": code}})
        headers = {"retry-after": response.retry_after} if response.retry_after is not None else {}
        self._send(response.status, payload.encode(), "application/json", headers)


def _usage(reply: Reply) -> dict[str, Any]:
    """OpenAI's counts: `prompt_tokens` includes the cached ones (Reply.cache_read)."""
    prompt = reply.input_tokens + reply.cache_read
    return {"prompt_tokens": prompt, "completion_tokens": reply.output_tokens,
            "total_tokens": prompt + reply.output_tokens,
            "prompt_tokens_details": {"cached_tokens": reply.cache_read}}


def _completion(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 1764000000,
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                         "finish_reason": _FINISH.get(reply.stop_reason, reply.stop_reason)}],
            "usage": _usage(reply)}


def _chunks(reply: Reply, body: dict[str, Any], report_usage: bool) -> list[dict[str, Any]]:
    """The chunks of a complete streamed answer: role, text pieces, finish_reason, then usage
    (only when asked for with stream_options.include_usage, and the server reports it)."""
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1764000000,
                "model": body.get("model", "fake-model"),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": reply.text[start:start + 200]}) for start in range(0, len(reply.text), 200)]
    chunks.append(chunk({}, _FINISH.get(reply.stop_reason, reply.stop_reason)))
    if report_usage and (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1764000000,
                       "model": body.get("model", "fake-model"), "choices": [], "usage": _usage(reply)})
    return chunks


def _sse(chunks: list[dict[str, Any]], done: bool = True) -> bytes:
    text = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks)
    return (text + ("data: [DONE]\n\n" if done else "")).encode()

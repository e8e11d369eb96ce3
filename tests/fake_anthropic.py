"""A fake Anthropic Messages API on 127.0.0.1, in a thread, for tests and bench/retry.py.

    with FakeAnthropic([Reply(text="```yaml ...```"), Status(429, retry_after="1")]) as server:
        client = anthropic.Anthropic(api_key="k", base_url=server.url)

Each POST /v1/messages takes the next scripted response (the last one repeats when the script
runs out). Every request is recorded: path, headers and parsed JSON body. Streamed requests
(`"stream": true`) get server-sent events, others a JSON message.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """A successful answer."""

    text: str
    stop_reason: str = "end_turn"
    input_tokens: int = 100
    output_tokens: int = 50
    cache_write: int = 0
    cache_read: int = 0
    delay: float = 0.0  # seconds before the response starts


@dataclass
class Status:
    """An HTTP error with an Anthropic error body, e.g. Status(429, retry_after="2")."""

    status: int
    error_type: str = ""
    message: str = "scripted error"
    retry_after: str | None = None
    delay: float = 0.0


@dataclass
class StreamError:
    """HTTP 200, then an `error` event inside the stream (e.g. overloaded_error)."""

    error_type: str = "overloaded_error"
    message: str = "Overloaded"


@dataclass
class CutStream:
    """A streamed answer whose connection closes after `keep` events: no `message_stop`."""

    reply: Reply
    keep: int


@dataclass
class RawStream:
    """HTTP 200 with `text/event-stream` and these bytes as they are (malformed SSE, HTML, binary)."""

    payload: bytes


@dataclass
class TornBody:
    """A streamed answer whose body breaks off at the transport level, in the middle of the stream
    and before `message_stop`. `framing="chunked"`: chunked transfer encoding, the connection closed
    inside a chunk (its size line promises the rest of the stream). `framing="content-length"`: a
    Content-Length for the whole stream, the connection closed short of it."""

    reply: Reply
    framing: str = "chunked"  # or "content-length"


@dataclass
class SlowStream:
    """A complete streamed answer sent `chunk` bytes every `interval` seconds, the connection then
    held open for `hold_open` seconds (a trickling service, or one that never closes)."""

    reply: Reply
    chunk: int = 0  # 0: the whole stream at once
    interval: float = 0.0
    hold_open: float = 0.0


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: str


class FakeHandler(BaseHTTPRequestHandler):
    """What both fakes' handlers do alike: read and record a JSON request, take the fake's next
    scripted response, wait its delay and send it in the fake's wire format (`respond`)."""

    protocol_version = "HTTP/1.1"
    fake: FakeAnthropic  # the server's fake, set when it starts (FakeAnthropic.serve)

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        recorded = self.read_request()
        response = self.fake.answer(recorded)
        time.sleep(getattr(response, "delay", 0.0))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.respond(response, recorded.body)

    def respond(self, response: Any, body: dict[str, Any]) -> None:
        raise NotImplementedError

    def read_request(self) -> Recorded:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0)).decode("utf-8")
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        return Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw)

    def _send(self, status: int, payload: bytes, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()


_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


@dataclass
class FakeAnthropic:
    script: list[Any] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    # True: usage is estimated from the request (4 characters a token), with the cached system
    # part written on the first request and read on later ones, instead of the Reply's figures.
    estimate_usage: bool = False

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def bodies(self) -> list[str]:
        return [r.raw for r in self.requests]

    def add(self, *responses: Any) -> None:
        with self._lock:
            self.script.extend(responses)

    def _next(self, recorded: Recorded) -> Any:
        with self._lock:
            index = len(self.requests)
            self.requests.append(recorded)
            if not self.script:
                return Status(500, message="fake server: no scripted response")
            response = self.script[min(index, len(self.script) - 1)]
        # A callable answers from the request it gets: a scripted model that reads the prompt.
        return response(recorded.body) if callable(response) else response

    def _estimated(self, reply: Reply, body: dict[str, Any], first: bool) -> Reply:
        system = body.get("system") or []
        cached = sum(len(b.get("text", "")) for b in system if b.get("cache_control")) // 4
        rest = sum(len(b.get("text", "")) for b in system if not b.get("cache_control"))
        rest += sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        return Reply(
            reply.text, reply.stop_reason, rest // 4, max(1, len(reply.text) // 4),
            cache_write=cached if first else 0, cache_read=0 if first else cached, delay=reply.delay,
        )

    def answer(self, recorded: Recorded) -> Any:
        """The response to `recorded` (`_next`), its usage estimated when `estimate_usage` asks."""
        response = self._next(recorded)
        if isinstance(response, Reply) and self.estimate_usage:
            response = self._estimated(response, recorded.body, first=len(self.requests) == 1)
        return response

    def serve(self, handler: type[FakeHandler], port: int = 0) -> None:
        """Answer on 127.0.0.1:`port` (0: any free one) with `handler`, in a thread."""
        self._server = ThreadingHTTPServer(("127.0.0.1", port), type("Handler", (handler,), {"fake": self}))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True).start()

    def start(self) -> FakeAnthropic:
        self.serve(AnthropicHandler)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class AnthropicHandler(FakeHandler):
    """The Messages API's wire format: JSON messages, server-sent events, Anthropic error bodies."""

    def respond(self, response: Any, body: dict[str, Any]) -> None:
        if isinstance(response, Status):
            self._status(response)
        elif isinstance(response, StreamError):
            self._stream_error(response, body)
        elif isinstance(response, CutStream):
            self._send(200, _sse(_stream_events(response.reply, body)[:response.keep]), "text/event-stream", {})
        elif isinstance(response, SlowStream):
            self._slow(response, body)
        elif isinstance(response, TornBody):
            self._torn(response, body)
        elif isinstance(response, RawStream):
            self._send(200, response.payload, "text/event-stream", {})
        elif body.get("stream"):
            self._stream(response, body)
        else:
            self._json(response, body)

    def _slow(self, response: SlowStream, body: dict[str, Any]) -> None:
        payload = _sse(_stream_events(response.reply, body))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")  # no length: the body ends when we close
        self.end_headers()
        step = response.chunk or len(payload)
        for start in range(0, len(payload), step):
            self.wfile.write(payload[start:start + step])
            self.wfile.flush()
            time.sleep(response.interval)
        time.sleep(response.hold_open)
        self.close_connection = True

    def _torn(self, response: TornBody, body: dict[str, Any]) -> None:
        whole = _sse(_stream_events(response.reply, body))
        sent = whole[:whole.index(b"event: message_stop")]  # every event but the last
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        if response.framing == "chunked":
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            half = len(sent) // 2
            self.wfile.write(b"%x\r\n%s\r\n" % (half, sent[:half]))  # one whole chunk
            self.wfile.write(b"%x\r\n%s" % (len(whole) - half, sent[half:]))  # a torn one
        else:
            self.send_header("content-length", str(len(whole)))
            self.end_headers()
            self.wfile.write(sent)
        self.wfile.flush()
        self.close_connection = True

    def _status(self, response: Status) -> None:
        kind = response.error_type or _ERROR_TYPES.get(response.status, "api_error")
        payload = json.dumps({"type": "error", "error": {"type": kind, "message": response.message}})
        headers = {"retry-after": response.retry_after} if response.retry_after is not None else {}
        headers["x-should-retry"] = "true" if response.status >= 429 else "false"
        self._send(response.status, payload.encode(), "application/json", headers)

    def _json(self, reply: Reply, body: dict[str, Any]) -> None:
        message = _message(reply, body)
        message["content"] = [{"type": "text", "text": reply.text}]
        message["usage"]["output_tokens"] = reply.output_tokens
        self._send(200, json.dumps(message).encode(), "application/json", {})

    def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
        self._send(200, _sse(_stream_events(reply, body)), "text/event-stream", {})

    def _stream_error(self, response: StreamError, body: dict[str, Any]) -> None:
        events = [
            ("message_start", {"type": "message_start", "message": _message(Reply(""), body)}),
            ("error", {"type": "error", "error": {"type": response.error_type, "message": response.message}}),
        ]
        self._send(200, _sse(events), "text/event-stream", {})


def _message(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-fake"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": reply.input_tokens,
            "output_tokens": 1,
            "cache_creation_input_tokens": reply.cache_write,
            "cache_read_input_tokens": reply.cache_read,
        },
    }


def _stream_events(reply: Reply, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events of a complete streamed answer, `message_stop` last."""
    events = [("message_start", {"type": "message_start", "message": _message(reply, body)})]
    events.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": {"type": "text", "text": ""}}))
    for start in range(0, len(reply.text), 200):
        events.append(("content_block_delta", {"type": "content_block_delta", "index": 0,
                       "delta": {"type": "text_delta", "text": reply.text[start:start + 200]}}))
    events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                                     "usage": {"output_tokens": reply.output_tokens}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()

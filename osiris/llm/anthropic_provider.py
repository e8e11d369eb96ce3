"""The Anthropic Messages API through the official SDK (2.x), streamed, with no SDK retries.

The SDK would retry 408/409/429/5xx by itself and honour `retry-after` with no cap. We build the
client with `max_retries=0` so that only `osiris.llm.backoff` retries, under `llm.api_retries`.
The SDK is imported on first use (it takes over a second to import).
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from osiris.llm.anthropic_request import message_params, system_blocks
from osiris.llm.errors import LLMServiceError
from osiris.llm.types import LLMReply, LLMRequest, TokenUsage
from osiris.trust.disclosure import shorten

# An `error` event inside a stream: its type -> our kind. These are transient; other types are fatal.
_STREAM_ERROR_KINDS = {
    "overloaded_error": "overloaded",
    "api_error": "server",
    "rate_limit_error": "rate_limit",
    "timeout_error": "timeout",
}
_TIMED_OUT = "the request timed out"
_ENDED_EARLY = "the answer stream ended before message_stop"
_FATAL_KINDS = {400: "bad_request", 401: "authentication", 403: "permission", 404: "not_found",
                413: "request_too_large", 422: "bad_request"}


class AnthropicProvider:
    """`Provider` for Anthropic. `base_url=None` keeps the SDK default (honours ANTHROPIC_BASE_URL)."""

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None,
        model: str,
        base_url: str | None = None,
        max_tokens: int = 4096,
        timeout_seconds: float = 60.0,
        deadline_seconds: float = 300.0,
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self._api_key = api_key
        self._base_url = base_url
        self._timeout = timeout_seconds
        self._deadline = deadline_seconds
        self._client: Any = None
        self._client_lock = threading.Lock()  # the chat's warm-up thread may build it first

    def prepare(self) -> None:
        """Build the SDK client now (the chat calls this while the person types)."""
        self._get_client()

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = self._new_client()
            return self._client

    def _new_client(self) -> Any:
        import anthropic

        from osiris.llm.deadline import client_with_deadline

        return anthropic.Anthropic(
            api_key=self._api_key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=0,  # our backoff is the only retry layer
            http_client=client_with_deadline(
                anthropic, timeout_seconds=self._timeout, deadline_seconds=self._deadline
            ),
        )

    def complete(self, request: LLMRequest) -> LLMReply:
        """One streamed call. `duration_ms` runs from this call to the answer's end: the SDK's first
        import and the client's build (or the wait for the chat's warm-up to finish it) included."""
        started = time.perf_counter()
        import anthropic

        from osiris.llm.deadline import DeadlineExceeded

        client = self._get_client()
        system = system_blocks(request)
        try:
            with client.messages.stream(
                model=self.model,
                max_tokens=request.max_tokens,
                system=system,
                messages=message_params(request),  # the history's last message is a cache breakpoint
            ) as stream:
                message = _read_to_message_stop(stream)
        except anthropic.APIError as error:
            raise translate_error(error) from None
        except LLMServiceError:
            raise
        except DeadlineExceeded:
            raise LLMServiceError("deadline", f"the answer took longer than {self._deadline:g} s "
                                  "(llm.request_deadline_seconds)", retryable=True) from None
        except Exception as error:  # raised while reading the body: the SDK passes these on as they are
            raise stream_fault(error) from None
        duration_ms = (time.perf_counter() - started) * 1000
        text = "".join(block.text for block in message.content if getattr(block, "type", "") == "text")
        usage = message.usage
        return LLMReply(
            text=text,
            stop_reason=message.stop_reason,
            model=message.model or self.model,
            usage=TokenUsage(
                input=usage.input_tokens or 0,
                output=usage.output_tokens or 0,
                cache_write=usage.cache_creation_input_tokens or 0,
                cache_read=usage.cache_read_input_tokens or 0,
            ),
            duration_ms=duration_ms,
        )


def _read_to_message_stop(stream: Any) -> Any:
    """The streamed message, read up to `message_stop` and no further (a server that keeps the
    connection open afterwards is not waited for). A stream that ends before `message_stop` was cut
    off: a transient service fault, never an answer to validate."""
    for event in stream:
        if event.type == "message_stop":
            return stream.current_message_snapshot
    raise LLMServiceError("incomplete_stream", _ENDED_EARLY, retryable=True)


def stream_fault(error: Exception) -> LLMServiceError:
    """A failure while reading the answer stream, all transient: the connection went silent (a read
    timeout), broke off mid-body (a torn chunk, a body short of its Content-Length: the stream did
    not complete), or the bytes were not an answer stream (bad JSON, no events, HTML, binary)."""
    from osiris.llm.http_library import http

    if isinstance(error, http.TimeoutException):
        return LLMServiceError("timeout", _TIMED_OUT, retryable=True)
    if isinstance(error, http.TransportError):
        return LLMServiceError("incomplete_stream", _ENDED_EARLY, retryable=True)
    return LLMServiceError("malformed_stream", f"the LLM service sent a broken answer stream "
                           f"({type(error).__name__})", retryable=True)


def translate_error(error: Exception) -> LLMServiceError:
    """An SDK exception as an `LLMServiceError`: transient ones are retryable, the rest fatal."""
    import anthropic

    if isinstance(error, anthropic.APITimeoutError):
        return LLMServiceError("timeout", _TIMED_OUT, retryable=True)
    if isinstance(error, anthropic.APIConnectionError):
        return LLMServiceError("connection", "could not connect to the LLM service", retryable=True)
    if isinstance(error, anthropic.APIStatusError):
        message = error.api_message or _first_line(str(error))
        status = error.status_code
        if status == 200:  # an `error` event inside the stream
            kind = _STREAM_ERROR_KINDS.get(error.type or "")
            return LLMServiceError(kind or error.type or "stream_error", message, retryable=kind is not None)
        if status == 429:
            return LLMServiceError("rate_limit", message, True, status, retry_after(error.response.headers))
        if status == 529:
            return LLMServiceError("overloaded", message, True, status, retry_after(error.response.headers))
        if status >= 500 or status in (408, 409):
            return LLMServiceError("server", message, True, status, retry_after(error.response.headers))
        return LLMServiceError(_FATAL_KINDS.get(status, "client_error"), message, False, status)
    return LLMServiceError("unknown", _first_line(str(error)), retryable=False)


def retry_after(headers: Any) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (a number); None when absent or a date."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            seconds = float(raw) * scale
        except ValueError:
            continue
        if math.isfinite(seconds):  # `inf` or `nan` is no instruction we can follow (or log)
            return max(0.0, seconds)
    return None


def _first_line(text: str) -> str:
    """The first line, at most 300 characters; a cut ends in an ellipsis, so that the session's
    redactor still masks the head of a key cut there (osiris.secrets.redact)."""
    return shorten(text.strip().splitlines()[0], 300) if text.strip() else "no details"

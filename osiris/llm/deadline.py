"""A deadline for a whole answer, not for each read.

The SDK's timeout bounds each network read, so a stream that trickles a byte a second never times
out. `DeadlineTransport` wraps the SDK's HTTP transport and stops reading a response once the
request is older than its deadline. The check runs on every chunk received, so a request ends at
most one read timeout after its deadline. Imported only when the first LLM request is made.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import ModuleType

from osiris.llm.errors import LLMServiceError
from osiris.llm.http_library import http


class DeadlineExceeded(Exception):
    """The answer was still arriving when the request's deadline passed."""


def deadline_error(seconds: float) -> LLMServiceError:
    """What a passed deadline is to the retry layer: transient, like a timeout."""
    return LLMServiceError("deadline", f"the answer took longer than {seconds:g} s "
                           "(llm.request_deadline_seconds)", retryable=True)


class DeadlineTransport(http.BaseTransport):
    """Sends each request through `inner`, and ends its response `seconds` after it was sent."""

    def __init__(self, inner: http.BaseTransport, seconds: float) -> None:
        self._inner = inner
        self._seconds = seconds

    def handle_request(self, request: http.Request) -> http.Response:
        deadline = time.monotonic() + self._seconds
        response = self._inner.handle_request(request)
        stream = response.stream
        assert isinstance(stream, http.SyncByteStream)  # a synchronous transport's response streams synchronously
        response.stream = _StreamWithDeadline(stream, deadline)
        return response

    def close(self) -> None:
        self._inner.close()


class _StreamWithDeadline(http.SyncByteStream):
    def __init__(self, inner: http.SyncByteStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            if time.monotonic() > self._deadline:
                raise DeadlineExceeded()
            yield chunk

    def close(self) -> None:
        self._inner.close()


def client_with_deadline(sdk: ModuleType, *, timeout_seconds: float, deadline_seconds: float) -> http.Client:
    """An HTTP client for `sdk.Anthropic(http_client=...)` or `sdk.OpenAI(...)`, with the SDK's defaults and a deadline."""
    transport = DeadlineTransport(http.HTTPTransport(), deadline_seconds)
    client: http.Client = sdk.DefaultHttpxClient(transport=transport, timeout=timeout_seconds)  # an http.Client subclass
    return client

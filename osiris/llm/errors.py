"""LLM service failures in provider-neutral terms: transient (retry with backoff) or fatal."""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Mapping

from osiris.trust.disclosure import shorten

TIMED_OUT = "the request timed out"
_FATAL_KINDS = {400: "bad_request", 401: "authentication", 403: "permission", 404: "not_found",
                413: "request_too_large", 422: "bad_request"}


@dataclass
class LLMServiceError(Exception):
    """A failed LLM call. `kind` is e.g. rate_limit, overloaded, server, timeout, connection,
    stream_error, authentication, permission, bad_request."""

    kind: str
    message: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None  # seconds the service asked us to wait, if it said

    def __str__(self) -> str:
        status = f" (HTTP {self.status})" if self.status else ""
        return f"{self.kind}{status}: {self.message}"


def status_error(status: int, message: str, headers: Mapping[str, str]) -> LLMServiceError:
    """An HTTP error status as an `LLMServiceError`, the same for every provider: 429, 529, 5xx,
    408 and 409 are transient (with the wait the service asked for), the rest fatal."""
    if status == 429:
        return LLMServiceError("rate_limit", message, True, status, retry_after(headers))
    if status == 529:
        return LLMServiceError("overloaded", message, True, status, retry_after(headers))
    if status >= 500 or status in (408, 409):
        return LLMServiceError("server", message, True, status, retry_after(headers))
    return LLMServiceError(_FATAL_KINDS.get(status, "client_error"), message, False, status)


def retry_after(headers: Mapping[str, str]) -> float | None:
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


def first_line(text: str) -> str:
    """The first line, at most 300 characters; a cut ends in an ellipsis, so that the session's
    redactor still masks the head of a key cut there (osiris.secrets.redact)."""
    return shorten(text.strip().splitlines()[0], 300) if text.strip() else "no details"


def stream_fault(error: Exception, ended_early: str) -> LLMServiceError:
    """A failure while reading the answer stream, all transient: the connection went silent (a read
    timeout), broke off mid-body (a torn chunk, a body short of its Content-Length: the stream did
    not complete), or the bytes were not an answer stream (bad JSON, no events, HTML, binary)."""
    from osiris.llm.http_library import http

    if isinstance(error, http.TimeoutException):
        return LLMServiceError("timeout", TIMED_OUT, retryable=True)
    if isinstance(error, http.TransportError):
        return LLMServiceError("incomplete_stream", ended_early, retryable=True)
    return LLMServiceError("malformed_stream", f"the LLM service sent a broken answer stream "
                           f"({type(error).__name__})", retryable=True)

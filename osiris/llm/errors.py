"""LLM service failures in provider-neutral terms: transient (retry with backoff) or fatal."""

from __future__ import annotations

from dataclasses import dataclass


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

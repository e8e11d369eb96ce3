"""The Anthropic Messages API through the official SDK (2.x), streamed, with no SDK retries.

The SDK would retry 408/409/429/5xx by itself and honour `retry-after` with no cap. We build the
client with `max_retries=0` so that only `osiris.llm.backoff` retries, under `llm.api_retries`.
The SDK is imported on first use (it takes over a second to import).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from osiris.llm.anthropic_request import message_params, system_blocks
from osiris.llm.errors import TIMED_OUT, LLMServiceError, first_line, status_error
from osiris.llm.sdk_client import SDKProvider
from osiris.llm.types import LLMReply, LLMRequest, TokenUsage

if TYPE_CHECKING:
    import anthropic
    from anthropic.lib.streaming import MessageStream
    from anthropic.types import Message

# An `error` event inside a stream: its type -> our kind. These are transient; other types are fatal.
_STREAM_ERROR_KINDS = {
    "overloaded_error": "overloaded",
    "api_error": "server",
    "rate_limit_error": "rate_limit",
    "timeout_error": "timeout",
}
_ENDED_EARLY = "the answer stream ended before message_stop"


class AnthropicProvider(SDKProvider["anthropic.Anthropic"]):
    """`Provider` for Anthropic. `base_url=None` keeps the SDK default (honours ANTHROPIC_BASE_URL)."""

    name = "anthropic"

    def _new_client(self) -> anthropic.Anthropic:
        import anthropic

        return anthropic.Anthropic(api_key=self._api_key, base_url=self._base_url, **self._transport_options(anthropic))

    def complete(self, request: LLMRequest) -> LLMReply:
        """One streamed call. `duration_ms` runs from this call to the answer's end: the SDK's first
        import and the client's build (or the wait for the chat's warm-up to finish it) included."""
        started = time.perf_counter()
        import anthropic
        from anthropic.types import TextBlock

        client = self._get_client()
        system = system_blocks(request)
        with self._service_errors(anthropic.APIError, translate_error, _ENDED_EARLY), client.messages.stream(
            model=self.model,
            max_tokens=request.max_tokens,
            system=system,
            messages=message_params(request),  # the history's last message is a cache breakpoint
        ) as stream:
            message = _read_to_message_stop(stream)
        duration_ms = (time.perf_counter() - started) * 1000
        text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
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


def _read_to_message_stop(stream: MessageStream) -> Message:
    """The streamed message, read up to `message_stop` and no further (a server that keeps the
    connection open afterwards is not waited for). A stream that ends before `message_stop` was cut
    off: a transient service fault, never an answer to validate."""
    for event in stream:
        if event.type == "message_stop":
            return stream.current_message_snapshot
    raise LLMServiceError("incomplete_stream", _ENDED_EARLY, retryable=True)


def translate_error(error: Exception) -> LLMServiceError:
    """An SDK exception as an `LLMServiceError`: transient ones are retryable, the rest fatal."""
    import anthropic

    if isinstance(error, anthropic.APITimeoutError):
        return LLMServiceError("timeout", TIMED_OUT, retryable=True)
    if isinstance(error, anthropic.APIConnectionError):
        return LLMServiceError("connection", "could not connect to the LLM service", retryable=True)
    if isinstance(error, anthropic.APIStatusError):
        message = error.api_message or first_line(str(error))
        status = error.status_code
        if status == 200:  # an `error` event inside the stream
            kind = _STREAM_ERROR_KINDS.get(error.type or "")
            return LLMServiceError(kind or error.type or "stream_error", message, retryable=kind is not None)
        return status_error(status, message, error.response.headers)
    return LLMServiceError("unknown", first_line(str(error)), retryable=False)

"""Any OpenAI-compatible chat-completions API (OpenAI, Ollama, vLLM, OpenRouter, ...) through the
`openai` SDK, streamed, with no SDK retries (ADR 0190).

As for Anthropic (ADR 0020), the client has `max_retries=0`: `osiris.llm.backoff` is the only retry
layer, under `llm.api_retries`. The answer is streamed with `stream_options.include_usage`, so the
last chunk carries the server's token counts. A stream that ends before a chunk with a
`finish_reason` was cut off: a transient fault, never an answer to validate. The SDK is imported on
first use.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from osiris.llm.errors import TIMED_OUT, LLMServiceError, first_line, status_error
from osiris.llm.sdk_client import SDKProvider
from osiris.llm.types import LLMReply, LLMRequest, TokenUsage

if TYPE_CHECKING:
    import openai
    from openai.types import CompletionUsage
    from openai.types.chat import ChatCompletionChunk, ChatCompletionMessageParam

    from osiris.llm.types import Message

_ENDED_EARLY = "the answer stream ended before its finish_reason"
# OpenAI's own API took `max_tokens` away from its newer models; compatible servers know `max_tokens`.
_OPENAI_HOSTS = ("api.openai.com",)
_STOP_REASONS = {"length": "max_tokens", "stop": "end_turn"}


class OpenAIProvider(SDKProvider["openai.OpenAI"]):
    """`Provider` for an OpenAI-compatible server. `api_key=None`: a local server that wants none."""

    name = "openai"

    def _new_client(self) -> openai.OpenAI:
        import openai

        return openai.OpenAI(
            api_key=self._api_key or "none",  # a local server ignores it; the SDK insists on one
            base_url=self._base_url,
            organization=None,
            project=None,
            **self._transport_options(openai),
        )

    def complete(self, request: LLMRequest) -> LLMReply:
        """One streamed call; `duration_ms` runs from this call to the answer's end, as Anthropic's does."""
        started = time.perf_counter()
        import openai

        client = self._get_client()
        completion = self._limit_name() == "max_completion_tokens"
        with self._service_errors(openai.APIError, translate_error, _ENDED_EARLY):
            stream = client.chat.completions.create(
                model=self.model,
                messages=chat_messages(request),
                stream=True,
                stream_options={"include_usage": True},
                max_completion_tokens=request.max_tokens if completion else openai.omit,  # omit: not sent
                max_tokens=openai.omit if completion else request.max_tokens,
            )
            with stream:
                text, finish_reason, model, usage = _read_stream(stream)
        return LLMReply(
            text=text,
            stop_reason=_STOP_REASONS.get(finish_reason, finish_reason),
            model=model or self.model,
            usage=token_usage(usage),
            duration_ms=(time.perf_counter() - started) * 1000,
        )

    def _limit_name(self) -> str:
        host = urlsplit(self._base_url).hostname if self._base_url else "api.openai.com"
        return "max_completion_tokens" if host in _OPENAI_HOSTS else "max_tokens"


def chat_messages(request: LLMRequest) -> list[ChatCompletionMessageParam]:
    """One system message, its stable part first (a server that caches prefixes, as OpenAI does by
    itself, reuses it from call to call), then the conversation."""
    system = request.system_stable + (f"\n\n{request.system_dynamic}" if request.system_dynamic else "")
    return [{"role": "system", "content": system}, *(_chat_message(m) for m in request.messages)]


def _chat_message(message: Message) -> ChatCompletionMessageParam:
    if message.role == "user":
        return {"role": "user", "content": message.content}
    return {"role": "assistant", "content": message.content}


def _read_stream(stream: openai.Stream[ChatCompletionChunk]) -> tuple[str, str, str | None, CompletionUsage | None]:
    """(text, finish_reason, model, usage) of a streamed answer; `usage` is None when the server
    sends none. A stream without a finish_reason was cut off."""
    parts: list[str] = []
    finish_reason: str | None = None
    model: str | None = None
    usage: CompletionUsage | None = None
    for chunk in stream:
        model = getattr(chunk, "model", None) or model
        usage = getattr(chunk, "usage", None) or usage
        for choice in chunk.choices or []:
            if choice.delta is not None and choice.delta.content:
                parts.append(choice.delta.content)
            finish_reason = choice.finish_reason or finish_reason
    if finish_reason is None:
        raise LLMServiceError("incomplete_stream", _ENDED_EARLY, retryable=True)
    return "".join(parts), finish_reason, model, usage


def token_usage(usage: CompletionUsage | None) -> TokenUsage:
    """The server's counts; `prompt_tokens` includes the cached ones, which we count apart."""
    if usage is None:
        return TokenUsage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", None) or 0) if details is not None else 0
    prompt = usage.prompt_tokens or 0
    return TokenUsage(input=max(0, prompt - cached), output=usage.completion_tokens or 0, cache_read=cached)


def translate_error(error: Exception) -> LLMServiceError:
    """An SDK exception as an `LLMServiceError`: the same kinds, and so exit codes, as Anthropic's."""
    import openai

    if isinstance(error, openai.APITimeoutError):
        return LLMServiceError("timeout", TIMED_OUT, retryable=True)
    if isinstance(error, openai.APIConnectionError):
        return LLMServiceError("connection", "could not connect to the LLM service", retryable=True)
    if isinstance(error, openai.APIStatusError):
        return status_error(error.status_code, _message(error), error.response.headers)
    if isinstance(error, openai.APIError):  # an `error` inside the stream, after HTTP 200
        return LLMServiceError("stream_error", first_line(error.message or str(error)), retryable=True)
    return LLMServiceError("unknown", first_line(str(error)), retryable=False)


def _message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return first_line(inner["message"])
    return first_line(str(error.message or error))

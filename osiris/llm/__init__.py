"""LLM providers behind one small interface (`Provider`), and the transient-error retry policy.

Nothing here imports the anthropic or openai SDK at module level: `osiris --help` and `osiris validate`
must stay fast. Each SDK is imported inside its provider when the first request is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from osiris.llm.types import LLMReply, LLMRequest, Provider, TokenUsage

if TYPE_CHECKING:
    from osiris.settings.loader import EffectiveSettings

__all__ = ["LLMReply", "LLMRequest", "Provider", "TokenUsage", "make_provider"]


def make_provider(effective: EffectiveSettings, api_key: str | None = None) -> Provider:
    """The provider named by `llm.provider` in the settings."""
    llm = effective.settings.llm
    if llm.provider == "demo":
        from osiris.llm.demo import DemoProvider

        return DemoProvider()
    if llm.provider == "openai":
        from osiris.llm.openai_provider import OpenAIProvider

        return OpenAIProvider(api_key=api_key, model=openai_model(effective), base_url=openai_base_url(effective),
                              max_tokens=llm.max_tokens, timeout_seconds=llm.timeout_seconds,
                              deadline_seconds=llm.request_deadline_seconds)
    from osiris.llm.anthropic_provider import AnthropicProvider

    return AnthropicProvider(
        api_key=api_key,
        model=llm.model,
        base_url=llm.base_url,
        max_tokens=llm.max_tokens,
        timeout_seconds=llm.timeout_seconds,
        deadline_seconds=llm.request_deadline_seconds,
    )


def openai_base_url(effective: EffectiveSettings) -> str | None:
    """`llm.base_url`, else OPENAI_BASE_URL, else None (OpenAI's own API)."""
    return effective.settings.llm.base_url or effective.env.get("OPENAI_BASE_URL") or None


def openai_model(effective: EffectiveSettings) -> str:
    """`llm.model` as set: the default names a Claude model, which no OpenAI-compatible server has."""
    from osiris.errors import UsageError

    if effective.source("llm.model") == "default":
        raise UsageError("llm.provider openai needs llm.model: the model's name on the server, e.g. "
                         "gpt-4.1-mini (OpenAI), llama3.1 (Ollama); set it in .osiris.yaml, "
                         "OSIRIS_LLM__MODEL or --model")
    return effective.settings.llm.model

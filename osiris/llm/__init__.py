"""LLM providers behind one small interface (`Provider`), and the transient-error retry policy.

Nothing here imports the anthropic SDK at module level: `osiris --help` and `osiris validate`
must stay fast. The SDK is imported inside `AnthropicProvider` when the first request is made.
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
    from osiris.llm.anthropic_provider import AnthropicProvider

    return AnthropicProvider(
        api_key=api_key,
        model=llm.model,
        base_url=llm.base_url,
        max_tokens=llm.max_tokens,
        timeout_seconds=llm.timeout_seconds,
        deadline_seconds=llm.request_deadline_seconds,
    )

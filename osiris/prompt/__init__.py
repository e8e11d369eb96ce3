"""Prompts: the system prompt built from the registry, the request prompt, the delta retry prompt."""

from osiris.prompt.request import build_request_prompt
from osiris.prompt.retry import RetryKind, build_retry_prompt, retry_kind
from osiris.prompt.system import SystemPrompt, build_system_prompt

__all__ = [
    "RetryKind",
    "SystemPrompt",
    "build_request_prompt",
    "build_retry_prompt",
    "build_system_prompt",
    "retry_kind",
]
